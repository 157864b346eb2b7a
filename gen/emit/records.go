package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
)

// records emits every local, non-foreign record of the package.
func (e *Emitter) records(f *jen.File) error {
	for _, s := range e.Pkg.Structs {
		if s.Foreign {
			continue
		}
		var err error
		switch {
		case s.Opaque:
			e.opaque(f, s)
		case s.Union:
			err = e.union(f, s)
		default:
			err = e.strct(f, s)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.Key, err)
		}
		f.Line()
	}
	return nil
}

// recordDoc is the doc comment of a record's Go type.
func (e *Emitter) recordDoc(s *ir.Struct, name, what string) string {
	c := s.Key
	if s.Parent != "" {
		kw := "struct"
		if s.Union {
			kw = "union"
		}
		c = "the anonymous " + kw + " at " + strings.ReplaceAll(strings.SplitN(s.Key, " ", 2)[1], "::", ".")
	}
	doc := fmt.Sprintf("%s mirrors %s of %s %s", name, c, s.File, what)
	if note := e.note("", s.In); note != "" {
		doc += " " + note
	}
	for _, v := range e.Pkg.Versions {
		if sz, ok := s.SizeIn[v]; ok && sz != s.Size {
			doc += fmt.Sprintf(" rdma-core %s declares it in %d bytes.", v, sz)
		}
		for _, f := range s.Fields {
			if _, ok := f.OffsetIn[v]; ok {
				doc += fmt.Sprintf(" In rdma-core %s its members lie at other offsets (checked by the layout test too): use it only with the newest.", v)
				break
			}
		}
	}
	return doc
}

// opaque emits an incomplete C type, used only through pointers.
func (e *Emitter) opaque(f *jen.File, s *ir.Struct) {
	name := e.Names.Types[s.Key]
	f.Comment(e.recordDoc(s, name, "(an incomplete type: only pointers to it exist)."))
	f.Type().Id(name).Struct(jen.Id("_").Qual("structs", "HostLayout"))
}

// strct emits a struct with its C layout: members in order, explicit
// padding wherever Go's natural alignment would place a member elsewhere,
// anonymous members embedded so that their members or accessors promote.
func (e *Emitter) strct(f *jen.File, s *ir.Struct) error {
	name := e.Names.Types[s.Key]
	fields := []jen.Code{jen.Id("_").Qual("structs", "HostLayout")}
	var cur, maxAlign int64 = 0, 1
	pads := 0
	seen := map[string]bool{}
	var flex []*ir.Field
	for _, fd := range s.Fields {
		if fd.Bits != 0 {
			return fmt.Errorf("member %s: bit-fields are not supported yet", fd.Name)
		}
		if fd.Flex {
			// Past the end of the Go struct: a trailing zero-size Go field
			// would grow it, so the member is an accessor (flexAccessor).
			flex = append(flex, fd)
			continue
		}
		a := fd.Type.Align
		packed := packedScalar(s, fd)
		if packed {
			a = 1
		}
		if a > maxAlign {
			maxAlign = a
		}
		if at := alignUp(cur, a); at != fd.Offset {
			if fd.Offset < at {
				return fmt.Errorf("member %s at offset %d before Go's aligned offset %d (packed layout)", fd.Name, fd.Offset, at)
			}
			fields = append(fields, jen.Id("_").Index(jen.Lit(int(fd.Offset-cur))).Byte())
			pads++
		}
		gt, err := e.Names.goType(fd.Type)
		if err != nil {
			return fmt.Errorf("member %s: %w", fd.Name, err)
		}
		doc := "C: " + e.cDecl(fd.Type, fd.Name)
		if fd.Name == "" {
			doc = "C: anonymous " + e.cType(fd.Type) + " member"
		}
		if packed {
			// Go cannot place the integer where the packed C record does:
			// the member is its bytes, in memory order.
			gt = jen.Index(jen.Lit(int(fd.Type.Size))).Byte()
			doc += fmt.Sprintf(", packed at offset %d: its %d bytes in memory order", fd.Offset, fd.Type.Size)
		}
		if note := e.note(declKey(s.Key, fd.Name), fd.In); note != "" {
			doc += ". " + note
		}
		fields = append(fields, jen.Comment(doc))
		if fd.Name == "" {
			fields = append(fields, gt)
		} else {
			g := naming.Camel(fd.Name)
			if seen[g] {
				return fmt.Errorf("two members named %s in Go", g)
			}
			seen[g] = true
			fields = append(fields, jen.Id(g).Add(gt))
		}
		cur = fd.Offset + fd.Type.Size
	}
	if s.Align > maxAlign {
		at, err := alignType(s.Align)
		if err != nil {
			return err
		}
		fields = append([]jen.Code{fields[0], jen.Id("_").Index(jen.Lit(0)).Id(at)}, fields[1:]...)
	}
	if cur < s.Size && alignUp(cur, s.Align) != s.Size {
		fields = append(fields, jen.Id("_").Index(jen.Lit(int(s.Size-cur))).Byte())
		pads++
	}
	e.padded[s.Key] = pads > 0
	f.Comment(e.recordDoc(s, name, "with the same size, alignment and member offsets."))
	f.Type().Id(name).Struct(fields...)
	for _, fd := range flex {
		if err := e.flexAccessor(f, s, name, fd); err != nil {
			return err
		}
	}
	return nil
}

