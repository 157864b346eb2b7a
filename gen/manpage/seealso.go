package manpage

import (
	"regexp"

	"github.com/goverbs/goverbs/gen/spec"
)

var refRe = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_.\-]*)\s*\(([0-9][a-z]*)\)`)

// SeeAlso returns the page references of the SEE ALSO section in order,
// without repeats.
func (p *Page) SeeAlso() []spec.Ref {
	s := p.Section("SEE ALSO")
	if s == nil {
		return nil
	}
	seen := map[spec.Ref]bool{}
	var out []spec.Ref
	for _, m := range refRe.FindAllStringSubmatch(PlainText(s.Blocks), -1) {
		r := spec.Ref{Name: m[1], Section: m[2]}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
