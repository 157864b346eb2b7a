package derive

import (
	"slices"
	"strings"

	"github.com/goverbs/goverbs/gen/manpage"
)

// named reports whether a NAME entry of mp lists fn.
func named(mp *manpage.Page, fn string) bool {
	for _, e := range mp.Names() {
		if slices.Contains(e.Names, fn) {
			return true
		}
	}
	return false
}

// summary returns the NAME summary of the entry listing fn, else the first
// entry's.
func summary(mp *manpage.Page, fn string) string {
	es := mp.Names()
	for _, e := range es {
		if slices.Contains(e.Names, fn) {
			return cutHeading(e.Summary)
		}
	}
	if len(es) > 0 {
		return cutHeading(es[0].Summary)
	}
	return ""
}

// cutHeading drops a Markdown heading pandoc left in a NAME line
// (efadv_create_driver_qp.3: "Create EFA specific Queue Pair # SYNOPSIS").
func cutHeading(s string) string {
	if i := strings.Index(s, " # "); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// nonDescription are the sections that do not go into Doc.Description:
// those with a Doc field or a spec field of their own, and those that do
// not document the call (authors, examples).
var nonDescription = map[string]bool{
	"NAME": true, "SYNOPSIS": true, "DESCRIPTION": true, "RETURN VALUE": true,
	"NOTES": true, "NOTE": true, "ERRORS": true, "SEE ALSO": true,
	"AUTHOR": true, "AUTHORS": true, "EXAMPLE": true, "EXAMPLES": true,
}

// description returns the DESCRIPTION of fn followed by the page's other
// documenting sections (ARGUMENTS, USAGE, SECURITY WARNING, ...), each
// under a "# Title" heading, all filtered by subject.
func description(mp *manpage.Page, fn string, funcs []string) string {
	parts := []string{sectionDoc(mp, "DESCRIPTION", fn, funcs)}
	for _, s := range mp.Sections {
		// A stray quote in a heading (manadv_alloc_pd.3: SYNOPSIS”) still names the section.
		if nonDescription[s.Name] || nonDescription[strings.Trim(s.Name, "\"”“")] {
			continue
		}
		if text := sectionDoc(mp, s.Name, fn, funcs); text != "" {
			parts = append(parts, "# "+headingTitle(s.Name), text)
		}
	}
	return joinDoc(parts...)
}

// headingTitle turns an upper-case section name into a Go doc heading:
// "SECURITY WARNING" -> "Security warning". Go doc headings end without
// punctuation.
func headingTitle(s string) string {
	s = strings.TrimRight(strings.ToLower(s), ".:;,")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func joinDoc(parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

func sectionDoc(mp *manpage.Page, name, fn string, funcs []string) string {
	s := mp.Section(name)
	if s == nil {
		return ""
	}
	return strings.Trim(manpage.GoDoc(manpage.BlocksFor(s.Blocks, fn, funcs)), "\n")
}
