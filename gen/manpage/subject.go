package manpage

import (
	"regexp"
	"slices"
	"strings"
)

// A page that documents several functions (an alias page) talks about one
// of them at a time. The subject of a block or sentence is the set of the
// page's functions it names; a block or sentence that names none keeps the
// subject of the one before it, and the subject at the start of a section
// is every function of the page.

// named returns the page functions (from funcs) that text names as whole
// words, in the order of funcs.
func named(text string, funcs []string) []string {
	var out []string
	for _, f := range funcs {
		if mentions(text, f) {
			out = append(out, f)
		}
	}
	return out
}

// mentions reports whether text holds name as a whole identifier.
func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isIdent(text[j-1])) && (end == len(text) || !isIdent(text[end])) {
			return true
		}
		i = j + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// BlocksFor returns the blocks of a section that concern fn, one of the
// page functions funcs.
func BlocksFor(blocks []Block, fn string, funcs []string) []Block {
	subject := funcs
	var out []Block
	for _, b := range blocks {
		text := PlainText([]Block{b})
		if b.Kind == Item {
			text = b.Term + " " + text
		}
		// A subsection is one block: its heading and body share a subject.
		if b.Kind == Subsection {
			text = b.Text + " " + text
		}
		if n := named(text, funcs); len(n) > 0 {
			subject = n
		} else if b.Kind == Subsection {
			// A new subsection is a new topic: without a name it is
			// about the whole page again.
			subject = funcs
		}
		if slices.Contains(subject, fn) {
			out = append(out, b)
		}
	}
	return out
}

// SentencesFor returns the sentences of blocks that concern fn, applying
// the subject rule sentence by sentence.
func SentencesFor(blocks []Block, fn string, funcs []string) []string {
	subject := funcs
	var out []string
	for _, s := range Sentences(PlainText(blocks)) {
		if n := named(s, funcs); len(n) > 0 {
			subject = n
		}
		if slices.Contains(subject, fn) {
			out = append(out, s)
		}
	}
	return out
}

// sentenceEnd matches the end of a sentence: a period, colon or semicolon
// ending a word, then white space and an upper-case letter, a digit or a
// function name. "e.g." and "i.e." are not ends.
var sentenceEnd = regexp.MustCompile(`[.:;]\s+`)

// Sentences splits text into sentences. Paragraph breaks always end one.
func Sentences(text string) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		para = strings.TrimSpace(para)
		start := 0
		for _, loc := range sentenceEnd.FindAllStringIndex(para, -1) {
			before := para[start:loc[0]]
			if strings.HasSuffix(before, "e.g") || strings.HasSuffix(before, "i.e") || strings.HasSuffix(before, "etc") {
				continue
			}
			if s := strings.TrimSpace(para[start:loc[1]]); s != "" {
				out = append(out, s)
			}
			start = loc[1]
		}
		if s := strings.TrimSpace(para[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
