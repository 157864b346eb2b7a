package manpage

import (
	"errors"
	"go/doc/comment"
	"sort"
	"strings"
	"testing"
)

// FuzzParse feeds the man-page reader arbitrary HTML. Seeds: the fragment
// above and, in testdata/fuzz/FuzzParse, sections of real pages as mandoc
// renders them. The reader must not panic, and what it returns must keep
// its invariants.
func FuzzParse(f *testing.F) {
	f.Add([]byte(fragment))
	f.Add([]byte(`<section class="Sh"><h1>RETURN VALUE</h1><p>x</p></section>`))
	f.Add([]byte(`<section class="Sh"><h1>NAME</h1><dl><dd><dt>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrNoSections) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if len(p.Sections) == 0 {
			t.Fatal("Parse succeeded without sections")
		}
		var funcs []string
		var parser comment.Parser
		var printer comment.Printer
		for _, s := range p.Sections {
			if s.Name != normHeading(s.Name) {
				t.Fatalf("section name %q not normalized", s.Name)
			}
			doc := GoDoc(s.Blocks)
			if strings.Contains(doc, brMarker) {
				t.Fatalf("line-break marker leaked into %s", s.Name)
			}
			if doc != "" {
				text := "Summary.\n\n" + doc
				if got := strings.TrimSuffix(string(printer.Comment(parser.Parse(text))), "\n"); got != text {
					t.Fatalf("GoDoc of %s not canonical:\n%q\nprints as\n%q", s.Name, text, got)
				}
			}
		}
		for _, e := range p.Names() {
			if len(e.Names) == 0 {
				t.Fatal("NAME entry without names")
			}
			for _, n := range e.Names {
				if !identRe.MatchString(n) {
					t.Fatalf("NAME gave non-identifier %q", n)
				}
			}
			funcs = append(funcs, e.Names...)
		}
		funcs = append(funcs, p.SynopsisCalls()...)
		funcs = append(funcs, p.Declared()...)
		for _, fn := range funcs {
			errs := p.Errors(fn, funcs)
			if !sort.SliceIsSorted(errs, func(i, j int) bool { return errs[i].Name < errs[j].Name }) {
				t.Fatalf("errors of %s not sorted", fn)
			}
			for i := 1; i < len(errs); i++ {
				if errs[i].Name == errs[i-1].Name {
					t.Fatalf("error %s repeated", errs[i].Name)
				}
			}
			if s := p.Section("RETURN VALUE"); s != nil {
				_, _ = Classify(SentencesFor(s.Blocks, fn, funcs), ResultInt)
			}
			_ = p.Declaration(fn)
		}
		_ = p.SeeAlso()
	})
}
