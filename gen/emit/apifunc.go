package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
	"github.com/goverbs/goverbs/gen/spec"
)

// CArg is the import path of the argument conversions.
const CArg = Module + "/internal/carg"

// result is one Go result of a binding.
type result struct {
	name string
	typ  jen.Code
	zero jen.Code
	val  jen.Code // the value returned on success
}

// zeroOf is the zero value of a Go result of C type t as shaped by k.
func (e *Emitter) zeroOf(t ir.Type, k shapeKind, typ jen.Code) jen.Code {
	switch k {
	case shInt, shEnum, shDuration, shPort:
		return jen.Lit(0)
	case shBool:
		return jen.False()
	case shString:
		return jen.Lit("")
	}
	switch t.Kind {
	case ir.Pointer, ir.FuncPtr, ir.Array:
		return jen.Nil()
	case ir.Record:
		return jen.Add(typ).Values()
	case ir.Bool:
		return jen.False()
	}
	return jen.Lit(0)
}

// cargInt is the carg function converting a Go int to the raw Go integer
// type raw ("Int32" for int32), or "" when none is needed (int64).
func cargInt(t ir.Type) (string, error) {
	s, err := intName(t.Size, t.Signed)
	if err != nil {
		return "", err
	}
	switch s {
	case "int32", "uint32", "uint16", "uint8", "uint64":
		return strings.ToUpper(s[:1]) + s[1:], nil
	case "int64":
		return "", nil
	}
	return "", fmt.Errorf("no int conversion to %s", s)
}

