package emit

import (
	"fmt"
	"go/token"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
)

// DL is the import path of the run-time symbol loader.
const DL = Module + "/internal/dl"

// reserved are identifiers the raw wrappers use themselves.
var reserved = map[string]bool{"r": true, "errno": true, "err": true, "fn": true, "cr": true, "cerr": true, "lib": true, "zctx": true, "zvctx": true}

// callable reports why f cannot get a trampoline, or "".
func callable(f *ir.Func) string {
	if f.Inline {
		return "static inline: needs a generated shim"
	}
	if f.Variadic {
		return "variadic"
	}
	for _, t := range append([]ir.Type{f.Ret}, paramTypes(f)...) {
		if t.Kind == ir.Record {
			return "passes a struct by value"
		}
	}
	return ""
}

func paramTypes(f *ir.Func) []ir.Type {
	r := make([]ir.Type, len(f.Params))
	for i, p := range f.Params {
		r[i] = p.Type
	}
	return r
}

// cScalar spells a parameter or result type for a trampoline: pointers of
// any kind are void *, enums their integer type; no rdma-core type appears.
func cScalar(t ir.Type) (string, error) {
	switch t.Kind {
	case ir.Void:
		return "void", nil
	case ir.Pointer, ir.FuncPtr, ir.Array:
		return "void *", nil
	case ir.Bool:
		return "bool", nil
	case ir.Float:
		if t.Size == 4 {
			return "float", nil
		}
		return "double", nil
	case ir.Int, ir.EnumRef:
		s, err := intName(t.Size, t.Signed)
		return s + "_t", err
	}
	return "", fmt.Errorf("no trampoline type for %s", t.C)
}

// since is the release that introduced f, as errors name it.
func (e *Emitter) since(f *ir.Func) string {
	if e.Names.Spec.Release != "" {
		return e.Names.Spec.Release
	}
	return "rdma-core " + string(e.symbolRelease(f))
}

