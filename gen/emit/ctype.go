package emit

import (
	"fmt"
	"strings"

	"github.com/goverbs/goverbs/gen/ir"
)

// cType spells an IR type in C for doc comments.
func (e *Emitter) cType(t ir.Type) string {
	switch t.Kind {
	case ir.Pointer:
		if c := e.cType(*t.Elem); strings.HasSuffix(c, "*") {
			return c + "*"
		}
		return e.cType(*t.Elem) + " *"
	case ir.Array:
		return fmt.Sprintf("%s[%d]", e.cType(*t.Elem), t.Len)
	case ir.FuncPtr:
		if t.Sig == nil {
			return "function pointer"
		}
		var ps []string
		for _, p := range t.Sig.Params {
			ps = append(ps, e.cType(p))
		}
		if t.Sig.Variadic {
			ps = append(ps, "...")
		}
		if len(ps) == 0 {
			ps = []string{"void"}
		}
		return fmt.Sprintf("%s (*)(%s)", e.cType(t.Sig.Ret), strings.Join(ps, ", "))
	case ir.Record:
		if strings.Contains(t.Ref, "::") {
			if s := e.Pkg.Struct(t.Ref); s != nil && s.Union {
				return "union {...}"
			}
			return "struct {...}"
		}
		return t.Ref
	case ir.EnumRef:
		if strings.HasPrefix(t.Ref, "enum {") {
			return "enum {...}"
		}
		return t.Ref
	case ir.Void:
		return "void"
	}
	return t.C
}

// cDecl spells a C member or parameter declaration.
func (e *Emitter) cDecl(t ir.Type, name string) string {
	if t.Kind == ir.FuncPtr && t.Sig != nil {
		return strings.Replace(e.cType(t), "(*)", "(*"+name+")", 1)
	}
	c := e.cType(t)
	if strings.HasSuffix(c, "*") {
		return c + name
	}
	return c + " " + name
}
