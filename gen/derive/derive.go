package derive

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/goverbs/goverbs/gen/header"
	"github.com/goverbs/goverbs/gen/manpage"
	"github.com/goverbs/goverbs/gen/spec"
)

// Problem is a documented function whose page could not be classified and
// that no override covers.
type Problem struct {
	Function string
	Page     string
	Why      string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s (%s): %s", p.Function, p.Page, p.Why)
}

// Report is what a derivation found besides the spec itself.
type Report struct {
	// Unclassified lists the documented functions that need an override.
	// The derivation is complete only when it is empty.
	Unclassified []Problem
	// Orphans are names listed by a page's NAME section that no in-scope
	// header declares ("ibv_flow_action_esp", misspelled or renamed).
	Orphans []string
	// Overridden lists the functions an override decided.
	Overridden []string
	// Redundant lists the overrides ("pos: function") whose function the
	// page now classifies by itself to the same convention: candidates for
	// removal after an input update.
	Redundant []string
}

// Derive builds one spec.File per library from the inputs, applying the
// overrides. It fails on unreadable inputs and on overrides for functions
// no header declares.
func Derive(in Inputs, overrides []spec.OverrideEntry) ([]*spec.File, *Report, error) {
	ovByName := map[string]*spec.OverrideEntry{}
	for i := range overrides {
		ovByName[overrides[i].Function] = &overrides[i]
	}
	used := map[string]bool{}
	rep := &Report{}
	var files []*spec.File
	for _, src := range in.Sources() {
		f, err := deriveLibrary(src, ovByName, used, rep)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	for _, o := range overrides {
		if !used[o.Function] {
			return nil, nil, fmt.Errorf("%s: override for unknown function %q (not declared by any in-scope header)", o.Pos, o.Function)
		}
	}
	sort.Slice(rep.Unclassified, func(i, j int) bool { return rep.Unclassified[i].Function < rep.Unclassified[j].Function })
	sort.Strings(rep.Orphans)
	sort.Strings(rep.Overridden)
	sort.Strings(rep.Redundant)
	return files, rep, nil
}

func deriveLibrary(src Source, ovs map[string]*spec.OverrideEntry, used map[string]bool, rep *Report) (*spec.File, error) {
	var funcs []header.Func
	for _, h := range src.Headers {
		fs, err := header.List(src.Include, h, src.ExtraIncludes...)
		if err != nil {
			return nil, fmt.Errorf("derive: %s: %w (run make inputs)", src.Library, err)
		}
		funcs = append(funcs, fs...)
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Name < funcs[j].Name })
	known := map[string]bool{}
	for _, f := range funcs {
		known[f.Name] = true
	}
	ps, err := readPages(src.ManDir, src.Prefixes, known)
	if err != nil {
		return nil, err
	}
	for _, p := range ps.pages {
		for _, n := range p.NameFuncs {
			if !known[n] {
				rep.Orphans = append(rep.Orphans, fmt.Sprintf("%s (%s)", n, p.Name))
			}
		}
	}
	out := &spec.File{Library: src.Library}
	goNames := map[string]string{}
	for _, hf := range funcs {
		fn, prob := deriveFunction(src, hf, ps.pageFor(hf.Name))
		if o := ovs[hf.Name]; o != nil {
			if prob == nil && len(o.Params) == 0 && (o.Convention == "" || o.Convention == fn.Convention) && o.Errors == nil && o.Differs == nil {
				rep.Redundant = append(rep.Redundant, o.Pos+": "+hf.Name)
			}
			o.Apply(&fn)
			used[hf.Name] = true
			rep.Overridden = append(rep.Overridden, hf.Name)
		} else if prob != nil {
			rep.Unclassified = append(rep.Unclassified, *prob)
		}
		if prev, dup := goNames[fn.GoName]; dup {
			return nil, fmt.Errorf("derive: %s: Go name %s of %s collides with %s", src.Library, fn.GoName, fn.Name, prev)
		}
		goNames[fn.GoName] = fn.Name
		out.Functions = append(out.Functions, fn)
	}
	return out, nil
}