// funcs emits zfuncs.go: the library, one dl.Symbol per extern function,
// a C trampoline calling it through its address, and an unexported Go
// function c_<name> converting arguments and returning the raw C result
// with errno. The exported API, with the spec's error conventions, is
// built on these.
func (e *Emitter) funcs(f *jen.File) error {
	var pre strings.Builder
	pre.WriteString("#include <stdbool.h>\n#include <stdint.h>\n")
	var syms, skipped []jen.Code
	var bodies []jen.Code
	ctxShims := false
	// The shims of the data path (spec/fastpath) are declared noescape and
	// nocallback, as its trampolines are: the provider keeps no pointer
	// past the call and calls no Go, and the arguments and out-parameters
	// of the checked bindings need not escape (ibv_post_send's bad_wr
	// allocated once per call).
	fast := map[string]bool{}
	if e.Spec != nil {
		for _, n := range e.Spec.FastPath(Libraries[e.Names.Spec.Name]) {
			fast[n] = true
		}
	}
	var decl strings.Builder
	for _, fn := range e.Pkg.Funcs {
		if fn.Inline {
			c, b, err := e.forwardShim(fn)
			if err == nil && c == "" {
				c, b, err = e.ctxShim(fn)
				ctxShims = ctxShims || c != ""
			}
			sized := false
			if err == nil && c == "" {
				b, err = e.sizedShim(fn)
				sized = b != nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", fn.Name, err)
			}
			e.shimmed[fn.Name] = c != "" || sized
			if c != "" && fast[fn.Name] {
				fmt.Fprintf(&decl, "#cgo noescape zshim_%s\n#cgo nocallback zshim_%s\n", fn.Name, fn.Name)
			}
			pre.WriteString(c)
			bodies = append(bodies, b...)
			continue
		}
		if why := callable(fn); why != "" {
			if !fn.Inline {
				skipped = append(skipped, jen.Comment(fmt.Sprintf("  %s: %s", fn.Name, why)))
			}
			continue
		}
		c, err := e.trampoline(fn)
		if err != nil {
			return fmt.Errorf("%s: %w", fn.Name, err)
		}
		pre.WriteString(c)
		syms = append(syms,
			jen.Comment(fmt.Sprintf("sym_%s resolves %s (%s).", fn.Name, fn.Name, fn.File)),
			jen.Id("sym_"+fn.Name).Op("=").Op("&").Qual(DL, "Symbol").Values(jen.Dict{
				jen.Id("Lib"): jen.Id("lib"), jen.Id("Name"): jen.Lit(fn.Name), jen.Id("Since"): jen.Lit(e.since(fn)),
			}))
		b, err := e.rawCall(fn)
		if err != nil {
			return fmt.Errorf("%s: %w", fn.Name, err)
		}
		bodies = append(bodies, b...)
	}
	f.HeaderComment(cgoBuild)
	f.CgoPreamble(decl.String() + pre.String())
	// The library, its symbols and Load/Release build everywhere (zlib.go);
	// the calls, here, on Linux with cgo, and as stubs elsewhere
	// (zfuncs_other.go).
	lib := e.file()
	lib.Comment(fmt.Sprintf("lib is %s, opened on first use.", e.Names.Spec.Lib))
	lib.Var().Id("lib").Op("=").Qual(DL, "NewLib").Call(jen.Lit(e.Names.Spec.Lib))
	lib.Line()
	e.load(lib)
	if len(syms) > 0 {
		lib.Var().Defs(syms...)
		lib.Line()
	}
	if len(skipped) > 0 {
		lib.Comment("Extern functions without a trampoline:")
		lib.Comment("")
		for _, s := range skipped {
			lib.Add(s)
		}
		lib.Line()
	}
	e.libFile = lib
	// The hand-written raw wrappers (HandShims) call C too: their stubs.
	for _, name := range sortedKeys(HandShims) {
		if fn := e.Pkg.Func(name); fn != nil && strings.HasPrefix(HandShims[name], e.Names.Spec.Name+"/") {
			if err := e.stub(fn); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	if ctxShims {
		e.verbsGetCtx(f)
		e.shimmed["verbs_get_ctx"] = true
	}
	for _, b := range bodies {
		f.Add(b)
	}
	return nil
}

// paramName is the Go name of parameter i.
func paramName(p ir.Param, i int) string {
	n := p.Name
	if n == "" {
		return fmt.Sprintf("a%d", i)
	}
	words := strings.SplitN(strings.TrimLeft(n, "_"), "_", 2)
	n = strings.ToLower(words[0])
	if len(words) == 2 && words[1] != "" {
		n += naming.Camel(words[1])
	}
	if token.IsKeyword(n) || reserved[n] {
		n += "_"
	}
	return n
}

func (e *Emitter) trampoline(fn *ir.Func) (string, error) {
	return trampoline("zcall_"+fn.Name, fn)
}

// trampoline is the C function name(fn, args...) calling fn with the
// parameter and result types of f.
func trampoline(name string, fn *ir.Func) (string, error) {
	ret, err := cScalar(fn.Ret)
	if err != nil {
		return "", err
	}
	var params, types, args []string
	for i, p := range fn.Params {
		t, err := cScalar(p.Type)
		if err != nil {
			return "", err
		}
		params = append(params, fmt.Sprintf("%s a%d", t, i))
		types = append(types, t)
		args = append(args, fmt.Sprintf("a%d", i))
	}
	if len(types) == 0 {
		types = []string{"void"}
	}
	call := fmt.Sprintf("((%s (*)(%s))fn)(%s)", ret, strings.Join(types, ", "), strings.Join(args, ", "))
	if ret != "void" {
		call = "return " + call
	}
	return fmt.Sprintf("static %s %s(%s) { %s; }\n", ret, name, strings.Join(append([]string{"void *fn"}, params...), ", "), call), nil
}

// goParam is the Go type of a raw wrapper parameter or result.
func (e *Emitter) goParam(t ir.Type) (jen.Code, error) {
	switch t.Kind {
	case ir.FuncPtr:
		return jen.Qual("unsafe", "Pointer"), nil
	case ir.Array:
		return e.Names.goType(ir.Type{Kind: ir.Pointer, Elem: t.Elem, Size: 8, Align: 8})
	}
	return e.Names.goType(t)
}

// toC converts Go argument v of type t for the trampoline.
func toC(t ir.Type, v string) (jen.Code, error) {
	switch t.Kind {
	case ir.Pointer, ir.FuncPtr, ir.Array:
		return jen.Qual("unsafe", "Pointer").Call(jen.Id(v)), nil
	case ir.Bool:
		return jen.Qual("C", "bool").Call(jen.Id(v)), nil
	case ir.Float:
		if t.Size == 4 {
			return jen.Qual("C", "float").Call(jen.Id(v)), nil
		}
		return jen.Qual("C", "double").Call(jen.Id(v)), nil
	case ir.Int, ir.EnumRef:
		s, err := intName(t.Size, t.Signed)
		return jen.Qual("C", s+"_t").Call(jen.Id(v)), err
	}
	return nil, fmt.Errorf("cannot pass %s", t.C)
}

func (e *Emitter) rawCall(fn *ir.Func) ([]jen.Code, error) {
	get := []jen.Code{
		jen.List(jen.Id("fn"), jen.Id("err")).Op(":=").Id("sym_" + fn.Name).Dot("Addr").Call(),
		jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return()),
	}
	doc := fmt.Sprintf("c_%s calls %s (%s) through its address: r is the C result and errno the C errno after the call, meaningful only where the function's convention says so; err is a *dl.MissingError when the installed %s lacks it (needs %s).",
		fn.Name, fn.Name, fn.File, e.Names.Spec.Lib, e.since(fn))
	return e.raw(fn, doc, get, "zcall_"+fn.Name)
}

// raw emits c_<name>: get leaves the C function's address in fn (or
// returns err), then the trampoline is called with the converted
// arguments.
func (e *Emitter) raw(fn *ir.Func, doc string, get []jen.Code, tramp string) ([]jen.Code, error) {
	var params, args []jen.Code
	args = append(args, jen.Id("fn"))
	for i, p := range fn.Params {
		n := paramName(p, i)
		gt, err := e.goParam(p.Type)
		if err != nil {
			return nil, err
		}
		params = append(params, jen.Id(n).Add(gt))
		a, err := toC(p.Type, n)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	results := []jen.Code{}
	var ret jen.Code
	if fn.Ret.Kind != ir.Void {
		gt, err := e.goParam(fn.Ret)
		if err != nil {
			return nil, err
		}
		results = append(results, jen.Id("r").Add(gt))
		switch fn.Ret.Kind {
		case ir.Pointer:
			ret = jen.Id("r").Op("=").Parens(gt).Call(jen.Id("cr"))
		case ir.FuncPtr:
			ret = jen.Id("r").Op("=").Id("cr")
		default:
			ret = jen.Id("r").Op("=").Add(gt).Call(jen.Id("cr"))
		}
	}
	results = append(results, jen.Id("errno").Qual("syscall", "Errno"), jen.Id("err").Error())
	lhs := jen.Id("cr")
	if ret == nil {
		lhs = jen.Id("_")
	}
	body := append(get,
		jen.List(lhs, jen.Id("cerr")).Op(":=").Qual("C", tramp).Call(args...),
		jen.List(jen.Id("errno"), jen.Id("_")).Op("=").Id("cerr").Assert(jen.Qual("syscall", "Errno")),
	)
	if ret != nil {
		body = append(body, ret)
	}
	body = append(body, jen.Return())
	if err := e.stub(fn); err != nil {
		return nil, err
	}
	return []jen.Code{
		jen.Comment(doc),
		jen.Func().Id("c_" + fn.Name).Params(params...).Params(results...).Block(body...),
		jen.Line(),
	}, nil
}

// stub records the stub of fn's raw wrapper c_<name> for zfuncs_other.go: the
// same signature, failing with the library's *dl.MissingError (ErrNotSupported).
func (e *Emitter) stub(fn *ir.Func) error {
	var params, results []jen.Code
	for i, p := range fn.Params {
		gt, err := e.goParam(p.Type)
		if err != nil {
			return err
		}
		params = append(params, jen.Id(paramName(p, i)).Add(gt))
	}
	if fn.Ret.Kind != ir.Void {
		gt, err := e.goParam(fn.Ret)
		if err != nil {
			return err
		}
		results = append(results, jen.Id("r").Add(gt))
	}
	results = append(results, jen.Id("errno").Qual("syscall", "Errno"), jen.Id("err").Error())
	e.rawStubs = append(e.rawStubs,
		jen.Comment(fmt.Sprintf("c_%s is the stub of this build, which cannot call C: err is the library's *dl.MissingError, matching ErrNotSupported.", fn.Name)),
		jen.Func().Id("c_"+fn.Name).Params(params...).Params(results...).Block(
			jen.Id("err").Op("=").Id("lib").Dot("Load").Call(),
			jen.Return(),
		),
		jen.Line(),
	)
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The build constraints of the files that call C, and of their stubs.
const (
	cgoBuild   = "//go:build linux && cgo"
	otherBuild = "//go:build !linux || !cgo"
)

// funcsOther emits zfuncs_other.go: the raw wrappers of a build that cannot
// call C (not Linux, or CGO_ENABLED=0), each failing with the library's
// *dl.MissingError, which matches ErrNotSupported. Made by funcs.
func (e *Emitter) funcsOther(f *jen.File) error {
	f.HeaderComment(otherBuild)
	for _, c := range e.rawStubs {
		f.Add(c)
	}
	return nil
}

// load emits Load and Release: whether the library can be loaded, and which
// release it is as far as one symbol tells (the first function new in the
// newest input; none for a library of one release).
func (e *Emitter) load(f *jen.File) {
	lib, pkg := e.Names.Spec.Lib, e.Names.Spec.Name
	f.Comment(fmt.Sprintf("Load opens %s if it is not open yet and reports whether it is installed: nil, or a *[MissingError] naming it (it unwraps to unix.EOPNOTSUPP). A program can call it before any other function of the package: the bindings without an error result panic with an error naming %s when it is missing.", lib, lib))
	f.Func().Id("Load").Params().Error().Block(jen.Return(jen.Id("lib").Dot("Load").Call()))
	f.Line()
	if e.Names.Spec.Release != "" {
		return // not an rdma-core library: its release is the one pinned
	}
	f.Comment(fmt.Sprintf("Release is the rdma-core release of the installed %s (44 for rdma-core 44.0), from the name of the file the dynamic loader opened: rdma-core names each library lib<name>.so.<ABI>.<minor>.<release>.<n>, libibverbs.so.1.14.44.0. It is read once. The error is Load's when the library is missing, and an *[UnknownReleaseError] when the file is not named so (a build that renamed it): then the bindings treat the library as rdma-core %s, the oldest supported release, and refuse what is newer with a *[MissingError].", lib, string(e.Pkg.Versions[len(e.Pkg.Versions)-1])))
	f.Func().Id("Release").Params().Params(jen.Int(), jen.Error()).Block(
		jen.If(jen.Id("err").Op(":=").Id("Load").Call(), jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("err"))),
		jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("lib").Dot("Release").Call(), jen.Id("ok")).Block(jen.Return(jen.Id("r"), jen.Nil())),
		jen.Return(jen.Lit(0), jen.Op("&").Qual(DL, "UnknownReleaseError").Values(jen.Dict{jen.Id("Lib"): jen.Id("lib").Dot("Name"), jen.Id("Path"): jen.Id("lib").Dot("Path").Call()})),
	)
	f.Line()
	_ = pkg
}
