package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
)

// listType is the name of the type a binding returning a C array with a
// release function (ibv_get_device_list, ibv_free_device_list) returns:
// its element's Go name and "List" (DeviceList).
func (e *Emitter) listType(a apiFunc) (string, error) {
	el := a.fn.Ret.Elem
	if el == nil || el.Kind != ir.Pointer || el.Elem == nil || el.Elem.Kind != ir.Record {
		return "", fmt.Errorf("a listed array holds pointers to records, not %s", a.fn.Ret.C)
	}
	n := e.Names.Types[el.Elem.Ref]
	if n == "" {
		for _, d := range e.Names.deps {
			if n = d.Types[el.Elem.Ref]; n != "" {
				break
			}
		}
	}
	if n == "" {
		return "", fmt.Errorf("no Go type for %s", el.Elem.Ref)
	}
	return n + "List", nil
}

// listTypes emits the list type of every binding that returns one: the
// entries, kept until Close releases the C array. The C library's own
// rule holds: ibv_get_device_list(3) says pointers to devices not opened
// before ibv_free_device_list are no longer valid after it, so the array
// lives until Close, not until the binding returns.
func (e *Emitter) listTypes(f *jen.File, fs []apiFunc, links map[string]string) error {
	done := map[string]bool{}
	for _, a := range fs {
		if a.shape.free == nil {
			continue
		}
		lt, err := e.listType(a)
		if err != nil {
			return fmt.Errorf("%s: %w", a.sf.Name, err)
		}
		if done[lt] {
			continue
		}
		done[lt] = true
		et, err := e.goParam(*a.fn.Ret.Elem)
		if err != nil {
			return err
		}
		free := a.shape.free.Name
		binding := links[a.sf.Name]
		f.Comment(fmt.Sprintf("%s is the array %s (%s) returns, from [%s]: its entries stay valid until Close releases it (%s). Open or take what is needed before Close; the C library's page says entries not opened by then are no longer valid. A %s is not safe for concurrent use.", lt, a.sf.Name, a.fn.File, binding, free, lt))
		f.Type().Id(lt).Struct(
			jen.Id("c").Op("*").Add(et),
			jen.Id("all").Index().Add(et),
		)
		f.Line()
		f.Comment("All returns the entries, in C's order (a copy of the array; the entries themselves are C's, valid until Close). nil after Close.")
		f.Func().Params(jen.Id("l").Op("*").Id(lt)).Id("All").Params().Index().Add(et).Block(
			jen.If(jen.Id("l").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Return(jen.Id("l").Dot("all")),
		)
		f.Line()
		f.Comment("Len is the number of entries (0 after Close).")
		f.Func().Params(jen.Id("l").Op("*").Id(lt)).Id("Len").Params().Int().Block(
			jen.If(jen.Id("l").Op("==").Nil()).Block(jen.Return(jen.Lit(0))),
			jen.Return(jen.Len(jen.Id("l").Dot("all"))),
		)
		f.Line()
		f.Comment(fmt.Sprintf("Close releases the array (%s); a second Close, or Close of a nil list, does nothing. It returns the error of a library that could not be loaded, and nil otherwise (%s returns nothing).", free, free))
		f.Func().Params(jen.Id("l").Op("*").Id(lt)).Id("Close").Params().Error().Block(
			jen.If(jen.Id("l").Op("==").Nil().Op("||").Id("l").Dot("c").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.List(jen.Id("_"), jen.Id("err")).Op(":=").Id("c_"+free).Call(jen.Id("l").Dot("c")),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Id("err"))),
			jen.List(jen.Id("l").Dot("c"), jen.Id("l").Dot("all")).Op("=").List(jen.Nil(), jen.Nil()),
			jen.Return(jen.Nil()),
		)
		f.Line()
	}
	return nil
}
