package emit

import (
	"regexp"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
)

// unit is a sentence of a page's paragraph, a list item or a code line: the
// pieces of text the shape inference attributes to parameters.
type unit struct {
	para  int    // paragraph number; list items and code lines have their own
	text  string // the sentence or line
	list  bool   // a "  - " list item
	code  bool   // a tab-indented code line (struct listings)
	colon bool   // the last sentence of its paragraph, ending in ':'
}

var sentenceEnd = regexp.MustCompile(`[.;] +`)

// units splits a function's documentation (description, return value,
// notes) into units.
func units(d spec.Doc) []unit {
	var out []unit
	para := 0
	for _, text := range []string{d.Description, d.ReturnValue, d.Notes} {
		for _, line := range strings.Split(text, "\n") {
			switch {
			case strings.TrimSpace(line) == "":
				para++
			case strings.HasPrefix(line, "\t"):
				out = append(out, unit{para: para, text: line, code: true})
			case strings.HasPrefix(line, "  - "):
				para++
				out = append(out, unit{para: para, text: strings.TrimPrefix(line, "  - "), list: true})
			case strings.HasPrefix(line, "#"):
				para++
			default:
				para++
				idx := sentenceEnd.FindAllStringIndex(line, -1)
				start := 0
				for _, m := range idx {
					out = append(out, unit{para: para, text: line[start:m[0]]})
					start = m[1]
				}
				u := unit{para: para, text: line[start:]}
				u.colon = strings.HasSuffix(strings.TrimSpace(u.text), ":")
				out = append(out, u)
			}
		}
		para++
	}
	return out
}

// window is the text attributed to one parameter: the unit that names it,
// the following units of its paragraph that name no other parameter, and
// the list or code lines a paragraph ending in ':' introduces.
type window struct {
	text   []string
	strong bool // the first unit names no other parameter
}

// names reports whether s names parameter p as a word (not as part of a
// member access or function call).
func names(s, p string) bool {
	re := wordRe(p)
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[1] < len(s) && (s[m[1]] == '(' || s[m[1]] == '_') {
			continue
		}
		if m[0] > 0 && (s[m[0]-1] == '>' || s[m[0]-1] == '.' || s[m[0]-1] == '_') {
			continue
		}
		return true
	}
	return false
}

var wordCache = map[string]*regexp.Regexp{}

func wordRe(p string) *regexp.Regexp {
	re, ok := wordCache[p]
	if !ok {
		re = regexp.MustCompile(`\b` + regexp.QuoteMeta(p) + `\b`)
		wordCache[p] = re
	}
	return re
}

// windows returns the windows of parameter p among params in us.
func windows(us []unit, p string, params []string) []window {
	other := func(u unit) bool {
		for _, q := range params {
			if q != p && names(u.text, q) {
				return true
			}
		}
		return false
	}
	var out []window
	for i, u := range us {
		if u.code || !names(u.text, p) {
			continue
		}
		w := window{text: []string{u.text}, strong: !other(u)}
		j := i + 1
		if !u.list {
			for ; j < len(us) && us[j].para == u.para && !us[j].list && !us[j].code && !other(us[j]); j++ {
				w.text = append(w.text, us[j].text)
			}
			if us[j-1].colon {
				for ; j < len(us) && (us[j].list || us[j].code); j++ {
					w.text = append(w.text, us[j].text)
				}
			}
		}
		out = append(out, w)
	}
	return out
}

var (
	zeroRe    = regexp.MustCompile(`(?i)\b(is|are|be|of) (zero|0)\b`)
	nonZeroRe = regexp.MustCompile(`(?i)\bnon-?zero\b`)
	cIdentRe  = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\b`)
	sameAsRe  = regexp.MustCompile(`\bsame\b.*\b([a-z_][a-z0-9_]*)\(\)`)
)
