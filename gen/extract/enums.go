package extract

import (
	"fmt"

	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/ir"
)

// enum registers enum type t and returns its key: "enum tag", a typedef name,
// or "enum <file>:<line>" for an anonymous enum.
func (x *extractor) enum(t *cc.EnumType) string {
	ens := t.Enumerators()
	var key, tag string
	tk := t.Tag()
	at := tk.Position()
	if len(ens) > 0 && at.Filename == "" {
		at = ens[0].Position()
	}
	switch {
	case tk.SrcStr() != "":
		tag = tk.SrcStr()
		key = "enum " + tag
	case t.Typedef() != nil:
		key = t.Typedef().Name()
	case len(ens) > 0:
		key = "enum {" + ens[0].Token.SrcStr() + "}"
	default:
		key = fmt.Sprintf("enum %s:%d", x.file(at.Filename), at.Line)
	}
	if _, ok := x.enums[key]; ok {
		return key
	}
	e := &ir.Enum{
		Key:     key,
		Tag:     tag,
		Size:    t.Size(),
		Signed:  cc.IsSignedInteger(t.UnderlyingType()),
		File:    x.file(at.Filename),
		Line:    at.Line,
		In:      []ir.Version{x.v},
		Foreign: !x.p.Owned(at.Filename),
	}
	for _, en := range ens {
		v, ok := intValue(en.Value())
		if !ok {
			x.pkg.Skipped = append(x.pkg.Skipped, ir.Skip{Name: en.Token.SrcStr(), Reason: "enumerator without an integer value"})
			continue
		}
		e.Values = append(e.Values, &ir.EnumValue{Name: en.Token.SrcStr(), Value: v, In: []ir.Version{x.v}})
	}
	x.enums[key] = e
	return key
}

// intValue returns the two's complement bits of an integer constant.
func intValue(v cc.Value) (int64, bool) {
	switch n := v.(type) {
	case cc.Int64Value:
		return int64(n), true
	case cc.UInt64Value:
		return int64(n), true
	}
	return 0, false
}
