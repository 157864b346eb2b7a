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
	}
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
