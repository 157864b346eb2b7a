package emit

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
	"github.com/goverbs/goverbs/gen/spec"
)

// postStep is one builder or setter of a batched post: its op, and its
// arguments after the object.
type postStep struct {
	fn      string  // the C function (ibv_wr_rdma_write)
	name    string  // the step's Go name (RDMAWrite): its method and constant
	op      *pollOp // the op it calls
	builder bool    // a builder: the members are set before it
	args    []postArg
}

// postArg is one argument of a step, carried as a uint64.
type postArg struct {
	goName string
	goType jen.Code // the Go parameter's type (uintptr for a pointer)
	cType  string   // the C parameter's type
	ptr    bool
	u64    bool // a uint64 already
}

// fastPost emits one batched post of spec/fastpath (spec.FastPost): a C
// trampoline zfast_<name> that runs start, then for each step of an array
// of the step record the builder (the object's members set from the step
// first) or setter it names with its arguments, and complete (or abort, on
// a step whose op is not there), declared noescape and nocallback; the Go
// ops record and step record with their layout asserted on both sides at
// compile time, a constant and a method per step kind; Fast<Go>Ops,
// reading an object's ops once, and Fast<Go>. It returns the cgo
// directives, the C code, the Go code, and the code of a build that
// cannot call C (the records and methods, and functions that do nothing).
func (e *Emitter) fastPost(p spec.FastPost) (directives, cCode string, code, stubs []jen.Code, err error) {
	fail := func(format string, args ...any) (string, string, []jen.Code, []jen.Code, error) {
		return "", "", nil, nil, fmt.Errorf(format, args...)
	}
	start := e.Pkg.Func(p.Start)
	if start == nil || len(start.Params) == 0 || start.Params[0].Type.Kind != ir.Pointer || start.Params[0].Type.Elem.Kind != ir.Record {
		return fail("%s: not a function of an object", p.Start)
	}
	objKey := start.Params[0].Type.Elem.Ref
	objGo, ok := e.Names.Types[objKey]
	if !ok {
		return fail("%s: %s is not a local record", p.Name, objKey)
	}
	const obj = "obj" // the ops reader's parameter
	startOp, startFn, err := e.fastObjOp(objKey, obj, p.Start)
	if err != nil {
		return fail("%w", err)
	}
	completeOp, completeFn, err := e.fastObjOp(objKey, obj, p.Complete)
	if err != nil {
		return fail("%w", err)
	}
	abortOp, abortFn, err := e.fastObjOp(objKey, obj, p.Abort)
	if err != nil {
		return fail("%w", err)
	}
	if len(startFn.Params) != 1 || len(completeFn.Params) != 1 || len(abortFn.Params) != 1 ||
		startFn.Ret.Kind != ir.Void || abortFn.Ret.Kind != ir.Void || completeFn.Ret.Kind != ir.Int {
		return fail("%s: start and abort must take the object alone and return nothing, complete take it and return an int", p.Name)
	}
	ops := []*pollOp{startOp, completeOp, abortOp}

	// The members, set before each builder.
	type member struct {
		goName, cName, cType string
		goType               jen.Code
		size, align          int64
	}
	var members []member
	for _, m := range p.Members {
		f := e.member(objKey, m)
		if f == nil {
			return fail("%s: %s has no member %s", p.Name, objKey, m)
		}
		ct, err := cScalar(f.Type)
		if err != nil || (f.Type.Kind != ir.Int && f.Type.Kind != ir.EnumRef) {
			return fail("%s: member %s is not an integer", p.Name, m)
		}
		gt, err := e.goParam(f.Type)
		if err != nil {
			return fail("%w", err)
		}
		members = append(members, member{goName: naming.Camel(m), cName: m, cType: ct, goType: gt, size: f.Type.Size, align: f.Type.Align})
	}

	// The steps: builders, then setters, numbered from 1 (0 is no step).
	fns := append(append([]string{}, p.Builders...), p.Setters...)
	var goNames []string
	for _, name := range fns {
		sf, ok := e.Spec.Lookup(name)
		if !ok {
			return fail("%s: not in the spec", name)
		}
		goNames = append(goNames, sf.GoName)
	}
	// Their common prefix (WR), up to a word: each name's rest starts a word.
	prefix := commonPrefix(goNames)
	for prefix != "" && slices.ContainsFunc(goNames, func(n string) bool { return len(n) == len(prefix) || !unicode.IsUpper(rune(n[len(prefix)])) }) {
		prefix = prefix[:len(prefix)-1]
	}
	var steps []*postStep
	maxArgs := 0
	for i, name := range fns {
		o, f, err := e.fastObjOp(objKey, obj, name)
		if err != nil {
			return fail("%w", err)
		}
		if f.Ret.Kind != ir.Void {
			return fail("%s: a builder or setter returns nothing", name)
		}
		st := &postStep{fn: name, name: strings.TrimPrefix(goNames[i], prefix), op: o, builder: i < len(p.Builders)}
		for k, prm := range f.Params[1:] {
			a := postArg{goName: paramName(prm, k+1)}
			switch prm.Type.Kind {
			case ir.Pointer, ir.Array:
				a.cType, a.ptr, a.goType = "void *", true, jen.Uintptr()
			case ir.Int, ir.EnumRef:
				if a.cType, err = cScalar(prm.Type); err != nil {
					return fail("%s: %w", name, err)
				}
				if a.goType, err = e.goParam(prm.Type); err != nil {
					return fail("%s: %w", name, err)
				}
				a.u64 = prm.Type.Kind == ir.Int && prm.Type.Size == 8 && !prm.Type.Signed
			default:
				return fail("%s: parameter %s is neither an integer nor a pointer", name, a.goName)
			}
			st.args = append(st.args, a)
		}
		maxArgs = max(maxArgs, len(st.args))
		steps = append(steps, st)
		ops = append(ops, o)
	}

	// The step record: the members, the arguments, the op, by alignment
	// (largest first, no padding between), in that order otherwise.
	type field struct {
		goName, cName, cDecl string
		goType               jen.Code
		size, align, off     int64
		doc                  string
	}
	recFields := []*field{}
	for _, m := range members {
		recFields = append(recFields, &field{goName: m.goName, cName: m.cName, cDecl: fmt.Sprintf("%s %s", m.cType, m.cName), goType: m.goType, size: m.size, align: m.align,
			doc: fmt.Sprintf("%s is what the object's %s is set to before a builder's step runs (a setter's step leaves it).", m.goName, m.cName)})
	}
	recFields = append(recFields,
		&field{goName: "Args", cName: "args", cDecl: fmt.Sprintf("uint64_t args[%d]", maxArgs), goType: jen.Index(jen.Lit(maxArgs)).Uint64(), size: int64(8 * maxArgs), align: 8,
			doc: "Args are the arguments of the step's op after the object, in order, each as a uint64 (a pointer as the address of C memory), those past the op's unused; set them with the step's methods."},
		&field{goName: "Op", cName: "op", cDecl: "uint32_t op", goType: jen.Id(p.Record + "Op"), size: 4, align: 4,
			doc: fmt.Sprintf("Op is the builder or setter the step calls (%s%s, ...); 0, or one the object lacks, is refused.", p.Record, steps[0].name)},
	)
	slices.SortStableFunc(recFields, func(a, b *field) int { return int(b.align - a.align) })
	var size int64
	for _, f := range recFields {
		size = (size + f.align - 1) / f.align * f.align
		f.off = size
		size += f.size
	}
	size = (size + 7) / 8 * 8

	// C.
	tramp := "zfast_" + p.Name
	opsC, stepC := tramp+"_ops", tramp+"_step"
	var c strings.Builder
	fmt.Fprintf(&c, "struct %s {", opsC)
	for _, o := range ops {
		fmt.Fprintf(&c, " uintptr_t %s;", o.cName)
	}
	for _, m := range members {
		fmt.Fprintf(&c, " uintptr_t %s_off;", m.cName)
	}
	c.WriteString(" int32_t bad; };\n")
	nWords := len(ops) + len(members)
	fmt.Fprintf(&c, "_Static_assert(__builtin_offsetof(struct %s, bad) == %d, \"%s.bad\");\n", opsC, 8*nWords, opsC)
	fmt.Fprintf(&c, "struct %s {", stepC)
	for _, f := range recFields {
		fmt.Fprintf(&c, " %s;", f.cDecl)
	}
	c.WriteString(" };\n")
	fmt.Fprintf(&c, "_Static_assert(sizeof(struct %s) == %d, \"%s\");\n", stepC, size, stepC)
	for _, f := range recFields {
		fmt.Fprintf(&c, "_Static_assert(__builtin_offsetof(struct %s, %s) == %d, \"%s.%s\");\n", stepC, f.cName, f.off, stepC, f.cName)
	}
	// gcc would merge the steps' identical jumps into one again
	// (cross-jumping, and GCSE of the table's load).
	c.WriteString("#if defined(__GNUC__) && !defined(__clang__)\n__attribute__((optimize(\"no-crossjumping\", \"no-gcse\")))\n#endif\n")
	fmt.Fprintf(&c, "static int32_t %s(struct %s *ops, uintptr_t obj, int32_t n, struct %s *steps) {\n", tramp, fastMem, fastMem)
	fmt.Fprintf(&c, "\tstruct %s *o = (struct %s *)ops;\n\tconst struct %s *s = (const struct %s *)steps;\n\tchar *p = (char *)obj;\n\tint32_t i = 0;\n", opsC, opsC, stepC, stepC)
	c.WriteString("\to->bad = -1;\n\tif (n <= 0)\n\t\treturn 0;\n")
	fmt.Fprintf(&c, "\tif (!o->%s || !o->%s || !o->%s)\n\t\treturn -EINVAL;\n", startOp.cName, completeOp.cName, abortOp.cName)
	fmt.Fprintf(&c, "\t((void (*)(void *))o->%s)(p);\n", startOp.cName)
	// Threaded dispatch (labels as values, a GNU C extension gcc and clang
	// have): each step ends in an indirect jump of its own to the next
	// step's label, so that the branch predictor learns each kind's
	// successor (an RDMA write's SGE, then the next write): one jump
	// shared by all steps, through a switch, took a third of the
	// trampoline's time at 256 work requests.
	nSteps := len(steps)
	dispatch := fmt.Sprintf("\tgoto *next[st->op <= %d ? st->op : 0];\n", nSteps)
	c.WriteString("\tstatic const void *const next[] = {&&bad")
	for k := range steps {
		fmt.Fprintf(&c, ", &&s%d", k+1)
	}
	c.WriteString("};\n\tconst struct " + stepC + " *st = s;\n")
	c.WriteString(dispatch)
	for k, st := range steps {
		fmt.Fprintf(&c, "s%d: // %s\n\tif (!o->%s)\n\t\tgoto bad;\n", k+1, st.fn, st.op.cName)
		if st.builder {
			for _, m := range members {
				fmt.Fprintf(&c, "\t*(%s *)(p + o->%s_off) = st->%s;\n", m.cType, m.cName, m.cName)
			}
		}
		types, args := []string{"void *"}, []string{"p"}
		for j, a := range st.args {
			types = append(types, a.cType)
			if a.ptr {
				args = append(args, fmt.Sprintf("(void *)(uintptr_t)st->args[%d]", j))
			} else {
				args = append(args, fmt.Sprintf("(%s)st->args[%d]", a.cType, j))
			}
		}
		fmt.Fprintf(&c, "\t((void (*)(%s))o->%s)(%s);\n\tif (++i == n)\n\t\tgoto done;\n\tst++;\n%s", strings.Join(types, ", "), st.op.cName, strings.Join(args, ", "), dispatch)
	}
	fmt.Fprintf(&c, "done:\n\treturn ((int32_t (*)(void *))o->%s)(p);\nbad:\n\to->bad = i;\n\t((void (*)(void *))o->%s)(p);\n\treturn -EINVAL;\n}\n", completeOp.cName, abortOp.cName)

	// Go: the records (in both builds), their layout asserted, the step
	// kinds and their methods.
	opsGo, fastGo, fastOps, opType := p.GoName+"Ops", "Fast"+p.GoName, "Fast"+p.GoName+"Ops", p.Record+"Op"
	var types []jen.Code
	opsFields := []jen.Code{jen.Id("_").Qual("structs", "HostLayout")}
	for _, o := range ops {
		opsFields = append(opsFields, jen.Comment(fmt.Sprintf("%s is the object's %s (0: none).", o.field, o.cName)), jen.Id(o.field).Uintptr())
	}
	for _, m := range members {
		opsFields = append(opsFields, jen.Comment(fmt.Sprintf("%sOffset is where %s is in the object.", m.goName, m.cName)), jen.Id(m.goName+"Offset").Uintptr())
	}
	opsFields = append(opsFields, jen.Comment(fmt.Sprintf("Bad is set by %s: the index of the step it refused (its op is 0), else -1.", fastGo)), jen.Id("Bad").Int32())
	var names []string
	for _, st := range steps {
		names = append(names, st.fn)
	}
	types = append(types,
		jen.Comment(fmt.Sprintf("%s are the ops of one %s that %s calls, read once by %s: %s, %s, %s, and the op of each builder and setter (%s; 0: none), and where the members %s are in the object. Its layout is the C side's (asserted at compile time).",
			opsGo, objKey, fastGo, fastOps, p.Start, p.Complete, p.Abort, strings.Join(names, ", "), strings.Join(p.Members, " and "))),
		jen.Type().Id(opsGo).Struct(opsFields...),
		jen.Line(),
		jen.Var().Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(jen.Qual("unsafe", "Offsetof").Call(jen.Id(opsGo).Values().Dot("Bad")).Op("-").Lit(8*nWords)),
		jen.Line(),
		jen.Comment(fmt.Sprintf("%s is the builder or setter a %s calls.", opType, p.Record)),
		jen.Type().Id(opType).Uint32(),
		jen.Line(),
	)
	var consts []jen.Code
	for k, st := range steps {
		kind := "setter"
		if st.builder {
			kind = "builder"
		}
		consts = append(consts, jen.Comment(fmt.Sprintf("%s%s calls %s (a %s).", p.Record, st.name, st.fn, kind)), jen.Id(p.Record+st.name).Id(opType).Op("=").Lit(k+1))
	}
	types = append(types, jen.Comment(fmt.Sprintf("The builders and setters of %s, as a %s names them.", fastGo, p.Record)), jen.Const().Defs(consts...), jen.Line())
	var recCode []jen.Code
	var asserts []jen.Code
	recCode = append(recCode, jen.Id("_").Qual("structs", "HostLayout"))
	for _, f := range recFields {
		recCode = append(recCode, jen.Comment(f.doc), jen.Id(f.goName).Add(f.goType))
		asserts = append(asserts, jen.Var().Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(
			jen.Qual("unsafe", "Offsetof").Call(jen.Id(p.Record).Values().Dot(f.goName)).Op("-").Lit(int(f.off))))
	}
	types = append(types,
		jen.Comment(fmt.Sprintf("%s is one step of %s: a builder, which begins a work request (the object's %s set from the step first), or a setter, which completes the current one, with its arguments. Set one with its method (%s, ...). Its layout is the C side's (asserted at compile time).",
			p.Record, fastGo, strings.Join(p.Members, " and "), steps[0].name)),
		jen.Type().Id(p.Record).Struct(recCode...),
		jen.Line(),
		jen.Comment(fmt.Sprintf("The layout of %s, as the C side asserts it.", p.Record)),
		jen.Var().Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(jen.Qual("unsafe", "Sizeof").Call(jen.Id(p.Record).Values()).Op("-").Lit(int(size))),
	)
	types = append(types, asserts...)
	types = append(types, jen.Line())
	for _, st := range steps {
		var params, body []jen.Code
		body = append(body, jen.Id("s").Dot("Op").Op("=").Id(p.Record+st.name))
		var argDocs []string
		for j, a := range st.args {
			params = append(params, jen.Id(a.goName).Add(a.goType))
			var v jen.Code = jen.Uint64().Call(jen.Id(a.goName))
			if a.u64 {
				v = jen.Id(a.goName)
			}
			body = append(body, jen.Id("s").Dot("Args").Index(jen.Lit(j)).Op("=").Add(v))
			if a.ptr {
				argDocs = append(argDocs, a.goName)
			}
		}
		doc := fmt.Sprintf("%s makes s a step calling %s with these arguments.", st.name, st.fn)
		if len(argDocs) > 0 {
			doc += fmt.Sprintf(" %s: the address of memory C may read during %s, outside the Go heap or pinned (an integer: the runtime does not keep it alive, and a goroutine's stack may move).", strings.Join(argDocs, " and "), fastGo)
		}
		types = append(types,
			jen.Comment(doc),
			jen.Func().Params(jen.Id("s").Op("*").Id(p.Record)).Id(st.name).Params(params...).Block(body...),
			jen.Line(),
		)
	}

	// Fast<Go>Ops.
	var body []jen.Code
	body = append(body, jen.Var().Id("o").Id(opsGo))
	for _, o := range ops {
		set := jen.Id("o").Dot(o.field).Op("=").Uintptr().Call(jen.Id(o.goExpr))
		if o.since > 0 {
			body = append(body, jen.If(jen.Id("lib").Dot("AtLeast").Call(jen.Lit(o.since))).Block(set))
			continue
		}
		body = append(body, set)
	}
	for _, m := range members {
		body = append(body, jen.Id("o").Dot(m.goName+"Offset").Op("=").Qual("unsafe", "Offsetof").Call(jen.Id(objGo).Values().Dot(m.goName)))
	}
	body = append(body, jen.Return(jen.Id("o")))
	var out []jen.Code
	out = append(out, types...)
	out = append(out,
		jen.Comment(fmt.Sprintf("%s reads the ops of %s, the object whose address %s takes: %s, %s, %s and every builder's and setter's. Read them once per object; a NULL op reads as 0, and so does a member the installed library's %s lacks.",
			fastOps, obj, fastGo, p.Start, p.Complete, p.Abort, objKey)),
		jen.Func().Id(fastOps).Params(jen.Id(obj).Op("*").Id(objGo)).Id(opsGo).Block(body...),
		jen.Line(),
	)
	callDoc := fmt.Sprintf("%s posts steps[0:n] on the %s whose address is %s in one cgo crossing: %s, then each step's builder (%s set from the step first) or setter with its arguments, in order, then %s, whose result it returns (0, or an errno). A step whose op is 0 in ops, or that names none, is refused: %s is called instead, nothing is posted, ops.Bad is the step's index and the result is -EINVAL; so it is, with ops.Bad -1, when ops lack %s, %s or %s. 0 for n <= 0, without a call. ops and steps may be Go memory; cgo checks no argument at run time.",
		fastGo, objKey, obj, p.Start, strings.Join(p.Members, " and "), p.Complete, p.Abort, p.Start, p.Complete, p.Abort)
	out = append(out,
		jen.Comment(callDoc),
		jen.Func().Id(fastGo).Params(jen.Id("ops").Op("*").Id(opsGo), jen.Id(obj).Uintptr(), jen.Id("n").Int32(), jen.Id("steps").Op("*").Id(p.Record)).Int32().Block(
			jen.Return(jen.Int32().Call(jen.Qual("C", tramp).Call(
				jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("ops"))),
				jen.Qual("C", "uintptr_t").Call(jen.Id(obj)), jen.Qual("C", "int32_t").Call(jen.Id("n")),
				jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("steps"))))))),
		jen.Line(),
	)
	stubs = append([]jen.Code{}, types...)
	stubs = append(stubs,
		jen.Comment(fmt.Sprintf("%s reads nothing in a build that cannot call C.", fastOps)),
		jen.Func().Id(fastOps).Params(jen.Id("_").Op("*").Id(objGo)).Id(opsGo).Block(jen.Return(jen.Id(opsGo).Values())),
		jen.Line(),
		jen.Comment(fmt.Sprintf("%s does nothing in a build that cannot call C (no object exists to call it on).", fastGo)),
		jen.Func().Id(fastGo).Params(jen.Id("ops").Op("*").Id(opsGo), jen.Id(obj).Uintptr(), jen.Id("n").Int32(), jen.Id("steps").Op("*").Id(p.Record)).Int32().Block(jen.Return(jen.Lit(0))),
		jen.Line(),
	)
	directives = fmt.Sprintf("#cgo noescape %s\n#cgo nocallback %s\n", tramp, tramp)
	return directives, c.String(), out, stubs, nil
}

