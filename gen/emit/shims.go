package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
)

// forwardShim emits the shim of a static inline function whose body only
// forwards its parameters through a member function pointer
// (ir.Body.Forward): Go reads the pointer through the generated layout
// (qp.Context.Ops.PostSend) and calls it with a trampoline. Other inline
// functions get nothing yet (empty results).
func (e *Emitter) forwardShim(fn *ir.Func) (string, []jen.Code, error) {
	if fn.Body == nil || fn.Body.Forward == nil || fn.Variadic {
		return "", nil, nil
	}
	fw := fn.Body.Forward
	expr, cpath, ok := e.memberPath(fn, fw)
	if !ok {
		return "", nil, nil
	}
	for _, t := range append([]ir.Type{fn.Ret}, paramTypes(fn)...) {
		if t.Kind == ir.Record {
			return "", nil, nil
		}
	}
	tramp := "zshim_" + fn.Name
	c, err := trampoline(tramp, fn)
	if err != nil {
		return "", nil, err
	}
	var get []jen.Code
	// A member newer than the oldest release: an older library's struct ends
	// before it, and reading it would read past the struct.
	if r, member := e.memberSince(fn, fw.Root, fw.Path); r > 0 {
		get = append(get, jen.If(
			jen.Id("err").Op("=").Id("lib").Dot("Needs").Call(jen.Lit(r), jen.Lit(fn.Name), jen.Lit(member)),
			jen.Id("err").Op("!=").Nil(),
		).Block(jen.Return()))
	}
	get = append(get,
		jen.Id("fn").Op(":=").Id(expr),
		jen.If(jen.Id("fn").Op("==").Nil()).Block(
			jen.Id("err").Op("=").Op("&").Qual(DL, "NilOpError").Values(jen.Dict{
				jen.Id("Func"): jen.Lit(fn.Name), jen.Id("Op"): jen.Lit(cpath),
			}),
			jen.Return(),
		),
	)
	doc := fmt.Sprintf("c_%s is the shim of the static inline %s (%s), which calls %s: r is the C result and errno the C errno after the call; err is a *dl.NilOpError when the provider left the member NULL, or a *dl.MissingError when the installed release's struct has no such member.",
		fn.Name, fn.Name, fn.File, cpath)
	b, err := e.raw(fn, doc, get, tramp)
	return c, b, err
}

// memberPath resolves fw through the generated records to a Go expression
// reading the function pointer, and its C spelling.
func (e *Emitter) memberPath(fn *ir.Func, fw *ir.Forward) (expr, cpath string, ok bool) {
	expr, cpath, t, ok := e.walk(fn, fw.Root, fw.Path)
	if !ok || t.Kind != ir.FuncPtr {
		return "", "", false
	}
	return expr, strings.TrimPrefix(cpath, fw.Root+"->"), true
}

// walk follows members from parameter root through local records, giving
// the Go expression, its C spelling and the type reached.
func (e *Emitter) walk(fn *ir.Func, root string, path []string) (expr, cpath string, t ir.Type, ok bool) {
	for i, p := range fn.Params {
		if p.Name == root {
			t, expr, ok = p.Type, paramName(p, i), true
		}
	}
	if !ok {
		return "", "", t, false
	}
	cpath = root
	for _, m := range path {
		var key string
		switch {
		case t.Kind == ir.Pointer && t.Elem.Kind == ir.Record:
			key, cpath = t.Elem.Ref, cpath+"->"+m
		case t.Kind == ir.Record:
			key, cpath = t.Ref, cpath+"."+m
		default:
			return "", "", t, false
		}
		if _, local := e.Names.Types[key]; !local {
			return "", "", t, false
		}
		f := e.member(key, m)
		if f == nil {
			return "", "", t, false
		}
		expr += "." + naming.Camel(m)
		t = f.Type
	}
	return expr, cpath, t, true
}

