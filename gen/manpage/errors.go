package manpage

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
)

var (
	// libCode matches library error codes: RPMA_E_*, IBV_*_ERR_*, EAI_*.
	libCode = regexp.MustCompile(`^(?:RPMA_E_[A-Z0-9_]+|IBV_[A-Z0-9_]*ERR_[A-Z0-9_]+|EAI_[A-Z0-9_]+)$`)
	// codeDash matches "CODE - meaning" at the start of a paragraph.
	codeDash = regexp.MustCompile(`^([A-Z][A-Z0-9_]+)(?:\s+(?:-|–|—)\s+(.*)|\s*$)`)
	errnoRef = regexp.MustCompile(`\bE[A-Z0-9]{2,}\b`)
)

// IsCode reports whether s names an error code: a Linux errno name or a
// library error code.
func IsCode(s string) bool {
	return spec.IsErrno(s) || libCode.MatchString(s)
}

// Errors returns the error codes documented for fn (one of the page
// functions funcs): the entries of the ERRORS section, and code entries
// listed under RETURN VALUE (ionic pages, ibv_rereg_mr), filtered by
// subject. An entry whose meaning is empty or ends in ":" ("RPMA_E_INVAL -
// in one of the following:") takes the plain list items after it as its
// meaning. Codes repeated with several meanings are merged, meanings joined
// with "; ". The result is sorted by name.
func (p *Page) Errors(fn string, funcs []string) []spec.Error {
	var entries []spec.Error
	for _, sec := range []string{"ERRORS", "RETURN VALUE"} {
		s := p.Section(sec)
		if s == nil {
			continue
		}
		entries = append(entries, errorEntries(BlocksFor(s.Blocks, fn, funcs))...)
	}
	// Errno names mentioned in the RETURN VALUE sentences about fn
	// ("errno is set to ENODATA", "An error value of EINVAL indicates").
	if s := p.Section("RETURN VALUE"); s != nil {
		listed := map[string]bool{}
		for _, e := range entries {
			listed[e.Name] = true
		}
		for _, sent := range SentencesFor(s.Blocks, fn, funcs) {
			for _, m := range errnoRef.FindAllString(sent, -1) {
				if spec.IsErrno(m) && !listed[m] {
					listed[m] = true
					entries = append(entries, spec.Error{Name: m, Meaning: sent})
				}
			}
		}
	}
	return mergeErrors(entries)
}

// errorEntries returns the error entries of blocks in order, with the
// continuation lists folded into the entry they continue.
func errorEntries(blocks []Block) []spec.Error {
	var out []spec.Error
	open := -1 // the entry that takes following list items as its meaning
	for _, b := range blocks {
		if es := blockErrors(b); len(es) > 0 {
			out = append(out, es...)
			open = -1
			if last := es[len(es)-1].Meaning; last == "" || strings.HasSuffix(last, ":") {
				open = len(out) - 1
			}
			continue
		}
		if open >= 0 && (b.Kind == Bullet || b.Kind == Item) {
			text, _ := listText([]Block{b})
			m := out[open].Meaning
			switch {
			case m == "":
				m = text
			case strings.HasSuffix(m, ":"):
				m += " " + text
			default:
				m += "; " + text
			}
			out[open].Meaning = m
			continue
		}
		open = -1
	}
	return out
}

// blockErrors returns the error entries one block states.
func blockErrors(b Block) []spec.Error {
	switch b.Kind {
	case Item, Subsection:
		// Some tags list several codes: "EINVAL, ENOMEM". A subsection
		// headed by a code (ibv_create_flow(3)) is an entry too.
		term := b.Term
		if b.Kind == Subsection {
			term = b.Text
		}
		meaning := strings.ReplaceAll(PlainText(b.Body), "\n\n", " ")
		var out []spec.Error
		for _, w := range strings.FieldsFunc(term, func(r rune) bool { return r == ',' || r == ' ' || r == '/' }) {
			if IsCode(w) {
				out = append(out, spec.Error{Name: w, Meaning: meaning})
			}
		}
		if len(out) == 0 && b.Kind == Item {
			// A bullet written as a tagged paragraph ("\(bu" tag).
			return codeDashEntry(PlainText(b.Body))
		}
		return out
	case Bullet:
		return codeDashEntry(PlainText(b.Body))
	case Para:
		var out []spec.Error
		for _, line := range strings.Split(b.Text, "\n") {
			if m := codeDash.FindStringSubmatch(line); m != nil && m[2] != "" && IsCode(m[1]) {
				out = append(out, spec.Error{Name: m[1], Meaning: strings.TrimSpace(m[2])})
			}
		}
		return out
	}
	return nil
}

// codeDashEntry reads "CODE - meaning" (or a bare "CODE") at the start of a
// list item's text; further paragraphs of the item extend the meaning.
func codeDashEntry(text string) []spec.Error {
	first, rest, _ := strings.Cut(text, "\n\n")
	m := codeDash.FindStringSubmatch(first)
	if m == nil || !IsCode(m[1]) {
		return nil
	}
	meaning := strings.TrimSpace(m[2])
	if rest != "" {
		meaning = strings.TrimSpace(meaning + " " + strings.ReplaceAll(rest, "\n\n", " "))
	}
	return []spec.Error{{Name: m[1], Meaning: meaning}}
}

// mergeErrors merges entries by name, keeping each distinct meaning once
// (in page order, joined with "; "), and sorts them by name.
func mergeErrors(entries []spec.Error) []spec.Error {
	meanings := map[string][]string{}
	for _, e := range entries {
		ms := meanings[e.Name]
		if ms == nil {
			ms = []string{}
		}
		if e.Meaning != "" && !slices.Contains(ms, e.Meaning) {
			ms = append(ms, e.Meaning)
		}
		meanings[e.Name] = ms
	}
	names := make([]string, 0, len(meanings))
	for n := range meanings {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]spec.Error, 0, len(names))
	for _, n := range names {
		out = append(out, spec.Error{Name: n, Meaning: strings.Join(meanings[n], "; ")})
	}
	return out
}