// apiFunc emits one exported wrapper of a raw binding, shaped by a.shape.
func (e *Emitter) apiFunc(a apiFunc, links map[string]string) (string, jen.Code, error) {
	fn, sf, sh := a.fn, a.sf, a.shape
	miss := e.mayMiss(fn)
	names := e.apiParamNames(a)
	cname := jen.Lit(sf.Name)
	conv := sf.Convention
	ret := fn.Ret
	// The results: the C result's value, the out parameters, the error.
	var results []result
	var valueRes *result
	isPtr := ret.Kind == ir.Pointer || ret.Kind == ir.FuncPtr
	str := ret.Kind == ir.Pointer && ret.Elem != nil && ret.Elem.Kind == ir.Int && ret.Elem.Size == 1
	isInt := ret.Kind == ir.Int || ret.Kind == ir.EnumRef || ret.Kind == ir.Bool
	switch {
	case sh.free != nil:
		lt, err := e.listType(a)
		if err != nil {
			return "", nil, err
		}
		results = append(results, result{name: "list", typ: jen.Op("*").Id(lt), zero: jen.Nil()})
	case conv == spec.ZeroOrErrno || conv == spec.ZeroOrNegErrno || conv == spec.ZeroOrMinusOne || conv == spec.ZeroOrNegCode || conv == spec.ZeroOrMinusOneErrno || conv == spec.ZeroOrEAIOrMinusOneErrno:
		if !isInt {
			return "", nil, fmt.Errorf("convention %s on a %s result", conv, ret.C)
		}
	case conv == spec.CountOrMinusOneErrno || conv == spec.CountOrMinusOne || conv == spec.CountOrNegErrno || conv == spec.CountOrNegative:
		if !isInt {
			return "", nil, fmt.Errorf("convention %s on a %s result", conv, ret.C)
		}
		results = append(results, result{name: "n", typ: jen.Int(), zero: jen.Lit(0), val: jen.Int().Call(jen.Id("r"))})
	case conv == spec.PointerOrNullErrno || conv == spec.PointerOrNull:
		if !isPtr {
			return "", nil, fmt.Errorf("convention %s on a %s result", conv, ret.C)
		}
		rt, err := e.goParam(ret)
		if err != nil {
			return "", nil, err
		}
		r := result{name: "ret", typ: rt, zero: jen.Nil(), val: jen.Id("r")}
		if str {
			r = result{name: "ret", typ: jen.String(), zero: jen.Lit(""), val: jen.Qual("golang.org/x/sys/unix", "BytePtrToString").Call(jen.Id("r"))}
		}
		results = append(results, r)
	case conv == spec.Void && ret.Kind != ir.Void:
		return "", nil, fmt.Errorf("convention void on a %s result", ret.C)
	case ret.Kind != ir.Void:
		rt, err := e.goParam(ret)
		if err != nil {
			return "", nil, err
		}
		r := result{name: "ret", typ: rt, zero: e.zeroOf(ret, shPlain, rt), val: jen.Id("r")}
		switch {
		case str:
			r = result{name: "ret", typ: jen.String(), zero: jen.Lit(""), val: jen.Qual("golang.org/x/sys/unix", "BytePtrToString").Call(jen.Id("r"))}
		case sh.ret.kind == shEnum:
			path, g, _ := e.Names.Type(sh.ret.enum)
			r.typ = qual(path, g)
			r.val = qual(path, g).Call(jen.Id("r"))
		}
		results = append(results, r)
	}
	if len(results) == 1 {
		valueRes = &results[0]
	}
	// Parameters, conversions and arguments.
	var params, pre []jen.Code
	args := make([]jen.Code, len(fn.Params))
	var post []jen.Code // statements after the call, converting out values
	type outParam struct {
		i   int
		res result
	}
	var outs []outParam
	for i, p := range fn.Params {
		ps := sh.params[i]
		if ps.kind != shOut {
			continue
		}
		n := names[i]
		et := *p.Type.Elem
		raw, err := e.goParam(et)
		if err != nil {
			return "", nil, err
		}
		if sh.free != nil && i == 0 {
			// The count of the returned array.
			pre = append(pre, jen.Var().Id("z"+n).Add(raw))
			args[i] = jen.Op("&").Id("z" + n)
			continue
		}
		r := result{name: n, typ: raw, zero: e.zeroOf(et, shPlain, raw)}
		local := "z" + n
		val := jen.Id(local)
		switch ps.out {
		case shInt:
			r.typ, r.zero, val = jen.Int(), jen.Lit(0), jen.Int().Call(jen.Id(local))
		case shBool:
			r.typ, r.zero, val = jen.Bool(), jen.False(), jen.Id(local).Op("!=").Lit(0)
		case shDuration:
			r.typ, r.zero = jen.Qual("time", "Duration"), jen.Lit(0)
			val = jen.Qual("time", "Duration").Call(jen.Id(local)).Op("*").Qual("time", "Millisecond")
		case shEnum:
			path, g, _ := e.Names.Type(ps.enum)
			r.typ, r.zero, val = qual(path, g), jen.Lit(0), qual(path, g).Call(jen.Id(local))
		}
		r.val = val
		pre = append(pre, jen.Var().Id(local).Add(raw))
		args[i] = jen.Op("&").Id(local)
		outs = append(outs, outParam{i, r})
	}
	for _, o := range outs {
		results = append(results, o.res)
	}
	if a.hasErr {
		results = append(results, result{name: "err", typ: jen.Error(), zero: jen.Nil(), val: jen.Nil()})
	}
	fail := func(err jen.Code) jen.Code {
		var vs []jen.Code
		for _, r := range results[:len(results)-1] {
			vs = append(vs, r.zero)
		}
		return jen.Return(append(vs, err)...)
	}
	checkAssign := func(n, cParam, fnName string, v jen.Code) ([]jen.Code, error) {
		if !a.hasErr {
			return nil, fmt.Errorf("parameter %s: a conversion that can fail in a binding without an error result", n)
		}
		return []jen.Code{
			jen.List(jen.Id("z"+n), jen.Id("err")).Op(":=").Qual(CArg, fnName).Call(cname, jen.Lit(cParam), v),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fail(jen.Id("err"))),
		}, nil
	}
	for i, p := range fn.Params {
		ps := sh.params[i]
		n := names[i]
		raw, err := e.goParam(p.Type)
		if err != nil {
			return "", nil, err
		}
		if i == 0 && a.recv != "" {
			if a.inOut {
				pre = append(pre, jen.Id("z"+n).Op(":=").Id(n))
				args[i] = jen.Op("&").Id("z" + n)
			} else {
				args[i] = jen.Id(n)
			}
			continue
		}
		switch ps.kind {
		case shOut:
			continue
		case shPlain, shRecvInOut:
			params = append(params, jen.Id(n).Add(raw))
			args[i] = jen.Id(n)
		case shEnum:
			path, g, _ := e.Names.Type(ps.enum)
			params = append(params, jen.Id(n).Add(qual(path, g)))
			args[i] = jen.Add(raw).Call(jen.Id(n))
		case shBool:
			params = append(params, jen.Id(n).Bool())
			args[i] = jen.Add(raw).Call(jen.Qual(CArg, "Bool").Call(jen.Id(n)))
		case shPort:
			params = append(params, jen.Id(n).Uint8())
			args[i] = jen.Add(raw).Call(jen.Id(n))
		case shInt:
			params = append(params, jen.Id(n).Int())
			f, err := cargInt(p.Type)
			if err != nil {
				return "", nil, err
			}
			if f == "" {
				args[i] = jen.Add(raw).Call(jen.Id(n))
				break
			}
			st, err := checkAssign(n, p.Name, f, jen.Id(n))
			if err != nil {
				return "", nil, err
			}
			pre = append(pre, st...)
			args[i] = jen.Id("z" + n)
		case shDuration:
			params = append(params, jen.Id(n).Qual("time", "Duration"))
			st, err := checkAssign(n, p.Name, "Millis", jen.Id(n))
			if err != nil {
				return "", nil, err
			}
			pre = append(pre, st...)
			args[i] = jen.Add(raw).Call(jen.Id("z" + n))
		case shString:
			params = append(params, jen.Id(n).String())
			st, err := checkAssign(n, p.Name, "String", jen.Id(n))
			if err != nil {
				return "", nil, err
			}
			pre = append(pre, st...)
			args[i] = jen.Id("z" + n)
		case shBytes:
			params = append(params, jen.Id(n).Index().Byte())
			args[i] = jen.Qual(CArg, "Bytes").Call(jen.Id(n))
			if p.Type.Elem != nil && p.Type.Elem.Kind != ir.Void {
				// Memory of a typed pointer (a record with a flexible
				// array, __be64 actions[]): its bytes, as C sees them.
				args[i] = jen.Parens(raw).Call(args[i])
			}
		case shSlice:
			et, err := e.goParam(*p.Type.Elem)
			if err != nil {
				return "", nil, err
			}
			params = append(params, jen.Id(n).Index().Add(et))
			args[i] = jen.Qual(CArg, "Slice").Call(jen.Id(n))
		case shLen:
			m := names[ps.peer]
			lt := p.Type
			ln := jen.Len(jen.Id(m))
			if ps.bytes {
				ln = jen.Len(jen.Id(m)).Op("*").Lit(int(fn.Params[ps.peer].Type.Elem.Size))
			}
			if lt.Size == 8 {
				args[i] = jen.Add(raw).Call(ln)
				break
			}
			f, err := cargInt(lt)
			if err != nil {
				return "", nil, err
			}
			st, err := checkAssign(n, p.Name, f, ln)
			if err != nil {
				return "", nil, err
			}
			pre = append(pre, st...)
			args[i] = jen.Id("z" + n)
		case shSizeof:
			rt, err := e.goParam(*fn.Params[ps.peer].Type.Elem)
			if err != nil {
				return "", nil, err
			}
			args[i] = jen.Add(raw).Call(jen.Qual("unsafe", "Sizeof").Call(jen.Add(rt).Values()))
		default:
			return "", nil, fmt.Errorf("parameter %s: unknown shape %d", p.Name, ps.kind)
		}
	}
	// The call and the check of its result.
	call := jen.Id("c_" + fn.Name).Call(args...)
	check := naming.Camel(string(conv))
	body, err := e.guardStmts(a, names, fail)
	if err != nil {
		return "", nil, err
	}
	body = append(body, pre...)
	lhsR := jen.Id("r")
	if ret.Kind == ir.Void {
		lhsR = jen.Id("_")
	}
	errnoV := jen.Id(errnoVar(conv))
	var onMissing jen.Code = jen.Panic(jen.Qual(DL, "Unavailable").Call(jen.Lit(e.Names.Spec.Name), jen.Id("err")))
	if a.hasErr {
		onMissing = fail(jen.Id("err"))
	}
	if ret.Kind == ir.Void {
		body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("err")).Op(":=").Add(call), jen.Id("err").Op("!=").Nil()).Block(onMissing))
	} else {
		body = append(body,
			jen.List(lhsR, errnoV, jen.Id("err")).Op(":=").Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(onMissing))
	}
	if conv.CanFail() {
		var cargs []jen.Code
		switch {
		case isPtr:
			cargs = []jen.Code{cname, jen.Qual("unsafe", "Pointer").Call(jen.Id("r"))}
		case results != nil && valueRes != nil && valueRes.name == "n":
			cargs = []jen.Code{cname, jen.Int64().Call(jen.Id("r"))}
		default:
			cargs = []jen.Code{cname, jen.Int32().Call(jen.Id("r"))}
		}
		if conv.SetsErrno() {
			cargs = append(cargs, jen.Id("errno"))
		}
		if conv == spec.ZeroOrEAIOrMinusOneErrno {
			check = "EAIOrMinusOneErrno"
		}
		chk := jen.Qual(CErr, check).Call(cargs...)
		body = append(body, jen.If(jen.Id("err").Op(":=").Add(chk), jen.Id("err").Op("!=").Nil()).Block(fail(jen.Id("err"))))
	}
	body = append(body, post...)
	if sh.free != nil {
		lt, _ := e.listType(a)
		body = append(body,
			jen.Id("list").Op(":=").Op("&").Id(lt).Values(jen.Dict{
				jen.Id("c"):   jen.Id("r"),
				jen.Id("all"): jen.Qual("slices", "Clone").Call(jen.Qual("unsafe", "Slice").Call(jen.Id("r"), jen.Id("z"+names[0]))),
			}),
		)
		results[0].val = jen.Id("list")
	}
	var vals []jen.Code
	for _, r := range results {
		vals = append(vals, r.val)
	}
	if len(vals) > 0 {
		body = append(body, jen.Return(vals...))
	}
	decl := jen.Func()
	if a.recv != "" {
		decl = decl.Params(jen.Id(names[0]).Op("*").Id(a.recv))
	}
	decl = decl.Id(a.name).Params(params...)
	named := len(outs) > 0
	var rs []jen.Code
	for _, r := range results {
		if named {
			rs = append(rs, jen.Id(r.name).Add(r.typ))
		} else {
			rs = append(rs, r.typ)
		}
	}
	switch {
	case len(rs) == 1 && !named:
		decl = decl.Add(rs[0])
	case len(rs) > 0:
		decl = decl.Params(rs...)
	}
	return e.apiDoc(a, links, miss), decl.Block(body...), nil
}
