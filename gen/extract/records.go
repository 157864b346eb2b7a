package extract

import (
	"fmt"
	"modernc.org/token"

	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/ir"
)

// recordKey names a struct or union type: "struct tag", a typedef name for a
// typedef'd anonymous record, or the key its parent assigned.
func (x *extractor) recordKey(t cc.Type) (key, tag string, at token.Position, err error) {
	var tk cc.Token
	kw := "struct"
	switch r := t.(type) {
	case *cc.StructType:
		tk = r.Tag()
	case *cc.UnionType:
		tk, kw = r.Tag(), "union"
	default:
		return "", "", at, fmt.Errorf("not a record: %s", t)
	}
	if tag = tk.SrcStr(); tag != "" {
		return kw + " " + tag, tag, tk.Position(), nil
	}
	if k, ok := x.anon[t]; ok {
		return k, "", at, nil
	}
	if td := t.Typedef(); td != nil {
		return td.Name(), "", td.Position(), nil
	}
	return "", "", at, fmt.Errorf("anonymous %s outside a declaration", kw)
}

// record registers struct/union type t and returns its key. Records declared
// in owned headers get their fields; others become opaque sized types.
func (x *extractor) record(t cc.Type, parent string, at token.Position) (string, error) {
	key, tag, tagAt, err := x.recordKey(t)
	if err != nil {
		return "", err
	}
	if _, ok := x.structs[key]; ok {
		return key, nil
	}
	if tagAt.Filename != "" {
		at = tagAt
	}
	s := &ir.Struct{
		Key:    key,
		Tag:    tag,
		Union:  t.Kind() == cc.Union,
		Parent: parent,
		File:   x.file(at.Filename),
		Line:   at.Line,
		In:     []ir.Version{x.v},
		SizeIn: map[ir.Version]int64{},
	}
	if parent != "" {
		ps := x.structs[parent]
		s.File, s.Line = ps.File, ps.Line
	}
	x.structs[key] = s
	seq := len(x.order)
	x.order[key] = pos{s.File, s.Line, at.Column, seq}
	if parent != "" {
		po := x.order[parent]
		x.order[key] = pos{po.file, po.line, po.col, seq}
	}
	if t.IsIncomplete() {
		s.Opaque = true
		s.Foreign = parent == "" && !x.p.Owned(at.Filename)
		return key, nil
	}
	s.Size, s.Align = t.Size(), int64(t.Align())
	s.SizeIn[x.v] = s.Size
	if parent == "" && !x.p.Owned(at.Filename) {
		s.Foreign = true
		return key, nil
	}
	return key, x.fields(s, t, at)
}

type fielder interface {
	NumFields() int
	FieldByIndex(int) *cc.Field
}

func (x *extractor) fields(s *ir.Struct, t cc.Type, at token.Position) error {
	r, ok := t.(fielder)
	if !ok {
		return fmt.Errorf("%s: no fields", s.Key)
	}
	anon := 0
	for i := 0; i < r.NumFields(); i++ {
		f := r.FieldByIndex(i)
		ft := f.Type()
		if f.Name() == "" && (ft.Kind() == cc.Struct || ft.Kind() == cc.Union) {
			if _, _, _, err := x.recordKey(ft); err != nil {
				x.anon[ft] = fmt.Sprintf("%s::%d", s.Key, anon)
			}
			anon++
		} else if ft.Kind() == cc.Struct || ft.Kind() == cc.Union {
			if _, _, _, err := x.recordKey(ft); err != nil {
				x.anon[ft] = s.Key + "::" + f.Name()
			}
		}
		it, err := x.typ(ft, s.Key, at)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", s.Key, f.Name(), err)
		}
		fd := &ir.Field{Name: f.Name(), Type: it, Offset: f.Offset(), Flex: f.IsFlexibleArrayMember(), In: []ir.Version{x.v}}
		if f.IsBitfield() {
			fd.Bits = int(f.ValueBits())
		}
		s.Fields = append(s.Fields, fd)
	}
	return nil
}
