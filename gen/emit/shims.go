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
	get := []jen.Code{
		jen.Id("fn").Op(":=").Id(expr),
		jen.If(jen.Id("fn").Op("==").Nil()).Block(
			jen.Id("err").Op("=").Op("&").Qual(DL, "NilOpError").Values(jen.Dict{
				jen.Id("Func"): jen.Lit(fn.Name), jen.Id("Op"): jen.Lit(cpath),
			}),
			jen.Return(),
		),
	}
	doc := fmt.Sprintf("c_%s is the shim of the static inline %s (%s), which calls %s: r is the C result and errno the C errno after the call; err is a *dl.NilOpError when the provider left the member NULL.",
		fn.Name, fn.Name, fn.File, cpath)
	b, err := e.raw(fn, doc, get, tramp)
	return c, b, err
}

// memberPath resolves fw through the generated records to a Go expression
// reading the function pointer, and its C spelling.
func (e *Emitter) memberPath(fn *ir.Func, fw *ir.Forward) (expr, cpath string, ok bool) {
	var t ir.Type
	for i, p := range fn.Params {
		if p.Name == fw.Root {
			t, expr = p.Type, paramName(p, i)
		}
	}
	cpath = fw.Root
	for i, m := range fw.Path {
		var key string
		switch {
		case t.Kind == ir.Pointer && t.Elem.Kind == ir.Record:
			key, cpath = t.Elem.Ref, cpath+"->"+m
		case t.Kind == ir.Record:
			key, cpath = t.Ref, cpath+"."+m
		default:
			return "", "", false
		}
		if _, local := e.Names.Types[key]; !local {
			return "", "", false
		}
		f := e.member(key, m)
		if f == nil {
			return "", "", false
		}
		expr += "." + naming.Camel(m)
		t = f.Type
		if i == len(fw.Path)-1 && t.Kind != ir.FuncPtr {
			return "", "", false
		}
	}
	return expr, strings.TrimPrefix(cpath, fw.Root+"->"), true
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
