package extract

import (
	"fmt"
	"modernc.org/token"

	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/ir"
)

// typ converts a cc type, registering the records and enums it names. parent
// is the key of the record being laid out (for anonymous nested records).
func (x *extractor) typ(t cc.Type, parent string, at token.Position) (ir.Type, error) {
	r := ir.Type{Size: t.Size(), Align: int64(t.Align()), C: cname(t), Const: t.Attributes().IsConst()}
	switch k := t.Kind(); k {
	case cc.Void:
		r.Kind = ir.Void
	case cc.Bool:
		r.Kind = ir.Bool
	case cc.Char, cc.SChar, cc.UChar, cc.Short, cc.UShort, cc.Int, cc.UInt, cc.Long, cc.ULong, cc.LongLong, cc.ULongLong:
		r.Kind, r.Signed, r.Char = ir.Int, cc.IsSignedInteger(t), k == cc.Char
	case cc.Float, cc.Double:
		r.Kind = ir.Float
	case cc.Enum:
		et, ok := t.(*cc.EnumType)
		if !ok {
			return r, fmt.Errorf("enum kind of %T", t)
		}
		r.Kind, r.Ref, r.Signed = ir.EnumRef, x.enum(et), cc.IsSignedInteger(et.UnderlyingType())
	case cc.Ptr:
		pt := t.(*cc.PointerType)
		if e := pt.Elem(); e.Kind() == cc.Function {
			r.Kind = ir.FuncPtr
			if ft, ok := e.(*cc.FunctionType); ok {
				sig, err := x.sig(ft, parent, at)
				if err != nil {
					return r, err
				}
				r.Sig = sig
			}
			return r, nil
		}
		el, err := x.typ(pt.Elem(), parent, at)
		if err != nil {
			return r, err
		}
		r.Kind, r.Elem = ir.Pointer, &el
	case cc.Function:
		r.Kind, r.Size, r.Align = ir.FuncPtr, 8, 8
	case cc.Array:
		at2 := t.(*cc.ArrayType)
		el, err := x.typ(at2.Elem(), parent, at)
		if err != nil {
			return r, err
		}
		r.Kind, r.Elem, r.Len = ir.Array, &el, at2.Len()
		if r.Len < 0 {
			r.Len = 0
		}
	case cc.Struct, cc.Union:
		key, err := x.record(t, parentFor(x, t, parent), at)
		if err != nil {
			return r, err
		}
		r.Kind, r.Ref = ir.Record, key
		if s := x.structs[key]; s.Opaque {
			r.Size, r.Align = 0, 1
		}
	default:
		return r, fmt.Errorf("unsupported C type %s (%s)", t, k)
	}
	return r, nil
}

// parentFor returns parent when t is an anonymous record its parent named,
// and "" for records with their own tag or typedef.
func parentFor(x *extractor, t cc.Type, parent string) string {
	if _, ok := x.anon[t]; ok {
		return parent
	}
	return ""
}

// cname is the C spelling of t: its typedef name when it has one.
func cname(t cc.Type) string {
	if td := t.Typedef(); td != nil {
		return td.Name()
	}
	return t.String()
}

// sig converts the signature of a function type.
func (x *extractor) sig(ft *cc.FunctionType, parent string, at token.Position) (*ir.Sig, error) {
	ret, err := x.typ(ft.Result(), parent, at)
	if err != nil {
		return nil, err
	}
	s := &ir.Sig{Ret: ret, Variadic: ft.IsVariadic()}
	for _, p := range ft.Parameters() {
		pt, err := x.typ(p.Type(), parent, at)
		if err != nil {
			return nil, err
		}
		if pt.Kind != ir.Void {
			s.Params = append(s.Params, pt)
		}
	}
	return s, nil
}
