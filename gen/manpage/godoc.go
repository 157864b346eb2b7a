package manpage

import "strings"

// GoDoc converts blocks to Go doc-comment text (without the "// "
// prefixes): paragraphs separated by blank lines, preformatted text as
// tab-indented code blocks, tagged and bulleted lists as "  - " list items
// ("  - TERM: text"), subsection headings as "# Heading". Lines are not
// wrapped; gofmt and the generator wrap as they like.
func GoDoc(blocks []Block) string {
	var parts []string
	var list []string
	flushList := func() {
		if len(list) > 0 {
			parts = append(parts, strings.Join(list, "\n"))
			list = nil
		}
	}
	for _, b := range blocks {
		switch b.Kind {
		case Para:
			flushList()
			parts = append(parts, escapeDoc(strings.ReplaceAll(b.Text, "\n", " ")))
		case Pre:
			flushList()
			parts = append(parts, codeBlock(b.Text))
		case Subsection:
			flushList()
			if b.Text != "" {
				parts = append(parts, "# "+strings.TrimPrefix(escapeDoc(b.Text), "#"))
			}
			if body := GoDoc(b.Body); body != "" {
				parts = append(parts, body)
			}
		case Item, Bullet:
			text, code := listText(b.Body)
			item := text
			if b.Kind == Item {
				item = b.Term
				if text != "" {
					item += ": " + text
				}
			}
			if item = strings.TrimSpace(item); item != "" {
				list = append(list, "  - "+escapeDoc(item))
			}
			for _, c := range code {
				flushList()
				parts = append(parts, codeBlock(c))
			}
		}
	}
	flushList()
	return strings.Join(parts, "\n\n")
}

// listText flattens list item content to one line, returning any
// preformatted blocks separately (Go doc lists hold only text).
func listText(blocks []Block) (string, []string) {
	var words []string
	var code []string
	for _, b := range blocks {
		switch b.Kind {
		case Pre:
			code = append(code, b.Text)
		case Item, Bullet, Subsection:
			t, c := listText(b.Body)
			if b.Kind != Bullet {
				t = strings.TrimSpace(b.Term + ": " + t)
			}
			words = append(words, t)
			code = append(code, c...)
		default:
			words = append(words, strings.ReplaceAll(b.Text, "\n", " "))
		}
	}
	return strings.Join(strings.Fields(strings.Join(words, " ")), " "), code
}

// codeBlock indents preformatted text by a tab, dropping trailing white
// space and collapsing runs of blank lines (roff .sp) to one.
func codeBlock(text string) string {
	var out []string
	for _, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			continue
		}
		out = append(out, "\t"+l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// escapeDoc keeps running text from being read as a Go doc heading: an
// unindented paragraph that starts with "# " would become one.
func escapeDoc(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "# ") {
		return "#" + strings.TrimPrefix(s, "# ")
	}
	return s
}
