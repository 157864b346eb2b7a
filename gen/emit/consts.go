package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// consts emits the integer macros as typed constants of their C type.
func (e *Emitter) consts(f *jen.File) error {
	if len(e.Pkg.Consts) == 0 {
		return nil
	}
	var defs []jen.Code
	for _, c := range e.Pkg.Consts {
		t, err := intName(c.Size, c.Signed)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		doc := fmt.Sprintf("%s is the macro %s (%s).", e.Names.Vals[c.Name], c.Name, c.File)
		if note := e.note(c.Name, c.In); note != "" {
			doc += " " + note
		}
		defs = append(defs, jen.Comment(doc), jen.Id(e.Names.Vals[c.Name]).Id(t).Op("=").Add(lit(c.Value, c.Signed, false)))
	}
	f.Comment("Integer macros.")
	f.Const().Defs(defs...)
	return nil
}
