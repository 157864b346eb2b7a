package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
)

// fastMem is the C type Go memory is passed as by the fast trampolines:
// complete and without pointers, so that cgo checks no such argument at
// run time (cgo checks a pointer argument only when what it points to may
// hold pointers).
const fastMem = "zfast_mem"

// hasFast reports whether the package has fast-path functions (zfast.go).
func (e *Emitter) hasFast() bool {
	return e.Spec != nil && len(e.Spec.FastPath(Libraries[e.Names.Spec.Name])) > 0
}

// fast emits zfast.go: for each fast-path function of the package
// (spec/fastpath), FastX returning the address of the provider op the
// static inline calls, read through the generated layout, and FastX
// calling such an op. The trampoline takes the C object and the op as
// integers and Go memory as pointers to a type without pointers, and is
// declared noescape and nocallback: cgo checks no argument, and Go memory
// passed may stay on the goroutine's stack. Integers alone would not do
// for Go memory: a stack the runtime moves before the call (a Go function
// call may grow it) would leave an integer address pointing at the old
// one, while a pointer is moved with it.
func (e *Emitter) fast(f *jen.File) error {
	var pre strings.Builder
	var code []jen.Code
	names := e.Spec.FastPath(Libraries[e.Names.Spec.Name])
	for _, name := range names {
		fmt.Fprintf(&pre, "#cgo noescape zfast_%s\n#cgo nocallback zfast_%s\n", name, name)
	}
	var pollC strings.Builder
	var pollCode []jen.Code
	for _, p := range e.Spec.FastPolls(Libraries[e.Names.Spec.Name]) {
		d, c, b, stubs, err := e.fastPoll(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		pre.WriteString(d)
		pollC.WriteString(c)
		pollCode = append(pollCode, b...)
		e.fastPollStubs = append(e.fastPollStubs, stubs...)
	}
	pre.WriteString("#include <stdint.h>\n")
	if pollC.Len() > 0 {
		pre.WriteString("#include <errno.h>\n")
	}
	fmt.Fprintf(&pre, "struct %s { unsigned char opaque; };\n", fastMem)
	for _, name := range names {
		c, b, err := e.fastFunc(name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		pre.WriteString(c)
		code = append(code, b...)
	}
	pre.WriteString(pollC.String())
	code = append(code, pollCode...)
	f.HeaderComment(cgoBuild)
	f.CgoPreamble(pre.String())
	for _, c := range code {
		f.Add(c)
	}
	return nil
}

// fastOther emits zfast_other.go: the fast path of a build that cannot call
// C. No object can be made there (every constructor fails with
// ErrNotSupported), so these are never given one: the ops read as 0 and the
// calls return zero values. Made by fast.
func (e *Emitter) fastOther(f *jen.File) error {
	f.HeaderComment(otherBuild)
	for _, c := range e.fastStubs {
		f.Add(c)
	}
	for _, c := range e.fastPollStubs {
		f.Add(c)
	}
	return nil
}

// fastFunc is the trampoline and the Go functions of one fast-path
// function: a static inline forwarding through a member function pointer
// reached from its first parameter.
func (e *Emitter) fastFunc(name string) (string, []jen.Code, error) {
	fn := e.Pkg.Func(name)
	if fn == nil || !fn.Inline || fn.Body == nil || fn.Body.Forward == nil || fn.Variadic {
		return "", nil, fmt.Errorf("a fast-path function must be a static inline forwarding to a member function pointer")
	}
	fw := fn.Body.Forward
	if len(fn.Params) == 0 || fn.Params[0].Name != fw.Root || fn.Params[0].Type.Kind != ir.Pointer {
		return "", nil, fmt.Errorf("the op must be reached from the first parameter")
	}
	expr, cpath, ok := e.memberPath(fn, fw)
	if !ok {
		return "", nil, fmt.Errorf("member path %s->%s not in the generated layout", fw.Root, strings.Join(fw.Path, "."))
	}
	sf, ok := e.Spec.Lookup(name)
	if !ok {
		return "", nil, fmt.Errorf("not in the spec")
	}
	tramp := "zfast_" + name
	ret, err := cScalar(fn.Ret)
	if err != nil {
		return "", nil, err
	}
	// C: the object as an integer, Go memory as struct zfast_mem *.
	cParams := []string{"uintptr_t fn"}
	var cTypes, cArgs []string
	var goParams, goArgs []jen.Code
	var outAddr []string // T ** parameters, *uintptr in Go
	opName := "op"
	goParams = append(goParams, jen.Id(opName).Uintptr())
	goArgs = append(goArgs, jen.Qual("C", "uintptr_t").Call(jen.Id(opName)))
	for i, p := range fn.Params {
		n := paramName(p, i)
		ct, err := cScalar(p.Type)
		if err != nil {
			return "", nil, err
		}
		cTypes = append(cTypes, ct)
		switch {
		case i == 0:
			cParams = append(cParams, fmt.Sprintf("uintptr_t a%d", i))
			cArgs = append(cArgs, fmt.Sprintf("(void *)a%d", i))
			goParams = append(goParams, jen.Id(n).Uintptr())
			goArgs = append(goArgs, jen.Qual("C", "uintptr_t").Call(jen.Id(n)))
		case p.Type.Kind == ir.Pointer || p.Type.Kind == ir.Array:
			cParams = append(cParams, fmt.Sprintf("struct %s *a%d", fastMem, i))
			cArgs = append(cArgs, fmt.Sprintf("a%d", i))
			var gt jen.Code = jen.Op("*").Uintptr() // T **: where C stores an address (ibv_post_send's bad_wr)
			if p.Type.Elem != nil && p.Type.Elem.Kind == ir.Pointer {
				outAddr = append(outAddr, n)
			} else {
				if gt, err = e.goParam(p.Type); err != nil {
					return "", nil, err
				}
			}
			goParams = append(goParams, jen.Id(n).Add(gt))
			goArgs = append(goArgs, jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id(n))))
		case p.Type.Kind == ir.FuncPtr:
			return "", nil, fmt.Errorf("parameter %s is a function pointer", n)
		default:
			cParams = append(cParams, fmt.Sprintf("%s a%d", ct, i))
			cArgs = append(cArgs, fmt.Sprintf("a%d", i))
			gt, err := e.goParam(p.Type)
			if err != nil {
				return "", nil, err
			}
			goParams = append(goParams, jen.Id(n).Add(gt))
			a, err := toC(p.Type, n)
			if err != nil {
				return "", nil, err
			}
			goArgs = append(goArgs, a)
		}
	}
	call := fmt.Sprintf("((%s (*)(%s))fn)(%s)", ret, strings.Join(cTypes, ", "), strings.Join(cArgs, ", "))
	if ret != "void" {
		call = "return " + call
	}
	c := fmt.Sprintf("static %s %s(%s) { %s; }\n", ret, tramp, strings.Join(cParams, ", "), call)

	goName := "Fast" + sf.GoName
	obj := paramName(fn.Params[0], 0)
	objType, err := e.goParam(fn.Params[0].Type)
	if err != nil {
		return "", nil, err
	}
	var out []jen.Code
	opBody := []jen.Code{jen.Return(jen.Uintptr().Call(jen.Id(expr)))}
	opDoc := fmt.Sprintf("%sOp is the provider op that %s (%s) calls, %s, as the address %s takes; 0 when the provider left it NULL. Read it once per object.", goName, name, fn.File, cpath, goName)
	if r, member := e.memberSince(fn, fw.Root, fw.Path); r > 0 {
		opBody = append([]jen.Code{jen.If(jen.Op("!").Id("lib").Dot("AtLeast").Call(jen.Lit(r))).Block(jen.Return(jen.Lit(0)))}, opBody...)
		opDoc += fmt.Sprintf(" Also 0 when the installed library is older than rdma-core %d (or its release is unknown), whose %s has no %s.", r, strings.SplitN(member, ".", 2)[0], member)
	}
	out = append(out,
		jen.Comment(opDoc),
		jen.Func().Id(goName+"Op").Params(jen.Id(obj).Add(objType)).Uintptr().Block(opBody...),
		jen.Line(),
	)
	doc := fmt.Sprintf("%s calls op, the provider op that %s (%s) calls (from %sOp, never 0), on the C object whose address is %s, and returns what op returns as it is: no convention is applied and errno is not read (the checked binding of %s does both). It is one cgo crossing, and cgo checks no argument at run time: %s and op are integers, and a pointer argument, which may point to Go memory, need be valid for the call only and must not hold a Go pointer.",
		goName, name, fn.File, goName, obj, name, obj)
	for _, n := range outAddr {
		doc += fmt.Sprintf(" C stores an address in *%s (a pointer to a pointer in C): the C object it points to, which Go code locates by its address.", n)
	}
	body := jen.Qual("C", tramp).Call(goArgs...)
	var results []jen.Code
	var stmt jen.Code = body
	if fn.Ret.Kind != ir.Void {
		gt, err := e.goParam(fn.Ret)
		if err != nil {
			return "", nil, err
		}
		if fn.Ret.Kind == ir.Pointer {
			return "", nil, fmt.Errorf("returns a pointer")
		}
		results = append(results, gt)
		stmt = jen.Return(jen.Add(gt).Call(body))
	}
	out = append(out,
		jen.Comment(doc),
		jen.Func().Id(goName).Params(goParams...).Params(results...).Block(stmt),
		jen.Line(),
	)
	// The stubs: the same signatures.
	stubOp := jen.Func().Id(goName + "Op").Params(jen.Id("_").Add(objType)).Uintptr().Block(jen.Return(jen.Lit(0)))
	var stubCall jen.Code
	if len(results) > 0 {
		stubCall = jen.Func().Id(goName).Params(goParams...).Params(results...).Block(jen.Return(jen.Lit(0)))
	} else {
		stubCall = jen.Func().Id(goName).Params(goParams...).Block()
	}
	e.fastStubs = append(e.fastStubs,
		jen.Comment(fmt.Sprintf("%sOp is 0 in a build that cannot call C.", goName)), stubOp, jen.Line(),
		jen.Comment(fmt.Sprintf("%s does nothing in a build that cannot call C (no object exists to call it on).", goName)), stubCall, jen.Line(),
	)
	return c, out, nil
}
