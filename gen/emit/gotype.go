package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
)

// intName is the Go integer type of a C integer of size bytes.
func intName(size int64, signed bool) (string, error) {
	var s string
	switch size {
	case 1:
		s = "int8"
	case 2:
		s = "int16"
	case 4:
		s = "int32"
	case 8:
		s = "int64"
	default:
		return "", fmt.Errorf("no Go integer of %d bytes", size)
	}
	if !signed {
		s = "u" + s
	}
	return s, nil
}

// alignType is the Go type whose zero-length array forces alignment a.
func alignType(a int64) (string, error) {
	switch a {
	case 1:
		return "", nil
	case 2, 4, 8:
		return intName(a, false)
	}
	return "", fmt.Errorf("unsupported alignment %d", a)
}

// goType returns the Go type of an IR type.
func (n *Names) goType(t ir.Type) (jen.Code, error) {
	switch t.Kind {
	case ir.Bool:
		return jen.Bool(), nil
	case ir.Int:
		if t.Char {
			return jen.Byte(), nil
		}
		s, err := intName(t.Size, t.Signed)
		return jen.Id(s), err
	case ir.Float:
		if t.Size == 4 {
			return jen.Float32(), nil
		}
		return jen.Float64(), nil
	case ir.FuncPtr:
		return jen.Qual("unsafe", "Pointer"), nil
	case ir.Pointer:
		if t.Elem.Kind == ir.Void {
			return jen.Qual("unsafe", "Pointer"), nil
		}
		if t.Elem.Kind == ir.FuncPtr {
			return jen.Op("*").Qual("unsafe", "Pointer"), nil
		}
		e, err := n.goType(*t.Elem)
		if err != nil {
			return nil, err
		}
		return jen.Op("*").Add(e), nil
	case ir.Array:
		e, err := n.goType(*t.Elem)
		if err != nil {
			return nil, err
		}
		return jen.Index(jen.Lit(int(t.Len))).Add(e), nil
	case ir.Record:
		path, name, ok := n.Type(t.Ref)
		if !ok {
			return nil, fmt.Errorf("no Go type for %s", t.Ref)
		}
		return qual(path, name), nil
	case ir.EnumRef:
		if path, name, ok := n.Type(t.Ref); ok {
			return qual(path, name), nil
		}
		s, err := intName(t.Size, t.Signed)
		return jen.Id(s), err
	}
	return nil, fmt.Errorf("no Go type for C %s", t.C)
}

// qual references a Go type: local when path is empty.
func qual(path, name string) *jen.Statement {
	if path == "" {
		return jen.Id(name)
	}
	return jen.Qual(path, name)
}
