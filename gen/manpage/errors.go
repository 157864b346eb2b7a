package manpage

import (
	"regexp"
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
	return errnoNames[s] || libCode.MatchString(s)
}

// Errors returns the error codes documented for fn (one of the page
// functions funcs): the entries of the ERRORS section, and code entries
// listed under RETURN VALUE (ionic pages, ibv_rereg_mr), filtered by
// subject. Codes repeated with several meanings are merged, meanings
// joined with "; ". The result is sorted by name.
func (p *Page) Errors(fn string, funcs []string) []spec.Error {
	merged := map[string][]string{}
	add := func(name, meaning string) {
		meaning = strings.TrimSpace(meaning)
		for _, m := range merged[name] {
			if m == meaning {
				return
			}
		}
		if meaning == "" && merged[name] != nil {
			return
		}
		merged[name] = append(merged[name], meaning)
	}
	for _, sec := range []string{"ERRORS", "RETURN VALUE"} {
		s := p.Section(sec)
		if s == nil {
			continue
		}
		for _, b := range BlocksFor(s.Blocks, fn, funcs) {
			collectErrors(b, add)
		}
	}
	// Errno names mentioned in the RETURN VALUE sentences about fn
	// ("errno is set to ENODATA", "An error value of EINVAL indicates").
	if s := p.Section("RETURN VALUE"); s != nil {
		for _, sent := range SentencesFor(s.Blocks, fn, funcs) {
			for _, m := range errnoRef.FindAllString(sent, -1) {
				if errnoNames[m] && merged[m] == nil {
					add(m, sent)
				}
			}
		}
	}
	names := make([]string, 0, len(merged))
	for n := range merged {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]spec.Error, 0, len(names))
	for _, n := range names {
		var ms []string
		for _, m := range merged[n] {
			if m != "" {
				ms = append(ms, m)
			}
		}
		out = append(out, spec.Error{Name: n, Meaning: strings.Join(ms, "; ")})
	}
	return out
}

func collectErrors(b Block, add func(name, meaning string)) {
	switch b.Kind {
	case Item, Subsection:
		// Some tags list several codes: "EINVAL, ENOMEM". A subsection
		// headed by a code (ibv_create_flow(3)) is an entry too.
		term := b.Term
		if b.Kind == Subsection {
			term = b.Text
		}
		var codes []string
		for _, w := range strings.FieldsFunc(term, func(r rune) bool { return r == ',' || r == ' ' || r == '/' }) {
			if IsCode(w) {
				codes = append(codes, w)
			}
		}
		meaning := strings.ReplaceAll(PlainText(b.Body), "\n\n", " ")
		for _, c := range codes {
			add(c, meaning)
		}
	case Bullet:
		text := PlainText(b.Body)
		first, rest, _ := strings.Cut(text, "\n\n")
		if m := codeDash.FindStringSubmatch(first); m != nil && IsCode(m[1]) {
			meaning := m[2]
			if rest != "" {
				meaning = strings.TrimSpace(meaning + " " + strings.ReplaceAll(rest, "\n\n", " "))
			}
			add(m[1], meaning)
		}
	case Para:
		for _, line := range strings.Split(b.Text, "\n") {
			if m := codeDash.FindStringSubmatch(line); m != nil && m[2] != "" && IsCode(m[1]) {
				add(m[1], m[2])
			}
		}
	}
}
