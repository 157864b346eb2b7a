package emit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
)

// LayoutTest is the import path of the layout test harness.
const LayoutTest = Module + "/internal/layouttest"

// layoutTest emits zlayout_test.go: the Go side of every record (size,
// alignment, member offsets and sizes, read with unsafe from the generated
// types) and every constant's value, handed to the harness that compiles
// the C side against each input version with gcc and compares.
//
// The file builds without the rxe tag only: the proof needs gcc and the
// pinned headers of the host, which the rxe guest roots lack, and the rxe
// runs of a package test the device, not the layout.
func (e *Emitter) layoutTest(f *jen.File) error {
	f.HeaderComment("//go:build !rxe")
	lt := func(s string) *jen.Statement { return jen.Qual(LayoutTest, s) }
	body := []jen.Code{
		jen.Id("tb").Op(":=").Op("&").Add(lt("Table")).Values(jen.Dict{
			jen.Id("Package"): jen.Lit(e.Pkg.Name),
			jen.Id("Headers"): e.headers(lt),
		}),
	}
	for _, s := range e.Pkg.Structs {
		name, ok := e.Names.Types[s.Key]
		if !ok || s.Opaque || s.Parent != "" {
			continue
		}
		var fields []jen.Code
		if !s.Foreign {
			var err error
			if fields, err = e.fieldEntries(s, "", "(*v)", lt); err != nil {
				return fmt.Errorf("%s: %w", s.Key, err)
			}
		}
		body = append(body, jen.Block(
			// On the heap, where it cannot move between two of the
			// addresses whose differences are the offsets (layouttest.New).
			jen.Id("v").Op(":=").Add(lt("New")).Types(jen.Id(name)).Call(),
			jen.Id("b").Op(":=").Uintptr().Call(jen.Qual("unsafe", "Pointer").Call(jen.Id("v"))),
			jen.Id("_").Op("=").Id("b"),
			jen.Id("tb").Dot("Records").Op("=").Append(jen.Id("tb").Dot("Records"), lt("Record").Values(jen.Dict{
				jen.Id("C"):        jen.Lit(s.Key),
				jen.Id("In"):       versions(s.In),
				jen.Id("Size"):     jen.Qual("unsafe", "Sizeof").Call(jen.Op("*").Id("v")),
				jen.Id("Align"):    jen.Qual("unsafe", "Alignof").Call(jen.Op("*").Id("v")),
				jen.Id("SizeDiff"): sizeDiff(s),
				jen.Id("Fields"):   jen.Index().Add(lt("Field")).Values(fields...),
			})),
		))
	}
	var consts []jen.Code
	for _, en := range e.Pkg.Enums {
		if en.Foreign {
			continue
		}
		for _, v := range en.Values {
			consts = append(consts, constEntry(v.Name, e.Names.Vals[v.Name], v.In, lt))
		}
	}
	for _, c := range e.Pkg.Consts {
		consts = append(consts, constEntry(c.Name, e.Names.Vals[c.Name], c.In, lt))
	}
	body = append(body,
		jen.Id("tb").Dot("Consts").Op("=").Index().Add(lt("Const")).Values(consts...),
		jen.Return(jen.Id("tb")),
	)
	f.Comment("TestLayout compares the generated types and constants with the C headers of every input version, compiled by gcc.")
	f.Func().Id("TestLayout").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		lt("Run").Call(jen.Id("t"), jen.Id("layoutTable").Call()),
	)
	f.Line()
	f.Comment("layoutTable is the Go side of the layout test.")
	f.Func().Id("layoutTable").Params().Op("*").Add(lt("Table")).Block(body...)
	return nil
}

func (e *Emitter) headers(lt func(string) *jen.Statement) jen.Code {
	var hs []jen.Code
	for _, h := range e.Pkg.Headers {
		hs = append(hs, jen.Values(jen.Dict{jen.Id("Path"): jen.Lit(h.Path), jen.Id("In"): versions(h.In)}))
	}
	return jen.Index().Add(lt("Header")).Values(hs...)
}

func versions(vs []ir.Version) jen.Code {
	var c []jen.Code
	for _, v := range vs {
		c = append(c, jen.Lit(string(v)))
	}
	return jen.Index().String().Values(c...)
}

func constEntry(c, g string, in []ir.Version, lt func(string) *jen.Statement) jen.Code {
	return jen.Values(jen.Dict{
		jen.Id("C"):     jen.Lit(c),
		jen.Id("In"):    versions(in),
		jen.Id("Value"): lt("Bits").Call(jen.Id(g)),
	})
}

// fieldEntries lists the members of s reachable by a C member designator
// from the top-level record: cPath prefixes the designator, val is the
// addressable Go expression of s. Members of anonymous nested records are
// listed through their parent, as offsetof(struct ibv_send_wr,
// wr.rdma.remote_addr) reaches them in C.
func (e *Emitter) fieldEntries(s *ir.Struct, cPath, val string, lt func(string) *jen.Statement) ([]jen.Code, error) {
	return e.fieldEntriesIn(s, s, 0, cPath, val, lt, false)
}

