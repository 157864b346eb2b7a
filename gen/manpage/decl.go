package manpage

import (
	"regexp"
	"strings"
)

// protoCall matches an identifier directly followed by "(".
var protoCall = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// declLine matches a C prototype at the start of a line: a return type,
// then the function name and "(".
var declLine = regexp.MustCompile(`^\s*(?:(?:const|struct|enum|union|unsigned|signed|static|inline|extern)\s+)*[A-Za-z_][A-Za-z0-9_]*[\s*]+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// Declared returns, in order and without repeats, the functions whose
// prototype starts a line, a paragraph or a list tag anywhere on the page
// outside SYNOPSIS: ibv_create_cq_ex(3) documents ibv_start_poll and the
// ibv_wc_read_* functions this way in its DESCRIPTION.
func (p *Page) Declared() []string {
	seen := map[string]bool{}
	var out []string
	var visit func([]Block)
	visit = func(bs []Block) {
		for _, b := range bs {
			var lines []string
			switch b.Kind {
			case Item:
				lines = []string{b.Term}
			case Para, Pre:
				lines = strings.Split(b.Text, "\n")
			}
			for _, l := range lines {
				if m := declLine.FindStringSubmatch(l); m != nil && !seen[m[1]] {
					seen[m[1]] = true
					out = append(out, m[1])
				}
			}
			visit(b.Body)
		}
	}
	for _, s := range p.Sections {
		if s.Name != "SYNOPSIS" {
			visit(s.Blocks)
		}
	}
	return out
}

// Declaration returns the text that follows fn's prototype in the page
// body (see Declared), as a paragraph block, or nil. "uint32_t
// ibv_wc_read_qp_num(struct ibv_cq_ex *cq); Get the QP number field from the
// current completion." yields "Get the QP number field from the current
// completion."
func (p *Page) Declaration(fn string) *Block {
	var found *Block
	var visit func([]Block)
	visit = func(bs []Block) {
		for _, b := range bs {
			if found != nil {
				return
			}
			if b.Kind == Para {
				if m := declLine.FindStringSubmatchIndex(b.Text); m != nil && b.Text[m[2]:m[3]] == fn {
					rest := b.Text[m[1]:]
					if i := strings.Index(rest, ")"); i >= 0 {
						rest = rest[i+1:]
					}
					rest = strings.TrimLeft(rest, "; \n")
					found = &Block{Kind: Para, Text: strings.Join(strings.Fields(rest), " ")}
					return
				}
			}
			visit(b.Body)
		}
	}
	for _, s := range p.Sections {
		if s.Name != "SYNOPSIS" {
			visit(s.Blocks)
		}
	}
	return found
}

// SynopsisCalls returns, in order and without repeats, every identifier
// directly followed by "(" in the SYNOPSIS section: the declared functions,
// plus whatever else the synopsis shows (callers filter by known names).
func (p *Page) SynopsisCalls() []string {
	s := p.Section("SYNOPSIS")
	if s == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range protoCall.FindAllStringSubmatch(PlainText(s.Blocks), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}
