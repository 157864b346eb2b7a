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
	// "--" (librpma), an en or em dash.
	nameDash  = regexp.MustCompile(`\s+(?:--|-|–|—)\s+`)
	identRe   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	protoCall = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
)

// notNames are words NAME lines hold that are not function names: "and",
// and C type words that slip in ("int ibv_dealloc_dmah - ..." in
// ibv_alloc_dmah(3)).
var notNames = setOf("and", "or", "int", "void", "struct", "const", "unsigned", "char", "long", "enum")

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
