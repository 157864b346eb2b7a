package ir

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMerge(t *testing.T) {
	field := func(name string, off, size int64) *Field {
		return &Field{Name: name, Offset: off, Type: Type{Kind: Int, Size: size, Align: size}, In: []Version{"65"}}
	}
	newer := &Package{
		Versions: []Version{"65"},
		Headers:  []Header{{Path: "a.h", Since: "65", In: []Version{"65"}}, {Path: "new.h", Since: "65", In: []Version{"65"}}},
		Structs: []*Struct{
			{Key: "struct grown", Size: 16, In: []Version{"65"}, SizeIn: map[Version]int64{"65": 16},
				Fields: []*Field{field("a", 0, 8), field("b", 8, 8)}},
			{Key: "struct moved", Size: 16, In: []Version{"65"}, SizeIn: map[Version]int64{"65": 16},
				Fields: []*Field{field("new", 0, 8), field("ctx", 8, 8)}},
			{Key: "struct fresh", In: []Version{"65"}, SizeIn: map[Version]int64{}},
		},
		Enums:  []*Enum{{Key: "enum e", In: []Version{"65"}, Values: []*EnumValue{{Name: "A", In: []Version{"65"}}, {Name: "B", In: []Version{"65"}}}}},
		Consts: []*Const{{Name: "OLD", In: []Version{"65"}}, {Name: "NEW", In: []Version{"65"}}},
		Funcs:  []*Func{{Name: "f_old", In: []Version{"65"}}, {Name: "f_new", In: []Version{"65"}}},
	}
	older := &Package{
		Versions: []Version{"44"},
		Headers:  []Header{{Path: "a.h", Since: "44", In: []Version{"44"}}},
		Structs: []*Struct{
			{Key: "struct grown", Size: 8, SizeIn: map[Version]int64{"44": 8}, Fields: []*Field{field("a", 0, 8)}},
			{Key: "struct moved", Size: 8, SizeIn: map[Version]int64{"44": 8}, Fields: []*Field{field("ctx", 0, 4)}},
			{Key: "struct gone"},
		},
		Enums:  []*Enum{{Key: "enum e", Values: []*EnumValue{{Name: "A"}}}},
		Consts: []*Const{{Name: "OLD"}},
		Funcs:  []*Func{{Name: "f_old"}, {Name: "f_gone"}},
	}
	newer.Merge(older)

	assert.Equal(t, []Version{"65", "44"}, newer.Versions)
	assert.Equal(t, Version("44"), newer.Headers[0].Since)
	assert.Equal(t, Version("65"), newer.Headers[1].Since)

	grown := newer.Struct("struct grown")
	assert.Equal(t, map[Version]int64{"65": 16, "44": 8}, grown.SizeIn)
	assert.Equal(t, []Version{"65", "44"}, grown.Fields[0].In)
	assert.Equal(t, []Version{"65"}, grown.Fields[1].In)
	assert.Nil(t, grown.Fields[0].OffsetIn)

	moved := newer.Struct("struct moved")
	assert.Equal(t, map[Version]int64{"44": 0}, moved.Fields[1].OffsetIn)
	assert.Equal(t, map[Version]int64{"44": 4}, moved.Fields[1].SizeIn)

	assert.Equal(t, []Version{"65"}, newer.Struct("struct fresh").In)
	assert.Equal(t, Version("65"), Since(newer.Versions, newer.Struct("struct fresh").In))
	assert.Equal(t, Version("44"), Since(newer.Versions, grown.In))

	e := newer.Enum("enum e")
	assert.Equal(t, []Version{"65", "44"}, e.Values[0].In)
	assert.Equal(t, []Version{"65"}, e.Values[1].In)
	assert.Equal(t, []Version{"65", "44"}, newer.Consts[0].In)
	assert.Equal(t, []Version{"65"}, newer.Consts[1].In)
	assert.Equal(t, []Version{"65", "44"}, newer.Func("f_old").In)
	assert.Equal(t, []Version{"65"}, newer.Func("f_new").In)
	assert.Contains(t, newer.Skipped, Skip{Name: "struct gone", Reason: "declared by rdma-core 44 but not by the newest input"})
	assert.Contains(t, newer.Skipped, Skip{Name: "f_gone", Reason: "declared by rdma-core 44 but not by the newest input"})
}