// deriveFunction derives one function's entry from its page (nil when
// undocumented). A non-nil Problem says the page could not be classified;
// the entry then carries Convention Undocumented until overridden.
func deriveFunction(src Source, hf header.Func, p *page) (spec.Function, *Problem) {
	fn := spec.Function{
		Name:   hf.Name,
		Header: hf.Header,
		Inline: hf.Inline && !hf.Extern,
		Impl:   hf.Impl,
		GoName: GoName(hf.Name, src.GoPrefix),
	}
	res := manpage.ResultInt
	switch {
	case hf.Void:
		res = manpage.ResultVoid
	case hf.Pointer:
		res = manpage.ResultPointer
	}
	if p == nil {
		fn.Convention = spec.Undocumented
		if res == manpage.ResultVoid {
			fn.Convention = spec.Void
		}
		return fn, nil
	}
	fn.Documented = true
	fn.Page = p.Name
	mp := p.Page
	var rv []manpage.Block
	if s := mp.Section("RETURN VALUE"); s != nil {
		rv = s.Blocks
	}
	var prob *Problem
	sentences := manpage.SentencesFor(rv, hf.Name, p.Funcs)
	decl := (*manpage.Block)(nil)
	if !slices.Contains(p.NameFuncs, hf.Name) && !slices.Contains(p.Synopsis, hf.Name) {
		// Documented only by a prototype in the page body: that paragraph
		// is its description and, when RETURN VALUE is silent, its
		// return statement.
		decl = mp.Declaration(hf.Name)
	}
	if len(sentences) == 0 {
		// Some pages state a contract under NOTES instead
		// (ibv_create_ah(3) on ibv_destroy_ah): take the sentences there
		// that name the function and say what it returns.
		if s := mp.Section("NOTES"); s != nil {
			for _, sent := range manpage.SentencesFor(s.Blocks, hf.Name, p.Funcs) {
				if strings.Contains(sent, hf.Name) && strings.Contains(strings.ToLower(sent), "return") {
					sentences = append(sentences, sent)
				}
			}
		}
	}
	if len(sentences) == 0 && decl != nil {
		sentences = manpage.Sentences(decl.Text)
	}
	c, err := manpage.Classify(sentences, res)
	if err != nil {
		var u *manpage.Unclassified
		why := err.Error()
		if errors.As(err, &u) {
			why = u.Why
		}
		if mp.Section("RETURN VALUE") == nil && res != manpage.ResultVoid {
			why = "the page has no RETURN VALUE section"
		}
		prob = &Problem{Function: hf.Name, Page: p.Name, Why: why}
		c = manpage.Contract{Convention: spec.Undocumented}
	}
	fn.Convention, fn.Success = c.Convention, c.Success
	if fn.Convention.CanFail() || prob != nil {
		fn.Errors = mp.Errors(hf.Name, p.Funcs)
	}
	fn.Doc = spec.Doc{
		Summary:     summary(mp, hf.Name),
		Description: description(mp, hf.Name, p.Funcs),
		ReturnValue: sectionDoc(mp, "RETURN VALUE", hf.Name, p.Funcs),
		Notes:       joinDoc(sectionDoc(mp, "NOTES", hf.Name, p.Funcs), sectionDoc(mp, "NOTE", hf.Name, p.Funcs)),
	}
	if decl != nil {
		fn.Doc.Description = manpage.GoDoc([]manpage.Block{*decl})
		if s := manpage.Sentences(decl.Text); len(s) > 0 && !named(mp, hf.Name) {
			// The NAME summary is about the page's own functions.
			fn.Doc.Summary = s[0]
		}
	}
	fn.SeeAlso = mp.SeeAlso()
	return fn, prob
}
