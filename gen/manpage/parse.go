package manpage

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ErrNoSections is returned by Parse for input without any page section.
var ErrNoSections = errors.New("manpage: no sections (not mandoc -T html output?)")

// Parse reads the HTML fragment mandoc renders for a man page (see Render)
// and returns its sections. It fails only when the input holds no section.
func Parse(src []byte) (*Page, error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("manpage: parse html: %w", err)
	}
	p := &Page{}
	walk(doc, func(n *html.Node) bool {
		switch {
		case n.DataAtom == atom.Td && hasClass(n, "head-ltitle") && p.Title == "":
			p.Title = foldSpace(textOf(n))
			return false
		case n.DataAtom == atom.Section && hasClass(n, "Sh"):
			p.Sections = append(p.Sections, section(n))
			return false
		}
		return true
	})
	if len(p.Sections) == 0 {
		return nil, ErrNoSections
	}
	return p, nil
}

// walk calls f on n and its descendants in document order, skipping the
// children of a node for which f returns false.
func walk(n *html.Node, f func(*html.Node) bool) {
	if !f(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if c == class {
					return true
				}
			}
		}
	}
	return false
}

func section(n *html.Node) Section {
	var s Section
	var body []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.H1 && s.Name == "" {
			s.Name = normHeading(textOf(c))
			continue
		}
		body = append(body, c)
	}
	s.Blocks = blocks(body)
	return s
}

func children(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, c)
	}
	return out
}

// blocks converts a run of sibling nodes to blocks. Inline content between
// block elements becomes a paragraph of its own.
func blocks(nodes []*html.Node) []Block {
	var out []Block
	var inline strings.Builder
	flush := func() {
		if t := foldLines(inline.String()); t != "" {
			out = append(out, Block{Kind: Para, Text: t})
		}
		inline.Reset()
	}
	for _, n := range nodes {
		if n.Type == html.TextNode {
			inline.WriteString(n.Data)
			continue
		}
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.P:
			flush()
			if t := foldLines(textOf(n)); t != "" {
				out = append(out, Block{Kind: Para, Text: t})
			}
		case atom.Pre:
			flush()
			if t := strings.Trim(preText(n), "\n"); strings.TrimSpace(t) != "" {
				out = append(out, Block{Kind: Pre, Text: t})
			}
		case atom.Dl:
			flush()
			out = append(out, items(n)...)
		case atom.Ul, atom.Ol:
			flush()
			for _, li := range children(n) {
				if li.DataAtom == atom.Li {
					out = append(out, Block{Kind: Bullet, Body: blocks(children(li))})
				}
			}
		case atom.H1, atom.H2, atom.H3:
			flush()
			if t := foldSpace(textOf(n)); t != "" {
				out = append(out, Block{Kind: Subsection, Text: t})
			}
		case atom.Section:
			flush()
			out = append(out, subsection(n))
		case atom.Div:
			flush()
			out = append(out, blocks(children(n))...)
		case atom.Table:
			flush()
			if t := tableText(n); t != "" {
				out = append(out, Block{Kind: Pre, Text: t})
			}
		default:
			inline.WriteString(textOf(n))
		}
	}
	flush()
	return out
}

// subsection converts a <section class="Ss">: its heading and the blocks
// after it.
func subsection(n *html.Node) Block {
	b := Block{Kind: Subsection}
	var body []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if (c.DataAtom == atom.H2 || c.DataAtom == atom.H3) && b.Text == "" {
			b.Text = foldSpace(textOf(c))
			continue
		}
		body = append(body, c)
	}
	b.Body = blocks(body)
	return b
}

// items converts a <dl> to Item blocks; a <dd> without a <dt> extends the
// previous item.
func items(dl *html.Node) []Block {
	var out []Block
	for _, c := range children(dl) {
		switch c.DataAtom {
		case atom.Dt:
			out = append(out, Block{Kind: Item, Term: foldSpace(textOf(c))})
		case atom.Dd:
			body := blocks(children(c))
			if len(out) == 0 {
				out = append(out, Block{Kind: Item})
			}
			out[len(out)-1].Body = append(out[len(out)-1].Body, body...)
		}
	}
	return out
}

func tableText(t *html.Node) string {
	var rows []string
	walk(t, func(n *html.Node) bool {
		if n.DataAtom != atom.Tr {
			return true
		}
		var cells []string
		for _, c := range children(n) {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				cells = append(cells, foldSpace(textOf(c)))
			}
		}
		if len(cells) > 0 {
			rows = append(rows, strings.Join(cells, " | "))
		}
		return false
	})
	return strings.Join(rows, "\n")
}

// brMarker stands for <br> in paragraph text until foldLines splits on it.
// NUL cannot occur in text html.Parse returns (it becomes U+FFFD).
const brMarker = "\x00"

// textOf returns the text content of n with <br> as brMarker.
func textOf(n *html.Node) string { return textBr(n, brMarker) }

// preText returns the text content of n with <br> as a line break.
func preText(n *html.Node) string { return textBr(n, "\n") }

func textBr(n *html.Node, br string) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		switch {
		case c.Type == html.TextNode:
			b.WriteString(c.Data)
		case c.DataAtom == atom.Br:
			b.WriteString(br)
		}
		return true
	})
	return b.String()
}

// foldSpace folds every run of white space, line breaks included, to one
// space and trims the ends.
func foldSpace(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, brMarker, " ")), " ")
}

// foldLines folds white space within each line, drops empty lines and
// joins the rest with "\n". Lines end only at brMarker (a <br>); the line
// breaks mandoc writes inside a paragraph are plain white space.
func foldLines(s string) string {
	var lines []string
	for _, l := range strings.Split(s, brMarker) {
		if t := foldSpace(l); t != "" {
			lines = append(lines, t)
		}
	}
	return strings.Join(lines, "\n")
}
