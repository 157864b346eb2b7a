package extract

import (
	"sort"

	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/ir"
)

// bodies describes the body of every static inline function defined in an
// owned header, from its (macro-expanded) tokens: the functions it calls,
// the function-pointer members it calls through (qp->context->ops.post_send,
// cq->read_opcode), and the verbs_context ops it guards with
// verbs_get_ctx_op (which expands to offsetof(struct verbs_context, op),
// itself &((struct verbs_context *)0)->op).
// The shim generator dispatches on the resulting ir.Shape.
func (x *extractor) bodies() {
	for tu := x.p.AST.TranslationUnit; tu != nil; tu = tu.TranslationUnit {
		ed := tu.ExternalDeclaration
		if ed == nil || ed.FunctionDefinition == nil {
			continue
		}
		fd := ed.FunctionDefinition
		if fd.Declarator == nil || !x.p.Owned(fd.Declarator.Position().Filename) {
			continue
		}
		f := x.pkg.Func(fd.Declarator.Name())
		if f == nil || fd.CompoundStatement == nil {
			continue
		}
		f.Body = x.body(cc.NodeTokens(fd.CompoundStatement))
		f.Body.Forward = forward(cc.NodeTokens(fd.CompoundStatement), f)
		f.Body.CtxForward = ctxForward(cc.NodeTokens(fd.CompoundStatement), f)
		f.Body.Sized = sized(strip(cc.NodeTokens(fd.CompoundStatement)), f, x.isFunc)
	}
}

// sized recognises `{ [return] g(p1, ..., pn, sizeof(*pk)); }` and
// `{ [return] g(p1, ..., pn, sizeof(struct T)); }` where p1..pn are all the
// parameters in order and g a function.
func sized(src []string, f *ir.Func, isFunc func(string) bool) *ir.Sized {
	if len(src) < 8 || src[0] != "{" || src[len(src)-1] != "}" || src[len(src)-2] != ";" {
		return nil
	}
	src = src[1 : len(src)-2]
	sz := &ir.Sized{}
	if src[0] == "return" {
		sz.Return, src = true, src[1:]
	}
	if len(src) < 4 || !isFunc(src[0]) || src[1] != "(" || src[len(src)-1] != ")" {
		return nil
	}
	sz.Func = src[0]
	args := src[2 : len(src)-1]
	for _, p := range f.Params {
		if len(args) < 2 || args[0] != p.Name || args[1] != "," {
			return nil
		}
		args = args[2:]
	}
	switch {
	case len(args) == 5 && args[0] == "sizeof" && args[1] == "(" && args[2] == "*" && args[4] == ")":
		for _, p := range f.Params {
			if p.Name == args[3] && p.Type.Kind == ir.Pointer && p.Type.Elem != nil && p.Type.Elem.Kind == ir.Record {
				sz.Param = p.Name
			}
		}
		if sz.Param == "" {
			return nil
		}
	case len(args) == 5 && args[0] == "sizeof" && args[1] == "(" && (args[2] == "struct" || args[2] == "union") && args[4] == ")":
		sz.Record = args[2] + " " + args[3]
	default:
		return nil
	}
	return sz
}

// forward recognises `{ [return] p->a->b.fn(p1, ..., pn); }` where p is a
// parameter and p1..pn are all the parameters in order. cc puts the
// implicit `static const char __func__[] = "...";` first; it is skipped.
func forward(ts []cc.Token, f *ir.Func) *ir.Forward {
	return forwardTokens(strip(ts), f, "")
}

// forwardTokens matches `{ [return] root->a.b(p1, ..., pn); }`; root is
// local when given, else it must be a parameter.
func forwardTokens(src []string, f *ir.Func, local string) *ir.Forward {
	if len(src) < 6 || src[0] != "{" || src[len(src)-1] != "}" || src[len(src)-2] != ";" {
		return nil
	}
	src = src[1 : len(src)-2]
	fw := &ir.Forward{}
	if src[0] == "return" {
		fw.Return, src = true, src[1:]
	}
	open := -1
	for i, s := range src {
		if s == "(" {
			open = i
			break
		}
	}
	if open < 3 || src[len(src)-1] != ")" {
		return nil
	}
	path := src[:open]
	fw.Root = path[0]
	for i := 1; i+1 < len(path); i += 2 {
		if path[i] != "->" && path[i] != "." {
			return nil
		}
		fw.Path = append(fw.Path, path[i+1])
	}
	if len(path)%2 != 1 || len(fw.Path) == 0 {
		return nil
	}
	var args []string
	for i, s := range src[open+1 : len(src)-1] {
		if i%2 == 1 {
			if s != "," {
				return nil
			}
			continue
		}
		args = append(args, s)
	}
	if len(args) != len(f.Params) {
		return nil
	}
	for i, p := range f.Params {
		if args[i] != p.Name {
			return nil
		}
	}
	root := local != "" && fw.Root == local
	for _, p := range f.Params {
		root = root || local == "" && p.Name == fw.Root
	}
	if !root {
		return nil
	}
	return fw
}