// fieldEntriesIn is fieldEntries for s at offset base of the top-level
// record top; inUnion says s lies inside a union.
func (e *Emitter) fieldEntriesIn(top, s *ir.Struct, base int64, cPath, val string, lt func(string) *jen.Statement, inUnion bool) ([]jen.Code, error) {
	inUnion = inUnion || s.Union
	var out []jen.Code
	anon := 0
	for _, fd := range s.Fields {
		var gval, gptr, cp string
		switch {
		case fd.Name == "" && s.Union:
			gptr = fmt.Sprintf("%s.Anon%d()", val, anon)
			anon++
		case fd.Name == "":
			name, ok := e.Names.Types[fd.Type.Ref]
			if !ok {
				return nil, fmt.Errorf("anonymous member of unnamed type %s", fd.Type.Ref)
			}
			gval = val + "." + name
		case s.Union && (fd.Type.Kind == ir.Pointer || fd.Type.Kind == ir.FuncPtr):
			// The accessor returns the value: the member lies at the union's start.
			gptr = "&" + val
			if val == "v" {
				gptr = val // the top-level record: v is a pointer to it
			}
			gval = fmt.Sprintf("%s.%s()", val, naming.Camel(fd.Name))
			cp = cPath + fd.Name
		case s.Union:
			gptr = fmt.Sprintf("%s.%s()", val, naming.Camel(fd.Name))
			cp = cPath + fd.Name
		case fd.Flex:
			out = append(out, jen.Values(jen.Dict{
				jen.Id("C"):          jen.Lit(cPath + fd.Name),
				jen.Id("In"):         versions(fd.In),
				jen.Id("Offset"):     jen.Uintptr().Call(jen.Qual("unsafe", "Pointer").Call(jen.Qual("unsafe", "SliceData").Call(jen.Id(val + "." + naming.Camel(fd.Name)).Call(jen.Lit(0))))).Op("-").Id("b"),
				jen.Id("OffsetDiff"): diffs(fd.OffsetIn, fd.Offset),
				jen.Id("Flex"):       jen.True(),
			}))
			continue
		default:
			gval = val + "." + naming.Camel(fd.Name)
			cp = cPath + fd.Name
		}
		switch {
		case gptr == "":
			gptr = "&" + gval
		case gval == "":
			gval = "(*" + gptr + ")"
		}
		if fd.Name != "" {
			d := jen.Dict{
				jen.Id("C"):          jen.Lit(cp),
				jen.Id("In"):         versions(fd.In),
				jen.Id("Offset"):     jen.Uintptr().Call(jen.Qual("unsafe", "Pointer").Call(jen.Id(gptr))).Op("-").Id("b"),
				jen.Id("Size"):       jen.Qual("unsafe", "Sizeof").Call(jen.Id(gval)),
				jen.Id("OffsetDiff"): diffs(fd.OffsetIn, fd.Offset),
				jen.Id("SizeDiff"):   diffs(fd.SizeIn, fd.Type.Size),
			}
			if inUnion && newInside(top, fd, base+fd.Offset) {
				d[jen.Id("InUnion")] = jen.True()
			}
			out = append(out, jen.Values(d))
		}
		if fd.Type.Kind == ir.Record && strings.Contains(fd.Type.Ref, "::") {
			child := e.Pkg.Struct(fd.Type.Ref)
			if child == nil {
				return nil, fmt.Errorf("no record %s", fd.Type.Ref)
			}
			prefix := cPath
			if fd.Name != "" {
				prefix = cp + "."
			}
			sub, err := e.fieldEntriesIn(top, child, base+fd.Offset, prefix, gval, lt, inUnion)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// newInside reports a member at offset off of top that some release
// declaring top in fewer bytes lacks, and that lies inside top's size there:
// the layout test accepts that only of a union's new alternative
// (Field.InUnion).
func newInside(top *ir.Struct, fd *ir.Field, off int64) bool {
	for _, v := range top.In {
		if size, ok := top.SizeIn[v]; ok && size < top.Size && off < size && !slices.Contains(fd.In, v) {
			return true
		}
	}
	return false
}

// sizeDiff lists, for the versions where the C size of s differs from
// the newest, the difference (older minus newest); nil when none. Storing
// differences, not sizes, keeps the table valid on every architecture: the
// members that changed are not the architecture-dependent ones.
func sizeDiff(s *ir.Struct) jen.Code {
	m := map[ir.Version]int64{}
	for v, sz := range s.SizeIn {
		if sz != s.Size {
			m[v] = sz
		}
	}
	return diffs(m, s.Size)
}

// diffs renders the differences of per-version values from base; nil when
// there are none.
func diffs(m map[ir.Version]int64, base int64) jen.Code {
	if len(m) == 0 {
		return jen.Nil()
	}
	d := jen.Dict{}
	for v, o := range m {
		d[jen.Lit(string(v))] = jen.Lit(int(o - base))
	}
	return jen.Map(jen.String()).Int().Values(d)
}
