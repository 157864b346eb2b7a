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
}

// apiFunc is one exported function or method about to be emitted.
type apiFunc struct {
	sf   *spec.Function
	fn   *ir.Func // the IR function whose raw wrapper c_<fn.Name> is called
	recv string   // receiver Go type name; empty for a package function
	name string   // Go name of the function or method
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
		if recv, s := e.receiver(fn); recv != "" {
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
	links := map[string]string{}
	for _, a := range fs {
		links[a.sf.Name] = a.name
		if a.recv != "" {
			links[a.sf.Name] = a.recv + "." + a.name
		}
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
	return nil
}

// mayMiss reports whether a call of fn can fail to happen at all: a shim
// whose provider op may be NULL, a function newer than the oldest input, or
// a library that need not be installed.
func (e *Emitter) mayMiss(fn *ir.Func) bool {
	oldest := e.Pkg.Versions[len(e.Pkg.Versions)-1]
	return fn.Inline || HandShims[fn.Name] != "" || !ir.Has(fn.In, oldest) || e.Names.Spec.Release != "" || e.Names.Spec.Name == "ionicdv"
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
	if bo := byteOrderDoc(a.fn); bo != "" {
		b.WriteString("\n\n# Byte order\n\n" + bo)
	}
	b.WriteString("\n\n# Failure\n\n")
	switch {
	case sf.Convention.SetsErrno() || sf.Convention == spec.ZeroOrErrno || sf.Convention == spec.ZeroOrNegErrno || sf.Convention == spec.CountOrNegErrno:
		fmt.Fprintf(&b, "C convention %s (%s): a failure is an *[Error] naming %s that unwraps to the errno, %s.", sf.Convention, sf.Convention.Describe(), sf.Name, errnoExample(sf.Errors))
	case sf.Convention.CanFail():
		fmt.Fprintf(&b, "C convention %s (%s): a failure is an *[Error] naming %s; its cause is unknown (it unwraps to nothing), Code holds the C result.", sf.Convention, sf.Convention.Describe(), sf.Name)
	default:
		fmt.Fprintf(&b, "C convention %s (%s).", sf.Convention, sf.Convention.Describe())
	}
	if miss {
		fmt.Fprintf(&b, " When the installed library lacks it (it needs %s) the error is a *[MissingError], or a *[NilOpError] when the provider does not implement the operation; both unwrap to unix.EOPNOTSUPP.", e.since(a.fn))
	} else {
		fmt.Fprintf(&b, " It panics with a *[MissingError] only when %s itself cannot be loaded.", e.Names.Spec.Lib)
	}
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

// apiFunc emits one exported wrapper.
func (e *Emitter) apiFunc(a apiFunc, links map[string]string) (string, jen.Code, error) {
	fn, sf := a.fn, a.sf
	miss := e.mayMiss(fn)
	var params, args []jen.Code
	names := e.apiParamNames(a)
	for i, p := range fn.Params {
		n := names[i]
		gt, err := e.goParam(p.Type)
		if err != nil {
			return "", nil, err
		}
		args = append(args, jen.Id(n))
		if i == 0 && a.recv != "" {
			continue
		}
		params = append(params, jen.Id(n).Add(gt))
	}
	call := jen.Id("c_" + fn.Name).Call(args...)
	name := jen.Lit(sf.Name)
	ret := fn.Ret
	var rt jen.Code
	if ret.Kind != ir.Void {
		var err error
		if rt, err = e.goParam(ret); err != nil {
			return "", nil, err
		}
	}
	isPtr := ret.Kind == ir.Pointer || ret.Kind == ir.FuncPtr
	// A char * result is a C string: Go gets a copy.
	str := ret.Kind == ir.Pointer && ret.Elem != nil && ret.Elem.Kind == ir.Int && ret.Elem.Size == 1
	if str {
		rt = jen.String()
	}
	val := jen.Id("r")
	if str {
		val = jen.Qual("golang.org/x/sys/unix", "BytePtrToString").Call(jen.Id("r"))
	}
	zero := jen.Nil()
	if str {
		zero = jen.Lit("")
	}
	isInt := ret.Kind == ir.Int || ret.Kind == ir.EnumRef
	var results []jen.Code
	var body []jen.Code
	conv := sf.Convention
	check := naming.Camel(string(conv))
	switch conv {
	case spec.ZeroOrErrno, spec.ZeroOrNegErrno, spec.ZeroOrMinusOne, spec.ZeroOrNegCode, spec.ZeroOrMinusOneErrno:
		if !isInt {
			return "", nil, fmt.Errorf("convention %s on a %s result", conv, ret.C)
		}
		results = []jen.Code{jen.Error()}
		cargs := []jen.Code{name, jen.Int32().Call(jen.Id("r"))}
		if conv.SetsErrno() {
			cargs = append(cargs, jen.Id("errno"))
		}
		body = []jen.Code{
			jen.List(jen.Id("r"), jen.Id(errnoVar(conv)), jen.Id("err")).Op(":=").Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Id("err"))),
			jen.Return(jen.Qual(CErr, check).Call(cargs...)),
		}
	case spec.CountOrMinusOneErrno, spec.CountOrMinusOne, spec.CountOrNegErrno, spec.CountOrNegative:
		if !isInt {
			return "", nil, fmt.Errorf("convention %s on a %s result", conv, ret.C)
		}
		results = []jen.Code{jen.Int(), jen.Error()}
		cargs := []jen.Code{name, jen.Int64().Call(jen.Id("r"))}
		if conv.SetsErrno() {
			cargs = append(cargs, jen.Id("errno"))
		}
		body = []jen.Code{
			jen.List(jen.Id("r"), jen.Id(errnoVar(conv)), jen.Id("err")).Op(":=").Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("err"))),
			jen.If(jen.Id("err").Op(":=").Qual(CErr, check).Call(cargs...), jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("err"))),
			jen.Return(jen.Int().Call(jen.Id("r")), jen.Nil()),
		}
	case spec.PointerOrNullErrno, spec.PointerOrNull:
		if !isPtr {
			return "", nil, fmt.Errorf("convention %s on a %s result", conv, ret.C)
		}
		results = []jen.Code{rt, jen.Error()}
		cargs := []jen.Code{name, jen.Qual("unsafe", "Pointer").Call(jen.Id("r"))}
		if conv.SetsErrno() {
			cargs = append(cargs, jen.Id("errno"))
		}
		body = []jen.Code{
			jen.List(jen.Id("r"), jen.Id(errnoVar(conv)), jen.Id("err")).Op(":=").Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(zero, jen.Id("err"))),
			jen.If(jen.Id("err").Op(":=").Qual(CErr, check).Call(cargs...), jen.Id("err").Op("!=").Nil()).Block(jen.Return(zero, jen.Id("err"))),
			jen.Return(val, jen.Nil()),
		}
	case spec.Value, spec.Undocumented, spec.Void:
		if ret.Kind == ir.Void {
			body = []jen.Code{jen.List(jen.Id("_"), jen.Id("err")).Op(":=").Add(call)}
			if miss {
				results = []jen.Code{jen.Error()}
				body = append(body, jen.Return(jen.Id("err")))
			} else {
				body = append(body, jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Panic(jen.Id("err"))))
			}
			break
		}
		if conv == spec.Void {
			return "", nil, fmt.Errorf("convention void on a %s result", ret.C)
		}
		results = []jen.Code{rt}
		fail := []jen.Code{jen.Panic(jen.Id("err"))}
		if miss {
			results = append(results, jen.Error())
			fail = []jen.Code{jen.Return(zero, jen.Id("err"))}
			if !isPtr && !str {
				fail = []jen.Code{jen.Return(jen.Id("r"), jen.Id("err"))}
			}
		}
		body = []jen.Code{
			jen.List(jen.Id("r"), jen.Id("_"), jen.Id("err")).Op(":=").Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fail...),
		}
		if miss {
			body = append(body, jen.Return(val, jen.Nil()))
		} else {
			body = append(body, jen.Return(val))
		}
	default:
		return "", nil, fmt.Errorf("unknown convention %q", conv)
	}
	decl := jen.Func()
	if a.recv != "" {
		decl = decl.Params(jen.Id(names[0]).Op("*").Id(a.recv))
	}
	decl = decl.Id(a.name).Params(params...)
	switch len(results) {
	case 0:
	case 1:
		decl = decl.Add(results[0])
	default:
		decl = decl.Params(results...)
	}
	return e.apiDoc(a, links, miss), decl.Block(body...), nil
}

// apiParamNames are the Go names of a wrapper's parameters: the receiver's
// is short (naming.Receiver); a parameter that would take it gets "Arg".
func (e *Emitter) apiParamNames(a apiFunc) []string {
	names := make([]string, len(a.fn.Params))
	for i, p := range a.fn.Params {
		names[i] = paramName(p, i)
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

// errnoExample says how to test a failure's errno, with the first errno the
// page documents for the function ("so errors.Is(err, unix.EBUSY) holds for
// a failure with EBUSY"), or a generic one when it documents none.
func errnoExample(errs []spec.Error) string {
	for _, er := range errs {
		if spec.IsErrno(er.Name) {
			return fmt.Sprintf("so errors.Is(err, unix.%s) holds for a failure with %s", er.Name, er.Name)
		}
	}
	return "so errors.Is(err, unix.EINVAL) holds for a failure with EINVAL, and so on for any errno"
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