func (x *extractor) body(ts []cc.Token) *ir.Body {
	b := &ir.Body{}
	calls, members, ops := map[string]bool{}, map[string]bool{}, map[string]bool{}
	src := make([]string, len(ts))
	for i := range ts {
		src[i] = ts[i].SrcStr()
	}
	at := func(i int) string {
		if i < 0 || i >= len(src) {
			return ""
		}
		return src[i]
	}
	for i, s := range src {
		switch {
		case (s == "offsetof" || s == "__builtin_offsetof") && at(i+1) == "(" && at(i+2) == "struct" && at(i+3) == "verbs_context" && at(i+4) == ",":
			ops[at(i+5)] = true
		case s == "struct" && at(i+1) == "verbs_context" && at(i+2) == "*" && at(i+3) == ")" && at(i+4) == "0" && at(i+5) == ")" && at(i+6) == "->":
			ops[at(i+7)] = true // offsetof as the C library expands it
		case at(i+1) == "(" && (at(i-1) == "->" || at(i-1) == "."):
			members[s] = true
		case s == "__errno_location" && at(i+1) == "(":
			b.Errno = true // errno, expanded
		case at(i+1) == "(" && x.isFunc(s):
			calls[s] = true
		}
	}
	b.Calls, b.MemberCalls, b.CtxOps = keys(calls), keys(members), keys(ops)
	switch {
	case len(b.CtxOps) > 0:
		b.Shape = ir.ShapeCtxOp
	case len(b.MemberCalls) > 0:
		b.Shape = ir.ShapeMemberCall
	case len(b.Calls) > 0:
		b.Shape = ir.ShapeWrapper
	default:
		b.Shape = ir.ShapePure
	}
	return b
}

func keys(m map[string]bool) []string {
	r := make([]string, 0, len(m))
	for k := range m {
		r = append(r, k)
	}
	sort.Strings(r)
	return r
}

// strip returns the body's tokens without cc's implicit
// `static const char __func__[] = "...";`.
func strip(ts []cc.Token) []string {
	src := make([]string, 0, len(ts))
	for i := range ts {
		src = append(src, ts[i].SrcStr())
	}
	if len(src) > 2 && src[1] == "static" {
		for i, s := range src {
			if s == ";" {
				return append([]string{"{"}, src[i+1:]...)
			}
		}
	}
	return src
}

// skipBalanced returns the index after the bracket closing the one at i.
func skipBalanced(src []string, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case "(", "{", "[":
			depth++
		case ")", "}", "]":
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// ctxForward recognises
//
//	{ struct verbs_context *v [; v] = <verbs_get_ctx_op(p[->m...], op)>;
//	  if (!v) <statement or block>; [return] v->op(p1, ..., pn); }
//
// The failure statement (errno = EOPNOTSUPP and NULL, or EOPNOTSUPP) is
// the function's convention, which the spec states; the shim reports an
// absent op as a *dl.NilOpError instead.
func ctxForward(ts []cc.Token, f *ir.Func) *ir.CtxForward {
	src := strip(ts)
	if len(src) < 12 || src[0] != "{" || src[1] != "struct" || src[2] != "verbs_context" || src[3] != "*" {
		return nil
	}
	v := src[4]
	if src[5] == ";" && src[6] == v { // declared, then assigned
		src = append(src[:5:5], src[7:]...)
	}
	if src[5] != "=" || src[6] != "(" {
		return nil
	}
	end := skipBalanced(src, 6)
	if end < 0 || src[end] != ";" {
		return nil
	}
	fw := &ir.CtxForward{}
	// The root: verbs_get_ctx ( p [-> m]... ) inside the statement expression.
	for i := 7; i+1 < end; i++ {
		if src[i] == "verbs_get_ctx" && src[i+1] == "(" {
			close := skipBalanced(src, i+1)
			arg := src[i+2 : close-1]
			if len(arg) == 0 || len(arg)%2 != 1 {
				return nil
			}
			fw.Root = arg[0]
			for j := 1; j+1 < len(arg); j += 2 {
				if arg[j] != "->" {
					return nil
				}
				fw.Path = append(fw.Path, arg[j+1])
			}
			break
		}
	}
	if fw.Root == "" {
		return nil
	}
	rest := src[end+1:]
	if len(rest) < 6 || rest[0] != "if" || rest[1] != "(" || rest[2] != "!" || rest[3] != v || rest[4] != ")" {
		return nil
	}
	after := -1
	if rest[5] == "{" {
		after = skipBalanced(rest, 5)
	} else {
		for i := 5; i < len(rest); i++ {
			if rest[i] == ";" {
				after = i + 1
				break
			}
		}
	}
	if after < 0 {
		return nil
	}
	body := rest[after:]
	fake := make([]string, 0, len(body)+1)
	fake = append(fake, "{")
	fake = append(fake, body...)
	fwd := forwardTokens(fake, f, v)
	if fwd == nil || len(fwd.Path) != 1 {
		return nil
	}
	fw.Op, fw.Return = fwd.Path[0], fwd.Return
	return fw
}
