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
	}
}

// forward recognises `{ [return] p->a->b.fn(p1, ..., pn); }` where p is a
// parameter and p1..pn are all the parameters in order. cc puts the
// implicit `static const char __func__[] = "...";` first; it is skipped.
func forward(ts []cc.Token, f *ir.Func) *ir.Forward {
	src := make([]string, 0, len(ts))
	for i := range ts {
		src = append(src, ts[i].SrcStr())
	}
	if len(src) > 2 && src[1] == "static" {
		for i, s := range src {
			if s == ";" {
				src = append([]string{"{"}, src[i+1:]...)
				break
			}
		}
	}
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
	root := false
	for _, p := range f.Params {
		root = root || p.Name == fw.Root
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
