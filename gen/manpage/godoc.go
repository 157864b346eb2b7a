package manpage

import (
	"go/doc/comment"
	"strings"
)

// GoDoc converts blocks to Go doc-comment text (without the "// "
// prefixes): paragraphs separated by blank lines, preformatted text as
// tab-indented code blocks, tagged and bulleted lists as "  - " list items
// ("  - TERM: text"), subsections as "# Heading" and their content. Lines
// are not wrapped; gofmt and the generator wrap as they like.
//
// The output is in canonical form (go/doc/comment prints it back
// unchanged). Go doc has no way to put a code block right before or after
// a list (the indented lines would merge), so a list next to a code block
// is written as one paragraph per item.
func GoDoc(blocks []Block) string {
	parts := docParts(blocks)
	var out []string
	for i, p := range parts {
		switch {
		case p.list == nil:
			out = append(out, p.text)
		case i > 0 && parts[i-1].code || i+1 < len(parts) && parts[i+1].code:
			out = append(out, p.list...)
		default:
			out = append(out, "  - "+strings.Join(p.list, "\n  - "))
		}
	}
	return strings.Join(out, "\n\n")
}

// isOldHeading reports whether go/doc/comment would take the one-line
// paragraph t, between two paragraphs, for an old-style (implicit)
// heading.
func isOldHeading(t string) bool {
	if strings.Contains(t, "\n") {
		return false
	}
	var p comment.Parser
	d := p.Parse("P.\n\n" + t + "\n\nP.")
	for _, b := range d.Content {
		if _, ok := b.(*comment.Heading); ok {
			return true
		}
	}
	return false
}

// docPart is one block of Go doc output: a paragraph or heading, a code
// block, or the items of a list.
type docPart struct {
	text string
	code bool
	list []string
}

// docParts converts blocks to a flat sequence of parts; subsections are
// flattened into a heading and their content, and adjacent lists merge.
func docParts(blocks []Block) []docPart {
	var parts []docPart
	addItem := func(item string) {
		if n := len(parts); n > 0 && parts[n-1].list != nil {
			parts[n-1].list = append(parts[n-1].list, item)
			return
		}
		parts = append(parts, docPart{list: []string{item}})
	}
	for _, b := range blocks {
		switch b.Kind {
		case Para:
			t := quotes(escapeDoc(strings.ReplaceAll(b.Text, "\n", " ")))
			if isOldHeading(t) {
				// "None" alone would read as an old-style Go doc heading.
				t += "."
			}
			if t != "" {
				parts = append(parts, docPart{text: t})
			}
		case Pre:
			if c := codeBlock(b.Text); c != "" {
				parts = append(parts, docPart{text: c, code: true})
			}
		case Subsection:
			if h := quotes(strings.TrimPrefix(escapeDoc(b.Text), "#")); h != "" {
				parts = append(parts, docPart{text: "# " + h})
			}
			parts = append(parts, docParts(b.Body)...)
		case Item, Bullet:
			text, code := listText(b.Body)
			item := text
			if b.Kind == Item {
				item = b.Term
				if text != "" {
					item += ": " + text
				}
			}
			if item = quotes(escapeDoc(item)); item != "" {
				addItem(item)
			}
			for _, c := range code {
				if c = codeBlock(c); c != "" {
					parts = append(parts, docPart{text: c, code: true})
				}
			}
		}
	}
	return parts
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

// codeBlock indents preformatted text by a tab after removing the
// indentation its lines share, dropping trailing white space. Listings stay
// compact: the blank lines (roff .sp) between the members of a struct or
// enum go (lines ending in ";", "," or "{"), and one stays after a line that
// closes a declaration ("};") or ends otherwise.
func codeBlock(text string) string {
	var lines []string
	for _, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if n := len(lines); n > 0 && lines[n-1] != "" && keepsBlank(lines[n-1]) {
				lines = append(lines, "")
			}
			continue
		}
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	prefix := commonIndent(lines)
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + strings.TrimPrefix(l, prefix)
		}
	}
	if len(lines) > 0 {
		lines[0] = notListItem(lines[0])
	}
	return strings.Join(lines, "\n")
}

// keepsBlank reports whether a blank line may follow l in a listing: after
// the end of a declaration, not between the members of one.
func keepsBlank(l string) bool {
	t := strings.TrimSpace(l)
	if i := strings.Index(t, "/*"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	return strings.HasPrefix(t, "}") || t == "" || !strings.HasSuffix(t, ",") && !strings.HasSuffix(t, ";") && !strings.HasSuffix(t, "{")
}

// notListItem keeps the first line of a code block from reading as a list item. Go doc
// takes an indented span whose first line starts with a list marker ("*", "+", "-", "•",
// "1." or "1)" and white space) for a list, not code, and has no escape for it: the
// white space after the marker becomes a no-break space (U+00A0), which reads the same
// but is no marker's separator. (A fuzzer find: "<pre>* 0" became a list.)
func notListItem(line string) string {
	rest := strings.TrimLeft(line, " \t")
	ind := line[:len(line)-len(rest)]
	n := 0
	switch {
	case strings.HasPrefix(rest, "•"):
		n = len("•")
	case rest != "" && strings.ContainsRune("*+-", rune(rest[0])):
		n = 1
	default:
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(rest) || rest[n] != '.' && rest[n] != ')' {
			return line
		}
		n++
	}
	if n >= len(rest) || rest[n] != ' ' && rest[n] != '\t' || strings.TrimSpace(rest[n:]) == "" {
		return line
	}
	return ind + rest[:n] + "\u00a0" + rest[n+1:]
}

// commonIndent returns the leading white space all non-empty lines share.
func commonIndent(lines []string) string {
	prefix, first := "", true
	for _, l := range lines {
		if l == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	return prefix
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

// quotes returns running text as go/doc/comment reads it back: it turns doubled
// backquotes and doubled apostrophes (outside URLs and ``` runs) into “ and ”, so text
// holding them was not canonical (a fuzzer find). The parser itself is the judge; text it does not read as one paragraph of plain
// text, links and doc links is returned unchanged.
func quotes(t string) string {
	if !strings.Contains(t, "``") && !strings.Contains(t, "''") {
		return t
	}
	var p comment.Parser
	d := p.Parse(t)
	if len(d.Content) != 1 {
		return t
	}
	para, ok := d.Content[0].(*comment.Paragraph)
	if !ok {
		return t
	}
	var b strings.Builder
	var write func(texts []comment.Text) bool
	write = func(texts []comment.Text) bool {
		for _, x := range texts {
			switch x := x.(type) {
			case comment.Plain:
				b.WriteString(string(x))
			case *comment.Link:
				if !write(x.Text) {
					return false
				}
			case *comment.DocLink:
				b.WriteString("[")
				if !write(x.Text) {
					return false
				}
				b.WriteString("]")
			default:
				return false
			}
		}
		return true
	}
	if !write(para.Text) {
		return t
	}
	return b.String()
}
