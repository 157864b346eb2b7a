package emit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
	"github.com/goverbs/goverbs/gen/spec"
)

// pollOp is one op a batched poll calls: the member of the object it is
// read from, and the Go field of the ops record that holds it.
type pollOp struct {
	goExpr string // the member, read from the ops reader's parameter (cq.StartPoll)
	field  string // the ops record's field (StartPoll)
	cName  string // the C ops record's member (start_poll)
	since  int    // the release whose object has the member, when newer than the oldest
	member string
}

// pollField is one field of a batched poll's completion record: an object
// member (read at an offset) or a getter's value.
type pollField struct {
	goName, cName string
	goType        jen.Code
	cType         string // a C scalar type, or "" for a record filled through a pointer
	size, align   int64
	off           int64
	getter        *pollOp // nil for a member
	flag          string  // the creation flag the getter needs (Go constant), or "" for always
	viaPointer    bool    // the getter returns void and fills the field through its second parameter
}

// fastPoll emits one batched poll of spec/fastpath (spec.FastPoll): a C
// trampoline zfast_<name> that runs start, the getters, next, ..., end for
// up to n completions into an array of the completion record, one
// (zfast_<name>_current) that runs the getters of the current completion,
// both declared noescape and nocallback; the Go ops record and completion
// record with their layout asserted on both sides at compile time; and
// Fast<Go>Ops, reading an object's ops once, Fast<Go> and Fast<Record>.
// It returns the cgo directives, the C code, the Go code, and the code of
// a build that cannot call C (the records, and functions that do nothing).
func (e *Emitter) fastPoll(p spec.FastPoll) (directives, cCode string, code, stubs []jen.Code, err error) {
	start := e.Pkg.Func(p.Start)
	if start == nil || len(start.Params) == 0 || start.Params[0].Type.Kind != ir.Pointer || start.Params[0].Type.Elem.Kind != ir.Record {
		return "", "", nil, nil, fmt.Errorf("%s: not a static inline forwarding to an op of the object its first parameter points to", p.Start)
	}
	objKey := start.Params[0].Type.Elem.Ref
	objGo, ok := e.Names.Types[objKey]
	if !ok {
		return "", "", nil, nil, fmt.Errorf("%s: %s is not a local record", p.Name, objKey)
	}
	const obj = "obj" // the ops reader's parameter
	op := func(name string) (*pollOp, *ir.Func, error) { return e.fastObjOp(objKey, obj, name) }
	var ops []*pollOp
	startOp, _, err := op(p.Start)
	if err != nil {
		return "", "", nil, nil, err
	}
	nextOp, next, err := op(p.Next)
	if err != nil {
		return "", "", nil, nil, err
	}
	endOp, end, err := op(p.End)
	if err != nil {
		return "", "", nil, nil, err
	}
	if len(next.Params) != 1 || len(end.Params) != 1 || next.Ret.Kind != ir.Int || start.Ret.Kind != ir.Int || end.Ret.Kind != ir.Void {
		return "", "", nil, nil, fmt.Errorf("%s: start and next must take the object (start also records) and return an int, end take it alone", p.Name)
	}
	// start's other parameters are records it reads (ibv_poll_cq_attr):
	// given zeroed.
	var startArgs, startTypes []string
	var cPre strings.Builder
	for i, prm := range start.Params[1:] {
		if prm.Type.Kind != ir.Pointer || prm.Type.Elem.Kind != ir.Record {
			return "", "", nil, nil, fmt.Errorf("%s: parameter %s is not a pointer to a record", p.Start, prm.Name)
		}
		startArgs = append(startArgs, fmt.Sprintf("a%d", i+1))
		startTypes = append(startTypes, "void *")
		fmt.Fprintf(&cPre, "\tuint64_t a%d[%d] = {0};\n", i+1, (prm.Type.Elem.Size+7)/8)
	}
	startDecl := cPre.String()
	ops = append(ops, startOp, nextOp, endOp)

	var fields []*pollField
	for _, m := range p.Members {
		f := e.member(objKey, m)
		if f == nil {
			return "", "", nil, nil, fmt.Errorf("%s: %s has no member %s", p.Name, objKey, m)
		}
		ct, err := cScalar(f.Type)
		if err != nil || f.Type.Kind == ir.Pointer || f.Type.Kind == ir.FuncPtr || f.Type.Kind == ir.Array {
			return "", "", nil, nil, fmt.Errorf("%s: member %s is not an integer", p.Name, m)
		}
		gt, err := e.goParam(f.Type)
		if err != nil {
			return "", "", nil, nil, err
		}
		fields = append(fields, &pollField{goName: naming.Camel(m), cName: m, goType: gt, cType: ct, size: f.Type.Size, align: f.Type.Align})
	}
	var goNames []string
	for _, g := range p.Getters {
		sf, ok := e.Spec.Lookup(g.Function)
		if !ok {
			return "", "", nil, nil, fmt.Errorf("%s: not in the spec", g.Function)
		}
		goNames = append(goNames, sf.GoName)
	}
	prefix := commonPrefix(goNames)
	var flagType string
	seenOp := map[string]string{} // op -> its first getter
	opFlag := map[string]string{} // op -> that getter's flag
	for i, g := range p.Getters {
		o, f, err := op(g.Function)
		if err != nil {
			return "", "", nil, nil, err
		}
		if first, dup := seenOp[o.cName]; dup {
			// A second getter of one op (ibv_wc_read_invalidated_rkey
			// reads read_imm_data): the first one's field.
			if opFlag[o.cName] != g.Flag {
				return "", "", nil, nil, fmt.Errorf("%s: the op of %s, with another flag", g.Function, first)
			}
			continue
		}
		seenOp[o.cName], opFlag[o.cName] = g.Function, g.Flag
		pf := &pollField{goName: strings.TrimPrefix(goNames[i], prefix), cName: strings.TrimPrefix(o.cName, "read_"), getter: o}
		switch {
		case len(f.Params) == 1 && f.Ret.Kind != ir.Void:
			if pf.cType, err = cScalar(f.Ret); err != nil || f.Ret.Kind == ir.Pointer {
				return "", "", nil, nil, fmt.Errorf("%s: result %s", g.Function, f.Ret.C)
			}
			if pf.goType, err = e.goParam(f.Ret); err != nil {
				return "", "", nil, nil, err
			}
			pf.size, pf.align = f.Ret.Size, f.Ret.Align
		case len(f.Params) == 2 && f.Ret.Kind == ir.Void && f.Params[1].Type.Kind == ir.Pointer && f.Params[1].Type.Elem.Kind == ir.Record:
			rec := f.Params[1].Type.Elem
			name, ok := e.Names.Types[rec.Ref]
			if !ok {
				return "", "", nil, nil, fmt.Errorf("%s: %s is not a local record", g.Function, rec.Ref)
			}
			pf.goType, pf.viaPointer = jen.Id(name), true
			pf.size, pf.align = rec.Size, rec.Align
		default:
			return "", "", nil, nil, fmt.Errorf("%s: a getter returns a scalar or fills one record", g.Function)
		}
		if pf.align <= 0 {
			pf.align = pf.size
		}
		if g.Flag != "" {
			en := e.enumDeclaring(g.Flag)
			if en == nil {
				return "", "", nil, nil, fmt.Errorf("%s: no enumerator %s", g.Function, g.Flag)
			}
			t := e.Names.Types[en.Key]
			if flagType != "" && flagType != t {
				return "", "", nil, nil, fmt.Errorf("%s: flags of %s and %s", p.Name, flagType, t)
			}
			flagType, pf.flag = t, e.Names.Vals[g.Flag]
		}
		fields = append(fields, pf)
		ops = append(ops, o)
	}
	if flagType == "" {
		return "", "", nil, nil, fmt.Errorf("%s: no getter has a flag", p.Name)
	}
	// The record: the fields by alignment, largest first (no padding
	// between them), in spec order otherwise.
	slices.SortStableFunc(fields, func(a, b *pollField) int { return int(b.align - a.align) })
	var size, align int64 = 0, 1
	for _, f := range fields {
		size = (size + f.align - 1) / f.align * f.align
		f.off = size
		size += f.size
		align = max(align, f.align)
	}
	size = (size + align - 1) / align * align

	// C.
	tramp := "zfast_" + p.Name
	opsC, wcC := tramp+"_ops", tramp+"_wc"
	var c strings.Builder
	fmt.Fprintf(&c, "struct %s {", opsC)
	for _, o := range ops {
		fmt.Fprintf(&c, " uintptr_t %s;", o.cName)
	}
	for _, f := range fields {
		if f.getter == nil {
			fmt.Fprintf(&c, " uintptr_t %s_off;", f.cName)
		}
	}
	c.WriteString(" int32_t err; };\n")
	nOps := len(ops)
	for _, f := range fields {
		if f.getter == nil {
			nOps++
		}
	}
	fmt.Fprintf(&c, "_Static_assert(__builtin_offsetof(struct %s, err) == %d, \"%s.err\");\n", opsC, 8*nOps, opsC)
	fmt.Fprintf(&c, "struct %s {", wcC)
	for _, f := range fields {
		if f.cType == "" {
			fmt.Fprintf(&c, " _Alignas(%d) unsigned char %s[%d];", f.align, f.cName, f.size)
		} else {
			fmt.Fprintf(&c, " %s %s;", f.cType, f.cName)
		}
	}
	c.WriteString(" };\n")
	fmt.Fprintf(&c, "_Static_assert(sizeof(struct %s) == %d, \"%s\");\n", wcC, size, wcC)
	for _, f := range fields {
		fmt.Fprintf(&c, "_Static_assert(__builtin_offsetof(struct %s, %s) == %d, \"%s.%s\");\n", wcC, f.cName, f.off, wcC, f.cName)
	}
	fmt.Fprintf(&c, "static inline __attribute__((always_inline)) void %s_read(const struct %s *o, char *p, struct %s *w) {\n", tramp, opsC, wcC)
	for _, f := range fields {
		switch {
		case f.getter == nil:
			fmt.Fprintf(&c, "\tw->%s = *(%s *)(p + o->%s_off);\n", f.cName, f.cType, f.cName)
		case f.viaPointer:
			fmt.Fprintf(&c, "\tif (o->%s)\n\t\t((void (*)(void *, void *))o->%s)(p, w->%s);\n\telse\n\t\t__builtin_memset(w->%s, 0, sizeof w->%s);\n",
				f.getter.cName, f.getter.cName, f.cName, f.cName, f.cName)
		default:
			fmt.Fprintf(&c, "\tw->%s = o->%s ? ((%s (*)(void *))o->%s)(p) : 0;\n", f.cName, f.getter.cName, f.cType, f.getter.cName)
		}
	}
	c.WriteString("}\n")
	fmt.Fprintf(&c, "static int32_t %s(struct %s *ops, uintptr_t obj, int32_t n, struct %s *out) {\n", tramp, fastMem, fastMem)
	fmt.Fprintf(&c, "\tstruct %s *o = (struct %s *)ops;\n\tstruct %s *w = (struct %s *)out;\n\tchar *p = (char *)obj;\n\tint32_t k = 0, rc;\n", opsC, opsC, wcC, wcC)
	c.WriteString(startDecl)
	c.WriteString("\to->err = 0;\n\tif (n <= 0)\n\t\treturn 0;\n")
	fmt.Fprintf(&c, "\trc = ((int32_t (*)(%s))o->%s)(%s);\n", strings.Join(append([]string{"void *"}, startTypes...), ", "), startOp.cName, strings.Join(append([]string{"p"}, startArgs...), ", "))
	c.WriteString("\tif (rc)\n\t\treturn rc == ENOENT ? 0 : -rc;\n")
	c.WriteString("\tfor (;;) {\n")
	fmt.Fprintf(&c, "\t\t%s_read(o, p, &w[k]);\n", tramp)
	c.WriteString("\t\tif (++k == n)\n\t\t\tbreak;\n")
	fmt.Fprintf(&c, "\t\trc = ((int32_t (*)(void *))o->%s)(p);\n", nextOp.cName)
	c.WriteString("\t\tif (rc) {\n\t\t\tif (rc != ENOENT)\n\t\t\t\to->err = rc;\n\t\t\tbreak;\n\t\t}\n\t}\n")
	fmt.Fprintf(&c, "\t((void (*)(void *))o->%s)(p);\n\treturn k;\n}\n", endOp.cName)
	fmt.Fprintf(&c, "static void %s_current(struct %s *ops, uintptr_t obj, struct %s *out) { %s_read((const struct %s *)ops, (char *)obj, (struct %s *)out); }\n",
		tramp, fastMem, fastMem, tramp, opsC, wcC)

	// Go: the records (in both builds) and their layout, asserted.
	opsGo, fastGo, fastOps, fastRec := p.GoName+"Ops", "Fast"+p.GoName, "Fast"+p.GoName+"Ops", "Fast"+"Read"+p.Record
	var types []jen.Code
	opsFields := []jen.Code{jen.Id("_").Qual("structs", "HostLayout")}
	for _, o := range ops {
		opsFields = append(opsFields, jen.Comment(fmt.Sprintf("%s is the object's %s (0: none).", o.field, o.cName)), jen.Id(o.field).Uintptr())
	}
	for _, f := range fields {
		if f.getter == nil {
			opsFields = append(opsFields, jen.Comment(fmt.Sprintf("%sOffset is where %s is in the object.", f.goName, f.cName)), jen.Id(f.goName+"Offset").Uintptr())
		}
	}
	opsFields = append(opsFields, jen.Comment(fmt.Sprintf("Err is set by %s: the error of %s after the completions it returned, else 0.", fastGo, p.Next)), jen.Id("Err").Int32())
	types = append(types,
		jen.Comment(fmt.Sprintf("%s are the ops of one %s that %s and %s call, read once by %s: %s, %s, %s, and the getter of each field the object was created with (0: not read), and where the members %s are in the object. Its layout is the C side's (asserted at compile time).",
			opsGo, objKey, fastGo, fastRec, fastOps, p.Start, p.Next, p.End, strings.Join(p.Members, " and "))),
		jen.Type().Id(opsGo).Struct(opsFields...),
		jen.Line(),
		jen.Var().Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(jen.Qual("unsafe", "Offsetof").Call(jen.Id(opsGo).Values().Dot("Err")).Op("-").Lit(8*nOps)),
		jen.Line(),
	)
	recFields := []jen.Code{jen.Id("_").Qual("structs", "HostLayout")}
	var asserts []jen.Code
	for _, f := range fields {
		doc := fmt.Sprintf("%s is the object's %s, as %s and %s leave it.", f.goName, f.cName, p.Start, p.Next)
		if f.getter != nil {
			g := seenOp[f.getter.cName]
			verb := "returns"
			if f.viaPointer {
				verb = "fills in"
			}
			doc = fmt.Sprintf("%s is what %s %s", f.goName, g, verb)
			for _, gg := range p.Getters {
				if o2 := e.Pkg.Func(gg.Function); gg.Function != g && o2 != nil && o2.Body != nil && o2.Body.Forward != nil &&
					len(o2.Body.Forward.Path) == 1 && o2.Body.Forward.Path[0] == f.getter.cName {
					doc += " (and " + gg.Function + ", which calls the same op)"
				}
			}
			if f.flag != "" {
				doc += ", for an object created with " + f.flag + "; else 0."
			} else {
				doc += " (every object has the getter)."
			}
		}
		recFields = append(recFields, jen.Comment(doc), jen.Id(f.goName).Add(f.goType))
		asserts = append(asserts, jen.Var().Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(
			jen.Qual("unsafe", "Offsetof").Call(jen.Id(p.Record).Values().Dot(f.goName)).Op("-").Lit(int(f.off))))
	}
	types = append(types,
		jen.Comment(fmt.Sprintf("%s is one completion of a %s as %s and %s read it: the members %s as %s and %s leave them, and each getter's value (0 where the ops have no getter). Its layout is the C side's (asserted at compile time).",
			p.Record, objKey, fastGo, fastRec, strings.Join(p.Members, " and "), p.Start, p.Next)),
		jen.Type().Id(p.Record).Struct(recFields...),
		jen.Line(),
		jen.Comment(fmt.Sprintf("The layout of %s, as the C side asserts it.", p.Record)),
		jen.Var().Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(jen.Qual("unsafe", "Sizeof").Call(jen.Id(p.Record).Values()).Op("-").Lit(int(size))),
	)
	types = append(types, asserts...)
	types = append(types, jen.Line())

	// Fast<Go>Ops.
	var body []jen.Code
	body = append(body, jen.Var().Id("o").Id(opsGo))
	for _, o := range ops {
		set := jen.Id("o").Dot(o.field).Op("=").Uintptr().Call(jen.Id(o.goExpr))
		var flag string
		for _, f := range fields {
			if f.getter == o {
				flag = f.flag
			}
		}
		var cond []jen.Code
		if flag != "" {
			cond = append(cond, jen.Id("flags").Op("&").Id(flag).Op("!=").Lit(0))
		}
		if o.since > 0 {
			cond = append(cond, jen.Id("lib").Dot("AtLeast").Call(jen.Lit(o.since)))
		}
		if len(cond) == 0 {
			body = append(body, set)
			continue
		}
		c := cond[0]
		if len(cond) == 2 {
			c = jen.Add(cond[0]).Op("&&").Add(cond[1])
		}
		body = append(body, jen.If(c).Block(set))
	}
	for _, f := range fields {
		if f.getter == nil {
			body = append(body, jen.Id("o").Dot(f.goName+"Offset").Op("=").Qual("unsafe", "Offsetof").Call(jen.Id(objGo).Values().Dot(f.goName)))
		}
	}
	body = append(body, jen.Return(jen.Id("o")))
	var out []jen.Code
	out = append(out, types...)
	out = append(out,
		jen.Comment(fmt.Sprintf("%s reads the ops of %s, the object whose address %s takes, for an object created with flags: %s, %s and %s, and the getters of every field flags asks for and of those always present. Read them once per object; a NULL op reads as 0 (%s needs the first three; a getter of 0 is not called). Also 0 for a member the installed library's %s lacks.",
			fastOps, obj, fastGo, p.Start, p.Next, p.End, fastGo, objKey)),
		jen.Func().Id(fastOps).Params(jen.Id(obj).Op("*").Id(objGo), jen.Id("flags").Id(flagType)).Id(opsGo).Block(body...),
		jen.Line(),
	)
	callDoc := fmt.Sprintf("%s polls up to n completions of the %s whose address is %s into wcs[0:n] in one cgo crossing: %s, and for each completion its members and the value of each getter in ops into a %s, then %s, ..., and %s. It returns the number of completions read (0 when %s found none, ENOENT), or minus the error %s returned (then nothing was read and %s was not called). An error of %s after the completions it returned is in ops.Err (else 0). ops must hold %s, %s and %s (from %s); ops and wcs may be Go memory. cgo checks no argument at run time.",
		fastGo, objKey, obj, p.Start, p.Record, p.Next, p.End, p.Start, p.Start, p.End, p.Next, p.Start, p.Next, p.End, fastOps)
	out = append(out,
		jen.Comment(callDoc),
		jen.Func().Id(fastGo).Params(jen.Id("ops").Op("*").Id(opsGo), jen.Id(obj).Uintptr(), jen.Id("n").Int32(), jen.Id("wcs").Op("*").Id(p.Record)).Int32().Block(
			jen.Return(jen.Int32().Call(jen.Qual("C", tramp).Call(
				jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("ops"))),
				jen.Qual("C", "uintptr_t").Call(jen.Id(obj)), jen.Qual("C", "int32_t").Call(jen.Id("n")),
				jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("wcs"))))))),
		jen.Line(),
		jen.Comment(fmt.Sprintf("%s reads the current completion of the %s whose address is %s (after the caller's %s or %s) into wc in one cgo crossing: its members and the value of each getter in ops.", fastRec, objKey, obj, p.Start, p.Next)),
		jen.Func().Id(fastRec).Params(jen.Id("ops").Op("*").Id(opsGo), jen.Id(obj).Uintptr(), jen.Id("wc").Op("*").Id(p.Record)).Block(
			jen.Qual("C", tramp+"_current").Call(
				jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("ops"))),
				jen.Qual("C", "uintptr_t").Call(jen.Id(obj)),
				jen.Parens(jen.Op("*").Qual("C", "struct_"+fastMem)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("wc"))))),
		jen.Line(),
	)
	stubs = append([]jen.Code{}, types...)
	stubs = append(stubs,
		jen.Comment(fmt.Sprintf("%s reads nothing in a build that cannot call C.", fastOps)),
		jen.Func().Id(fastOps).Params(jen.Id("_").Op("*").Id(objGo), jen.Id("_").Id(flagType)).Id(opsGo).Block(jen.Return(jen.Id(opsGo).Values())),
		jen.Line(),
		jen.Comment(fmt.Sprintf("%s does nothing in a build that cannot call C (no object exists to call it on).", fastGo)),
		jen.Func().Id(fastGo).Params(jen.Id("ops").Op("*").Id(opsGo), jen.Id(obj).Uintptr(), jen.Id("n").Int32(), jen.Id("wcs").Op("*").Id(p.Record)).Int32().Block(jen.Return(jen.Lit(0))),
		jen.Line(),
		jen.Comment(fmt.Sprintf("%s does nothing in a build that cannot call C.", fastRec)),
		jen.Func().Id(fastRec).Params(jen.Id("ops").Op("*").Id(opsGo), jen.Id(obj).Uintptr(), jen.Id("wc").Op("*").Id(p.Record)).Block(),
		jen.Line(),
	)
	directives = fmt.Sprintf("#cgo noescape %s\n#cgo nocallback %s\n#cgo noescape %s_current\n#cgo nocallback %s_current\n", tramp, tramp, tramp, tramp)
	return directives, c.String(), out, stubs, nil
}

// enumDeclaring is the local tagged enum declaring enumerator v, or nil.
func (e *Emitter) enumDeclaring(v string) *ir.Enum {
	for _, en := range e.Pkg.Enums {
		if _, local := e.Names.Types[en.Key]; !local {
			continue
		}
		for _, ev := range en.Values {
			if ev.Name == v {
				return en
			}
		}
	}
	return nil
}

// commonPrefix is the longest prefix of every s.
func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