// member finds member m of record key, looking into anonymous struct
// members (whose members Go promotes) but not into unions.
func (e *Emitter) member(key, m string) *ir.Field {
	s := e.Pkg.Struct(key)
	if s == nil || s.Union {
		return nil
	}
	for _, f := range s.Fields {
		if f.Name == m {
			return f
		}
		if f.Name == "" && f.Type.Kind == ir.Record {
			if g := e.member(f.Type.Ref, m); g != nil {
				return g
			}
		}
	}
	return nil
}

// verbsContext is the C record verbs_get_ctx_op reaches.
const verbsContext = "struct verbs_context"

// ctxShim emits the shim of a static inline function that calls an op of
// struct verbs_context after verbs_get_ctx_op's check (ir.CtxForward).
// struct verbs_context grows toward lower addresses, with struct
// ibv_context last, so an op's distance from the ibv_context, and the
// check of sz, are the same for every rdma-core release: the generated
// layout of the newest one reads the ops of any installed provider.
func (e *Emitter) ctxShim(fn *ir.Func) (string, []jen.Code, error) {
	if fn.Body == nil || fn.Body.CtxForward == nil || fn.Variadic {
		return "", nil, nil
	}
	fw := fn.Body.CtxForward
	_, ok := e.Names.Types[verbsContext]
	if !ok {
		return "", nil, nil
	}
	ctxExpr, _, t, ok := e.walk(fn, fw.Root, fw.Path)
	if !ok || t.Kind != ir.Pointer || t.Elem.Kind != ir.Record || t.Elem.Ref != "struct ibv_context" {
		return "", nil, nil
	}
	if f := e.member(verbsContext, fw.Op); f == nil || f.Type.Kind != ir.FuncPtr {
		return "", nil, nil
	}
	for _, t := range append([]ir.Type{fn.Ret}, paramTypes(fn)...) {
		if t.Kind == ir.Record {
			return "", nil, nil
		}
	}
	tramp := "zshim_" + fn.Name
	c, err := trampoline(tramp, fn)
	if err != nil {
		return "", nil, err
	}
	op := naming.Camel(fw.Op)
	vop := jen.Id("zvctx").Dot(op)
	get := []jen.Code{
		jen.Id("zvctx").Op(":=").Id("verbsGetCtx").Call(jen.Id(ctxExpr)),
		jen.If(jen.Id("zvctx").Op("==").Nil().Op("||").
			Id("zvctx").Dot("Sz").Op("<").Uint64().Call(jen.Qual("unsafe", "Sizeof").Call(jen.Op("*").Id("zvctx")).Op("-").Qual("unsafe", "Offsetof").Call(vop)).Op("||").
			Add(vop).Op("==").Nil()).Block(
			jen.Id("err").Op("=").Op("&").Qual(DL, "NilOpError").Values(jen.Dict{
				jen.Id("Func"): jen.Lit(fn.Name), jen.Id("Op"): jen.Lit("verbs_context." + fw.Op),
			}),
			jen.Return(),
		),
		jen.Id("fn").Op(":=").Add(vop),
	}
	doc := fmt.Sprintf("c_%s is the shim of the static inline %s (%s), which calls the provider's verbs_context.%s when verbs_get_ctx_op finds it: r is the C result and errno the C errno after the call; err is a *dl.NilOpError when the provider lacks the op.",
		fn.Name, fn.Name, fn.File, fw.Op)
	b, err := e.raw(fn, doc, get, tramp)
	return c, b, err
}

