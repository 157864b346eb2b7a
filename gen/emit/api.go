package emit

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
	"github.com/goverbs/goverbs/gen/spec"
)

// Libraries maps a generated package to the spec library describing its
// functions.
var Libraries = map[string]string{
	"ibv":     spec.LibIBVerbs,
	"rdmacm":  spec.LibRDMACM,
	"ionicdv": spec.LibIonic,
	"rpma":    spec.LibRPMA,
	"efadv":   spec.LibEFA,
	"manadv":  spec.LibMana,
	"hnsdv":   spec.LibHNS,
	"mlx4dv":  spec.LibMlx4,
	"mlx5dv":  spec.LibMlx5,
}

// apiFunc is one exported function or method about to be emitted.
type apiFunc struct {
	sf    *spec.Function
	fn    *ir.Func // the IR function whose raw wrapper c_<fn.Name> is called
	recv  string   // receiver Go type name; empty for a package function
	name  string   // Go name of the function or method
	inOut bool     // the receiver is passed by address (its first parameter is T **)
	// hasErr says whether the binding returns an error: its convention can
	// fail, or the function may be missing at run time.
	hasErr bool
	shape  fshape
}

// SpecFuncs returns the spec's functions of the package's library.
func (e *Emitter) SpecFuncs() []*spec.Function {
	if e.Spec == nil {
		return nil
	}
	lib := Libraries[e.Names.Spec.Name]
	var out []*spec.Function
	for _, f := range e.Spec.Functions() {
		if f.Library == lib {
			out = append(out, f)
		}
	}
	return out
}

// target is the IR function an exported wrapper of sf calls: the function
// itself, or for a macro-renamed one (ibv_query_port ->
// ___ibv_query_port) the exported symbol of the public name, which is
// what the inline ends in; without such a symbol, the implementing
// function.
func (e *Emitter) target(sf *spec.Function) *ir.Func {
	if sf.Impl != "" && HandShims[sf.Impl] != "" {
		return e.irFunc(sf.Impl)
	}
	// A macro naming an inline that adds the caller's record size
	// (mlx5dv_create_flow -> _mlx5dv_create_flow -> __mlx5dv_create_flow
	// with sizeof(struct mlx5dv_flow_action_attr)): the inline, not an
	// older release's symbol of the public name, which takes the older
	// layout.
	if im := e.irFunc(sf.Impl); sf.Impl != "" && im != nil && im.Inline && e.shimmed[im.Name] && im.Body != nil && im.Body.Sized != nil {
		return im
	}
	if f := e.irFunc(sf.Name); f != nil && (sf.Impl == "" || !f.Inline) {
		return f
	}
	if sf.Impl != "" {
		return e.irFunc(sf.Impl)
	}
	return nil
}

