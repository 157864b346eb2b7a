package manpage

import "strings"

// Page is a parsed manual page.
type Page struct {
	// Title is the page title from the header line, such as "IBV_CREATE_CQ(3)".
	Title string
	// Sections are the page sections in order.
	Sections []Section
}

// Section is one top-level section (.SH) of a page.
type Section struct {
	// Name is the heading with runs of white space folded to one space and
	// upper-cased, so "Name" and "NAME" are the same section.
	Name string
	// Blocks is the section body in order.
	Blocks []Block
}

// BlockKind says what a Block holds.
type BlockKind int

// The block kinds.
const (
	// Para is a paragraph of running text.
	Para BlockKind = iota
	// Pre is preformatted text (code, synopsis), kept line by line.
	Pre
	// Item is one entry of a tagged list (.TP, .IP tag): Term and Body.
	Item
	// Bullet is one entry of a bulleted list: Body.
	Bullet
	// Subsection is a subsection (.SS): Text is its heading, Body its
	// content.
	Subsection
)

// Block is one block of a section body.
type Block struct {
	Kind BlockKind
	// Text is the paragraph text with white space folded (Para), the
	// heading (Subsection), or the preformatted text with its line breaks
	// (Pre).
	Text string
	// Term is the tag of an Item.
	Term string
	// Body is the content of an Item, Bullet or Subsection.
	Body []Block
}

// Section returns the section with the given name (matched case-blind), or
// nil.
func (p *Page) Section(name string) *Section {
	name = normHeading(name)
	for i := range p.Sections {
		if p.Sections[i].Name == name {
			return &p.Sections[i]
		}
	}
	return nil
}

func normHeading(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), " "))
}

// PlainText returns the text of blocks with paragraphs separated by blank
// lines and list items flattened to "term: body".
func PlainText(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		switch b.Kind {
		case Item:
			body := PlainText(b.Body)
			if body == "" {
				parts = append(parts, b.Term)
			} else {
				parts = append(parts, b.Term+": "+body)
			}
		case Bullet:
			parts = append(parts, PlainText(b.Body))
		case Subsection:
			parts = append(parts, b.Text, PlainText(b.Body))
		default:
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(nonEmpty(parts), "\n\n")
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