// verbsGetCtx emits verbsGetCtx, verbs_get_ctx in Go over the generated
// layout: the struct verbs_context around an ibv_context, or nil when the
// provider's context is not extended (abi_compat is not
// __VERBS_ABI_IS_EXTENDED, UINTPTR_MAX).
func (e *Emitter) verbsGetCtx(f *jen.File) {
	v := e.Names.Types[verbsContext]
	f.Comment("verbsGetCtx is verbs_get_ctx over the generated layout: the struct verbs_context around ctx, or nil when the provider's context is not extended (abi_compat is not __VERBS_ABI_IS_EXTENDED, UINTPTR_MAX).")
	f.Func().Id("verbsGetCtx").Params(jen.Id("ctx").Op("*").Id(e.Names.Types["struct ibv_context"])).Op("*").Id(v).Block(
		jen.If(jen.Id("ctx").Op("==").Nil().Op("||").Uintptr().Call(jen.Id("ctx").Dot(naming.Camel("abi_compat"))).Op("!=").Op("^").Uintptr().Call(jen.Lit(0))).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Parens(jen.Op("*").Id(v)).Call(jen.Qual("unsafe", "Add").Call(
			jen.Qual("unsafe", "Pointer").Call(jen.Id("ctx")),
			jen.Op("-").Int().Call(jen.Qual("unsafe", "Offsetof").Call(jen.Id(v).Values().Dot(naming.Camel("context")))),
		))),
	)
	f.Line()
}

// sizedShim emits the shim of a static inline function whose body passes
// its parameters to another function with the size of a record
// (ir.Body.Sized: mlx5dv_query_port calls _mlx5dv_query_port(context,
// port_num, info, sizeof(*info))): Go calls that function's raw wrapper with
// the size of the generated record, which the layout test proves equal to
// C's. It is Go only, so its stub is the same call. Functions bound by hand
// (Hand, HandShims) get none.
func (e *Emitter) sizedShim(fn *ir.Func) ([]jen.Code, error) {
	if fn.Body == nil || fn.Body.Sized == nil || fn.Variadic || Hand[fn.Name] != "" || HandShims[fn.Name] != "" {
		return nil, nil
	}
	sz := fn.Body.Sized
	im := e.Pkg.Func(sz.Func)
	if im == nil || im.Inline || callable(im) != "" || len(im.Params) != len(fn.Params)+1 || im.Ret.C != fn.Ret.C || sz.Return != (fn.Ret.Kind != ir.Void) {
		return nil, nil
	}
	szType := im.Params[len(fn.Params)].Type
	if szType.Kind != ir.Int {
		return nil, nil
	}
	var rec jen.Code
	switch {
	case sz.Param != "":
		for i, p := range fn.Params {
			if p.Name == sz.Param {
				rec = jen.Op("*").Id(paramName(p, i))
				if _, ok := e.Names.Types[p.Type.Elem.Ref]; !ok {
					return nil, nil // a record of another package: its layout is proven there
				}
			}
		}
	default:
		g, ok := e.Names.Types[sz.Record]
		if !ok {
			return nil, nil
		}
		rec = jen.Id(g).Values()
	}
	if rec == nil {
		return nil, nil
	}
	st, err := e.goParam(szType)
	if err != nil {
		return nil, err
	}
	var params, args []jen.Code
	for i, p := range fn.Params {
		n := paramName(p, i)
		gt, err := e.goParam(p.Type)
		if err != nil {
			return nil, err
		}
		params = append(params, jen.Id(n).Add(gt))
		args = append(args, jen.Id(n))
	}
	args = append(args, jen.Add(st).Call(jen.Qual("unsafe", "Sizeof").Call(rec)))
	var results []jen.Code
	if fn.Ret.Kind != ir.Void {
		gt, err := e.goParam(fn.Ret)
		if err != nil {
			return nil, err
		}
		results = append(results, jen.Id("r").Add(gt))
	}
	results = append(results, jen.Id("errno").Qual("syscall", "Errno"), jen.Id("err").Error())
	what := "the size of the record " + sz.Param + " points to"
	if sz.Param == "" {
		what = "the size of " + sz.Record
	}
	doc := fmt.Sprintf("c_%s is the shim of the static inline %s (%s), which calls %s with its parameters and %s: here the size of the generated Go record, which the layout test proves equal to C's.",
		fn.Name, fn.Name, fn.File, sz.Func, what)
	body := []jen.Code{
		jen.Comment(doc),
		jen.Func().Id("c_" + fn.Name).Params(params...).Params(results...).Block(
			jen.Return(jen.Id("c_" + sz.Func).Call(args...)),
		),
		jen.Line(),
	}
	e.rawStubs = append(e.rawStubs, body...)
	return body, nil
}