func (e *Emitter) irFunc(name string) *ir.Func {
	for _, f := range e.Pkg.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// hasRaw reports whether c_<fn.Name> exists: a trampoline wrapper, a
// generated shim, or a hand-written shim of the package (HandShims).
func (e *Emitter) hasRaw(fn *ir.Func) bool {
	if HandShims[fn.Name] != "" {
		return true
	}
	if fn.Inline {
		return e.shimmed[fn.Name]
	}
	return callable(fn) == ""
}

// plan decides, for every spec function of the package, its Go function
// or method, or why there is none (recorded in e.unbound).
func (e *Emitter) plan() ([]apiFunc, error) {
	taken := map[string]bool{}
	for _, g := range e.Names.Types {
		taken[g] = true
	}
	for _, g := range e.Names.Vals {
		taken[g] = true
	}
	methods := map[string]map[string]bool{}
	var out []apiFunc
	for _, sf := range e.SpecFuncs() {
		fn := e.target(sf)
		if fn == nil {
			return nil, fmt.Errorf("spec function %s: not declared by the headers", sf.Name)
		}
		if Hand[sf.Name] != "" {
			e.unbound[sf.Name] = "bound by hand in " + Hand[sf.Name]
			continue
		}
		if why := Excluded[sf.Name]; why != "" {
			e.unbound[sf.Name] = why
			continue
		}
		if pub := e.implOf(sf.Name); strings.HasPrefix(sf.Name, "_") {
			if pub == "" {
				pub = "its public inline"
			}
			e.unbound[sf.Name] = "implementation of " + pub + " (the header's inline adds the size of the caller's structure); bound only through " + pub
			continue
		}
		if fn.Name == "verbs_get_ctx" {
			e.unbound[sf.Name] = "used inside the generated ctx-op shims (verbsGetCtx); applications reach provider ops through the bindings"
			continue
		}
		if !e.hasRaw(fn) {
			why := callable(fn)
			if fn.Inline {
				shape := "no body"
				if fn.Body != nil {
					shape = string(fn.Body.Shape)
				}
				why = "static inline (" + shape + ") without a generated shim yet"
			}
			e.unbound[sf.Name] = why
			continue
		}
		a := apiFunc{sf: sf, fn: fn, name: sf.GoName}
		a.hasErr = sf.Convention.CanFail() || e.mayMiss(fn)
		recv, s := e.receiver(fn)
		if len(fn.Params) > 0 && len(sf.Params) > 0 {
			for _, p := range sf.Params {
				if p.Name == fn.Params[0].Name && p.Shape == "out" {
					recv, s = "", nil // a record the call fills, not an object (mlx5dv_get_export_sizes)
				}
			}
		}
		if g, ok := e.inOutReceiver(sf, fn); ok {
			recv, a.inOut = g, true
			s = e.Pkg.Struct(fn.Params[0].Type.Elem.Elem.Ref)
		}
		if recv != "" {
			if methods[recv] == nil {
				methods[recv] = e.members(s)
			}
			for _, c := range methodNames(sf.GoName, recv) {
				if !methods[recv][c] {
					methods[recv][c] = true
					a.recv, a.name = recv, c
					break
				}
			}
		}
		if a.recv == "" {
			if taken[a.name] {
				return nil, fmt.Errorf("spec function %s: Go name %s is taken by a type or constant", sf.Name, a.name)
			}
			taken[a.name] = true
		}
		out = append(out, a)
	}
	return out, nil
}

// methodNames are the names a method may take, in order of preference:
// its spec Go name less the receiver's name (see stripReceiver); where that
// is already a member (struct ibv_qp_ex's wr_send is the op ibv_wr_send
// calls), without a leading "WR"; then the spec Go name itself; then "Call"
// and the name.
func methodNames(goName, recv string) []string {
	m := stripReceiver(goName, recv)
	out := []string{m}
	if t := strings.TrimPrefix(m, "WR"); t != m && t != "" && t[0] >= 'A' && t[0] <= 'Z' {
		out = append(out, t)
	}
	if m != goName {
		out = append(out, goName)
	}
	return append(out, "Call"+m)
}

// stripReceiver removes the receiver's name from a method's spec Go name:
// the first run of words equal to the receiver type's words, wherever it is
// (DestroyQP on QP -> Destroy, PostSRQRecv on SRQ -> PostRecv,
// ConnCfgGetCQSize on ConnCfg -> GetCQSize), or at the start a leading part
// of them (MRGetPtr on MRLocal -> GetPtr). The name keeps a word of its own.
func stripReceiver(m, recv string) string {
	mw, rw := naming.GoWords(m), naming.GoWords(recv)
	for i := 0; i+len(rw) <= len(mw); i++ {
		if strings.Join(mw[i:i+len(rw)], "") == recv && len(mw) > len(rw) {
			return strings.Join(append(append([]string(nil), mw[:i]...), mw[i+len(rw):]...), "")
		}
	}
	for k := len(rw) - 1; k > 0; k-- {
		if len(mw) > k && strings.Join(mw[:k], "") == strings.Join(rw[:k], "") {
			return strings.Join(mw[k:], "")
		}
	}
	return m
}

// receiver is the Go type of fn's first parameter when it is a pointer to
// a record of this package.
func (e *Emitter) receiver(fn *ir.Func) (string, *ir.Struct) {
	if len(fn.Params) == 0 {
		return "", nil
	}
	t := fn.Params[0].Type
	if t.Kind != ir.Pointer || t.Elem.Kind != ir.Record {
		return "", nil
	}
	g, ok := e.Names.Types[t.Elem.Ref]
	s := e.Pkg.Struct(t.Elem.Ref)
	if !ok || s == nil || s.Foreign || s.Union {
		return "", nil
	}
	return g, s
}

// members are the Go selectors a struct already has: its member names and
// those promoted from anonymous members (fields or union accessors).
func (e *Emitter) members(s *ir.Struct) map[string]bool {
	m := map[string]bool{}
	var walk func(s *ir.Struct)
	walk = func(s *ir.Struct) {
		anon := 0
		for _, f := range s.Fields {
			if f.Name != "" {
				m[naming.Camel(f.Name)] = true
				continue
			}
			if s.Union {
				m[fmt.Sprintf("Anon%d", anon)] = true
				anon++
			}
			if f.Type.Kind == ir.Record {
				if in := e.Pkg.Struct(f.Type.Ref); in != nil {
					walk(in)
				}
			}
		}
	}
	walk(s)
	return m
}

// api emits zapi.go: the exported function or method of every spec
// function with a raw wrapper, checking the result with the internal/cerr
// check of its spec convention.
func (e *Emitter) api(f *jen.File) error {
	fs, err := e.plan()
	if err != nil {
		return err
	}
	vals, tags := e.enumIndex()
	consts := e.constIndex()
	for i := range fs {
		if fs[i].shape, err = e.shape(fs[i], vals, tags, consts); err != nil {
			return fmt.Errorf("%s: %w", fs[i].sf.Name, err)
		}
	}
	propagate(fs)
	freed := map[string]string{}
	for _, a := range fs {
		if a.shape.free != nil {
			freed[a.shape.free.Name] = a.sf.Name
		}
	}
	kept := fs[:0]
	for _, a := range fs {
		if by := freed[a.fn.Name]; by != "" {
			e.unbound[a.sf.Name] = "the binding of " + by + " returns a list type whose Close calls it"
			continue
		}
		kept = append(kept, a)
	}
	fs = kept
	e.logShapes(fs)
	links := map[string]string{}
	for _, a := range fs {
		links[a.sf.Name] = a.name
		if a.recv != "" {
			links[a.sf.Name] = a.recv + "." + a.name
		}
	}
	if err := e.listTypes(f, fs, links); err != nil {
		return err
	}
	for _, a := range fs {
		doc, code, err := e.apiFunc(a, links)
		if err != nil {
			return fmt.Errorf("%s: %w", a.sf.Name, err)
		}
		for _, l := range strings.Split(doc, "\n") {
			f.Comment(l)
		}
		f.Add(code)
		f.Line()
	}
	return e.guardProvider(f, fs, links)
}

// mayMiss reports whether a call of fn can fail to happen at all: a shim
// whose provider op may be NULL, a function newer than the oldest input, or
// a library that need not be installed.
func (e *Emitter) mayMiss(fn *ir.Func) bool {
	return fn.Inline || HandShims[fn.Name] != "" || e.newer(e.symbolRelease(fn)) || e.Names.Spec.Release != "" || e.Names.Spec.Optional
}

var cCall = regexp.MustCompile(`\b([a-z_][a-z0-9_]*)\(\)`)

// linkify turns "ibv_create_cq()" into a doc link where the function is
// bound in this package.
func linkify(text string, links map[string]string) string {
	return cCall.ReplaceAllStringFunc(text, func(s string) string {
		if g, ok := links[strings.TrimSuffix(s, "()")]; ok {
			return "[" + g + "]"
		}
		return s
	})
}

func (e *Emitter) apiDoc(a apiFunc, links map[string]string, miss bool) string {
	sf := a.sf
	var b strings.Builder
	sum := strings.TrimSuffix(strings.TrimSpace(sf.Doc.Summary), ".")
	if sum == "" {
		sum = "(no manual page documents it)"
	}
	fmt.Fprintf(&b, "%s calls %s (%s): %s.", a.name, sf.Name, sf.Header, sum)
	d := sf.Doc
	d.Summary = ""
	if c := d.Comment(); c != "" {
		b.WriteString("\n\n" + linkify(c, links))
	}
	if g := e.shapeDoc(a); g != "" {
		b.WriteString("\n\n# Go shape\n\n" + g)
	}
	if m := e.memoryDoc(a); m != "" {
		b.WriteString("\n\n# Memory\n\n" + m)
	}
	if len(sf.Errors) > 0 {
		b.WriteString("\n\n# Errors\n")
		for _, er := range sf.Errors {
			line := "\n  - " + er.Name
			if er.Meaning != "" {
				line += ": " + linkify(er.Meaning, links)
			}
			b.WriteString(line)
		}
	}
	if sf.Override != nil && sf.Override.Differs != nil {
		// The contract follows the library's code where it contradicts the page.
		b.WriteString("\n\n# Where the page differs\n\n" + linkify(sf.Override.Differs.Sentence(), links))
	}
	if c := e.crashDoc(sf.Name); c != "" {
		b.WriteString("\n\n# Crashes\n\n" + linkify(c, links))
	}
	if e.Spec != nil && e.Spec.Decided(sf.Name) && sf.Override != nil && sf.Override.Differs == nil {
		// The convention is spec/overrides', not the page's: say why (where the page
		// and the code disagree, "Where the page differs" says it).
		b.WriteString("\n\n# Contract\n\n" + linkify(strings.Join(strings.Fields(sf.Override.Reason), " "), links))
	}
	if g := e.guardDoc(a, links); g != "" {
		b.WriteString("\n\n" + g)
	}
	if m := e.measuredDoc(sf.Name); m != "" {
		b.WriteString("\n\n# Measured on rxe\n\n" + linkify(m, links))
	}
	if bo := byteOrderDoc(a.fn); bo != "" {
		b.WriteString("\n\n# Byte order\n\n" + bo)
	}
	b.WriteString("\n\n" + e.conventionLine(a, miss))
	var refs []string
	for _, r := range sf.SeeAlso {
		if g, ok := links[r.Name]; ok && r.Name != sf.Name {
			refs = append(refs, "["+g+"]")
		} else if r.Name != sf.Name {
			refs = append(refs, r.String())
		}
	}
	if len(refs) > 0 {
		b.WriteString("\n\nSee also " + strings.Join(refs, ", ") + ".")
	}
	return b.String()
}

// conventionLine names the function's C convention (the package doc says
// what each means for the error) and what may be missing at run time.
func (e *Emitter) conventionLine(a apiFunc, miss bool) string {
	s := "Convention " + string(a.sf.Convention) + "."
	if !miss {
		return s
	}
	var parts []string
	fn, sized := a.fn, a.fn.Inline && a.fn.Body != nil && a.fn.Body.Sized != nil
	if sized {
		// The shim calls the function the inline passes the size to: its
		// symbol is what may be missing, and no provider op is read.
		if im := e.Pkg.Func(a.fn.Body.Sized.Func); im != nil {
			fn = im
		}
	}
	switch {
	case e.Names.Spec.Release != "" || e.Names.Spec.Optional:
		parts = append(parts, "It needs "+e.Names.Spec.Lib+" ("+e.since(fn)+"), else the error is a *[MissingError]")
	case e.newer(e.symbolRelease(fn)):
		parts = append(parts, "It needs "+e.since(fn)+" or later, else the error is a *[MissingError]")
	}
	if a.fn.Inline && !sized || HandShims[a.fn.Name] != "" {
		parts = append(parts, "A provider without the operation gives a *[NilOpError]")
	}
	if len(parts) == 0 {
		parts = append(parts, "It may be missing at run time: a *[MissingError]")
	}
	return s + " " + strings.Join(parts, "; ") + " (unix.EOPNOTSUPP)."
}

// apiParamNames are the Go names of a wrapper's parameters: the receiver's
// is short (naming.Receiver); a parameter that would take it gets "Arg".
func (e *Emitter) apiParamNames(a apiFunc) []string {
	names := make([]string, len(a.fn.Params))
	for i, p := range a.fn.Params {
		names[i] = paramName(p, i)
		if i < len(a.shape.params) {
			ps := a.shape.params[i]
			switch {
			case ps.kind == shDuration || ps.kind == shOut && ps.out == shDuration:
				names[i] = strings.TrimSuffix(names[i], "Ms")
			case ps.kind == shOut && strings.HasSuffix(names[i], "Ptr") && len(names[i]) > 3:
				names[i] = strings.TrimSuffix(names[i], "Ptr")
			}
		}
	}
	if a.recv != "" {
		names[0] = naming.Receiver(a.recv)
		for i := 1; i < len(names); i++ {
			if names[i] == names[0] {
				names[i] += "Arg"
			}
		}
	}
	return names
}

func errnoVar(c spec.Convention) string {
	if c.SetsErrno() {
		return "errno"
	}
	return "_"
}

// byteOrderDoc says which of fn's result and parameters are big-endian
// (the __be16/__be32/__be64 typedefs), where a Go caller would otherwise
// read them in the host's order; "" when none is.
func byteOrderDoc(fn *ir.Func) string {
	if fn == nil {
		return ""
	}
	var parts []string
	if strings.HasPrefix(fn.Ret.C, "__be") {
		parts = append(parts, fmt.Sprintf("The result (C: %s) is in network byte order (big-endian), not the host's: use binary.BigEndian on its bytes, or swap it (math/bits.ReverseBytes%s) on a little-endian host.", fn.Ret.C, strings.TrimPrefix(fn.Ret.C, "__be")))
	}
	for _, p := range fn.Params {
		if strings.HasPrefix(p.Type.C, "__be") {
			parts = append(parts, fmt.Sprintf("%s (C: %s) is in network byte order (big-endian).", p.Name, p.Type.C))
		}
	}
	return strings.Join(parts, " ")
}