// packedScalar reports an integer member of a packed record that Go's
// alignment of its type cannot place at its C offset (__be16
// dci_stream_channel_id at offset 9 of struct mlx5_wqe_ctrl_seg), or whose
// alignment exceeds the record's: it is emitted as a byte array of its size.
func packedScalar(s *ir.Struct, fd *ir.Field) bool {
	a := fd.Type.Align
	if a <= 1 || fd.Type.Kind != ir.Int && fd.Type.Kind != ir.EnumRef {
		return false
	}
	return fd.Offset%a != 0 || a > s.Align
}

// flexAccessor emits the method of a flexible array member (T m[] or the
// GNU T m[0]): the first n elements from the member's C offset, which the
// layout test checks. The memory past the record is the caller's (a WQE
// buffer, a C allocation of the right size).
func (e *Emitter) flexAccessor(f *jen.File, s *ir.Struct, name string, fd *ir.Field) error {
	if fd.Type.Kind != ir.Array || fd.Type.Elem == nil || fd.Name == "" {
		return fmt.Errorf("member %s: a flexible array member that is not a named array", fd.Name)
	}
	et, err := e.Names.goType(*fd.Type.Elem)
	if err != nil {
		return fmt.Errorf("member %s: %w", fd.Name, err)
	}
	m := naming.Camel(fd.Name)
	f.Comment(fmt.Sprintf("%s returns the first n elements of the flexible array member %s (C: %s), which lie at offset %d of the record and past it: the memory there must hold them.",
		m, fd.Name, e.cDecl(fd.Type, fd.Name), fd.Offset))
	f.Func().Params(jen.Id(naming.Receiver(name)).Op("*").Id(name)).Id(m).Params(jen.Id("n").Int()).Index().Add(et).Block(
		jen.Return(jen.Qual("unsafe", "Slice").Call(
			jen.Parens(jen.Op("*").Add(et)).Call(jen.Qual("unsafe", "Add").Call(jen.Qual("unsafe", "Pointer").Call(jen.Id(naming.Receiver(name))), jen.Lit(int(fd.Offset)))),
			jen.Id("n"))),
	)
	return nil
}

// union emits a union as bytes of its size and alignment (a named field, so
// that == compares them), with one accessor per member returning a pointer
// to it.
func (e *Emitter) union(f *jen.File, s *ir.Struct) error {
	name := e.Names.Types[s.Key]
	at, err := alignType(s.Align)
	if err != nil {
		return err
	}
	fields := []jen.Code{jen.Id("_").Qual("structs", "HostLayout")}
	if at != "" {
		fields = append(fields, jen.Id("_").Index(jen.Lit(0)).Id(at))
	}
	// The bytes are a named field, not a blank one: == on structs ignores
	// blank fields, and would find any two unions equal.
	fields = append(fields, jen.Id("b").Index(jen.Lit(int(s.Size))).Byte())
	f.Comment(e.recordDoc(s, name, "with the same size and alignment; its members are reached through accessor methods, and == compares its bytes."))
	f.Type().Id(name).Struct(fields...)
	anon := 0
	for _, fd := range s.Fields {
		if fd.Bits != 0 || fd.Flex {
			return fmt.Errorf("member %s: flexible arrays and bit-fields are not supported yet", fd.Name)
		}
		gt, err := e.Names.goType(fd.Type)
		if err != nil {
			return fmt.Errorf("member %s: %w", fd.Name, err)
		}
		m := naming.Camel(fd.Name)
		what := "member " + fd.Name
		if fd.Name == "" {
			m = fmt.Sprintf("Anon%d", anon)
			what = "anonymous member"
			anon++
		}
		note := e.note(declKey(s.Key, fd.Name), fd.In)
		if fd.Type.Kind == ir.Pointer || fd.Type.Kind == ir.FuncPtr {
			// A pointer member: its value and a setter, not a pointer to a
			// pointer.
			doc := fmt.Sprintf("%s returns the %s (C: %s) of the union.", m, what, e.cType(fd.Type))
			if note != "" {
				doc += " " + note
			}
			f.Comment(doc)
			f.Func().Params(jen.Id("u").Op("*").Id(name)).Id(m).Params().Add(gt).Block(
				jen.Return(jen.Op("*").Parens(jen.Op("*").Add(gt)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("u")))),
			)
			f.Comment(fmt.Sprintf("Set%s sets the %s (C: %s) of the union.", m, what, e.cType(fd.Type)))
			f.Func().Params(jen.Id("u").Op("*").Id(name)).Id("Set" + m).Params(jen.Id("v").Add(gt)).Block(
				jen.Op("*").Parens(jen.Op("*").Add(gt)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("u"))).Op("=").Id("v"),
			)
			continue
		}
		doc := fmt.Sprintf("%s returns the %s (C: %s) of the union.", m, what, e.cType(fd.Type))
		if note != "" {
			doc += " " + note
		}
		f.Comment(doc)
		f.Func().Params(jen.Id("u").Op("*").Id(name)).Id(m).Params().Op("*").Add(gt).Block(
			jen.Return(jen.Parens(jen.Op("*").Add(gt)).Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("u")))),
		)
	}
	return nil
}

func alignUp(n, a int64) int64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}
