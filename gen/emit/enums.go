package emit

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
)

// enums emits each owned tagged enum as a named integer type with its
// values and String (and, for flags, Has); anonymous enums become typed
// constants of their integer type.
func (e *Emitter) enums(f *jen.File) error {
	for _, en := range e.Pkg.Enums {
		if en.Foreign {
			continue
		}
		base, err := intName(en.Size, en.Signed)
		if err != nil {
			return fmt.Errorf("%s: %w", en.Key, err)
		}
		name, named := e.Names.Types[en.Key]
		typ := jen.Id(base)
		if named {
			typ = jen.Id(name)
			kind := "an enumeration"
			if en.Flags {
				kind = "a set of bit flags"
			}
			doc := fmt.Sprintf("%s is %s, C %s of %s.", name, kind, en.Key, en.File)
			if note := e.note("", en.In); note != "" {
				doc += " " + note
			}
			f.Comment(doc)
			f.Type().Id(name).Id(base)
			f.Line()
		}
		var defs []jen.Code
		for _, v := range en.Values {
			doc := fmt.Sprintf("%s is %s (%s).", e.Names.Vals[v.Name], v.Name, en.File)
			if note := e.note(v.Name, v.In); note != "" {
				doc += " " + note
			}
			defs = append(defs, jen.Comment(doc), jen.Id(e.Names.Vals[v.Name]).Add(typ).Op("=").Add(lit(v.Value, en.Signed, en.Flags)))
		}
		if named {
			f.Comment(fmt.Sprintf("Values of %s.", name))
		} else {
			f.Comment(fmt.Sprintf("Constants of the anonymous enum at %s:%d.", en.File, en.Line))
		}
		f.Const().Defs(defs...)
		f.Line()
		if named {
			e.stringer(f, en, name)
		}
	}
	return nil
}

// lit is an integer literal of the two's complement bits v: decimal, or
// hexadecimal for flags and for unsigned values of 2^63 and above.
func lit(v int64, signed, hex bool) jen.Code {
	switch {
	case signed:
		return jen.Id(strconv.FormatInt(v, 10))
	case hex || v < 0:
		return jen.Id("0x" + strconv.FormatUint(uint64(v), 16))
	}
	return jen.Id(strconv.FormatInt(v, 10))
}

// stringer emits String, and Has for flags.
func (e *Emitter) stringer(f *jen.File, en *ir.Enum, name string) {
	recv := jen.Id("v").Id(name)
	first := map[int64]bool{}
	if !en.Flags {
		var cases []jen.Code
		for _, v := range en.Values {
			if first[v.Value] {
				continue
			}
			first[v.Value] = true
			cases = append(cases, jen.Case(jen.Id(e.Names.Vals[v.Name])).Block(jen.Return(jen.Lit(v.Name))))
		}
		f.Comment("String returns the C name of the value, or the type and number for unknown values.")
		f.Func().Params(recv).Id("String").Params().String().Block(
			jen.Switch(jen.Id("v")).Block(cases...),
			jen.Return(jen.Lit(name+"(").Op("+").Qual("strconv", fmtFunc(en.Signed)).Call(conv(en.Signed), jen.Lit(10)).Op("+").Lit(")")),
		)
		f.Line()
		return
	}
	var bits []jen.Code
	zero := ""
	for _, v := range en.Values {
		u := uint64(v.Value)
		if u == 0 && zero == "" {
			zero = v.Name
		}
		if u == 0 || u&(u-1) != 0 || first[v.Value] {
			continue
		}
		first[v.Value] = true
		bits = append(bits, jen.Values(jen.Id(e.Names.Vals[v.Name]), jen.Lit(v.Name)))
	}
	zeroName := "0"
	if zero != "" {
		zeroName = zero
	}
	f.Comment("String returns the C names of the set bits joined by |, unknown bits in hex.")
	f.Func().Params(recv).Id("String").Params().String().Block(
		jen.If(jen.Id("v").Op("==").Lit(0)).Block(jen.Return(jen.Lit(zeroName))),
		jen.Var().Id("s").String(),
		jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Index().Struct(
			jen.Id("bit").Id(name), jen.Id("name").String(),
		).Values(bits...)).Block(
			jen.If(jen.Id("v").Op("&").Id("b").Dot("bit").Op("!=").Lit(0)).Block(
				jen.If(jen.Id("s").Op("!=").Lit("")).Block(jen.Id("s").Op("+=").Lit("|")),
				jen.Id("s").Op("+=").Id("b").Dot("name"),
				jen.Id("v").Op("&^=").Id("b").Dot("bit"),
			),
		),
		jen.If(jen.Id("v").Op("!=").Lit(0)).Block(
			jen.If(jen.Id("s").Op("!=").Lit("")).Block(jen.Id("s").Op("+=").Lit("|")),
			jen.Id("s").Op("+=").Lit("0x").Op("+").Qual("strconv", "FormatUint").Call(jen.Uint64().Call(jen.Id("v")), jen.Lit(16)),
		),
		jen.Return(jen.Id("s")),
	)
	f.Line()
	f.Comment("Has reports whether all bits of f are set in v.")
	f.Func().Params(recv).Id("Has").Params(jen.Id("f").Id(name)).Bool().Block(
		jen.Return(jen.Id("v").Op("&").Id("f").Op("==").Id("f")),
	)
	f.Line()
}

func fmtFunc(signed bool) string {
	if signed {
		return "FormatInt"
	}
	return "FormatUint"
}

func conv(signed bool) jen.Code {
	if signed {
		return jen.Int64().Call(jen.Id("v"))
	}
	return jen.Uint64().Call(jen.Id("v"))
}
