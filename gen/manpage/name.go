package manpage

import (
	"regexp"
	"strings"
)

// Entry is one line of a NAME section: the functions it names and the
// one-line summary after the dash.
type Entry struct {
	Names   []string
	Summary string
}

var (
	// nameDash separates names from the summary: "-", "\-" as rendered,
	// "--" (librpma), an en or em dash; the space before it may be missing
	// ("mlx5dv_dr_action_create_push_vlan\- Create ..." in mlx5dv_dr_flow(3)).
	nameDash = regexp.MustCompile(`\s*(?:--|-|–|—)\s+`)
	identRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// notNames are words NAME lines hold that are not function names: "and",
// and C type words that slip in ("int ibv_dealloc_dmah - ..." in
// ibv_alloc_dmah(3)).
var notNames = map[string]bool{"and": true, "or": true, "int": true, "void": true, "struct": true,
	"const": true, "unsigned": true, "char": true, "long": true, "enum": true}

// Names parses the NAME section of p. A NAME section may hold several
// "names - summary" lines (ibv_wr_post(3)); names are split at commas and
// white space, lose a trailing "()" and are lower-cased when written in
// capitals (RDMA_FREEADDRINFO). Words that are not C identifiers
// ("ibv_memcpy_to/from_dm") are dropped; the SYNOPSIS covers those.
func (p *Page) Names() []Entry {
	s := p.Section("NAME")
	if s == nil {
		return nil
	}
	var out []Entry
	for _, line := range strings.Split(PlainText(s.Blocks), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		loc := nameDash.FindStringIndex(line)
		names, summary := line, ""
		if loc != nil {
			names, summary = line[:loc[0]], strings.TrimSpace(line[loc[1]:])
		}
		var e Entry
		for _, w := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == ' ' }) {
			w = strings.TrimSuffix(w, "()")
			if !identRe.MatchString(w) || notNames[w] {
				continue
			}
			if strings.ToUpper(w) == w {
				w = strings.ToLower(w)
			}
			e.Names = append(e.Names, w)
		}
		if len(e.Names) == 0 {
			// A summary wrapped onto its own line continues the previous entry.
			if len(out) > 0 && loc == nil {
				out[len(out)-1].Summary = strings.TrimSpace(out[len(out)-1].Summary + " " + line)
			}
			continue
		}
		e.Summary = summary
		out = append(out, e)
	}
	return out
}
