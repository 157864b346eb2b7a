package extract

import (
	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/ir"
)

// function records a function declared or defined (static inline) in an
// owned header.
func (x *extractor) function(d *cc.Declarator, ft *cc.FunctionType) error {
	for _, f := range x.pkg.Funcs {
		if f.Name == d.Name() {
			f.Inline = f.Inline || d.IsFuncDef()
			return nil
		}
	}
	at := d.Position()
	ret, err := x.typ(ft.Result(), "", at)
	if err != nil {
		return err
	}
	f := &ir.Func{
		Name:     d.Name(),
		Ret:      ret,
		Variadic: ft.IsVariadic(),
		Inline:   d.IsFuncDef() || (d.IsStatic() && d.IsInline()),
		File:     x.file(at.Filename),
		Line:     at.Line,
		In:       []ir.Version{x.v},
	}
	for _, p := range ft.Parameters() {
		pt, err := x.typ(p.Type(), "", at)
		if err != nil {
			return err
		}
		if pt.Kind == ir.Void {
			continue
		}
		f.Params = append(f.Params, ir.Param{Name: p.Name(), Type: pt})
	}
	x.pkg.Funcs = append(x.pkg.Funcs, f)
	return nil
}