// fastObjOp checks that name is a static inline forwarding to an op that
// is a member of objKey, the record its first parameter points to, and
// returns the op (its Go expression read from a parameter named obj) and
// the function.
func (e *Emitter) fastObjOp(objKey, obj, name string) (*pollOp, *ir.Func, error) {
	f := e.Pkg.Func(name)
	if f == nil || !f.Inline || f.Body == nil || f.Body.Forward == nil || len(f.Params) == 0 ||
		f.Params[0].Name != f.Body.Forward.Root || f.Params[0].Type.Kind != ir.Pointer || f.Params[0].Type.Elem.Kind != ir.Record {
		return nil, nil, fmt.Errorf("%s: not a static inline forwarding to an op of the object its first parameter points to", name)
	}
	fw := f.Body.Forward
	if f.Params[0].Type.Elem.Ref != objKey {
		return nil, nil, fmt.Errorf("%s: its object is %s, not %s", name, f.Params[0].Type.Elem.Ref, objKey)
	}
	expr, cpath, ok := e.memberPath(f, fw)
	if !ok || len(fw.Path) != 1 {
		return nil, nil, fmt.Errorf("%s: its op is not a member of %s", name, objKey)
	}
	o := &pollOp{goExpr: obj + strings.TrimPrefix(expr, paramName(f.Params[0], 0)), field: naming.Camel(cpath), cName: cpath}
	o.since, o.member = e.memberSince(f, fw.Root, fw.Path)
	return o, f, nil
}
