// Package layouttest proves generated Go types and constants equal to C: it
// writes a C program printing sizeof, _Alignof and offsetof of every record
// and member, and the value of every constant, compiles it with gcc against
// the pinned headers of each input version, and compares the output with the
// Go side that the generated zlayout_test.go files read with unsafe.
package layouttest

import "reflect"

// Table is the Go side of one package.
type Table struct {
	Package string
	Headers []Header
	Records []Record
	Consts  []Const
}

// Header is an include of the package and the versions that ship it.
type Header struct {
	Path string
	In   []string
}

// Record is a struct or union: C is its name in C (usable in sizeof).
type Record struct {
	C     string
	In    []string
	Size  uintptr
	Align uintptr
	// SizeDiff is, for versions where the C size differs, that size minus
	// Size (differences hold on every architecture; sizes do not).
	SizeDiff map[string]int
	Fields   []Field
}

// Field is a member: C is its member designator (wr.rdma.rkey).
type Field struct {
	C      string
	In     []string
	Offset uintptr
	Size   uintptr
	// OffsetDiff is, for versions where the C offset differs, that offset
	// minus Offset.
	OffsetDiff map[string]int
	// SizeDiff is, for versions where the C size differs, that size
	// minus Size.
	SizeDiff map[string]int
	// Flex marks a flexible array member (header[] or header[0]): only its
	// offset is compared; its Size is 0.
	Flex bool
	// InUnion marks a member of a union or of a record inside one: a newer
	// one is an alternative an older release does not know (its tag is
	// new too), so it may lie inside the older size
	// (mlx5dv_flow_action_attr's bulk_obj, rdma-core 65).
	InUnion bool
}

// Const is an enumerator or integer macro with the bits of its Go value.
type Const struct {
	C     string
	In    []string
	Value uint64
}

// Bits returns the two's complement bits of v, sign-extended.
func Bits[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](v T) uint64 {
	return uint64(v)
}

func has(in []string, v string) bool {
	for _, x := range in {
		if x == v {
			return true
		}
	}
	return false
}

// New returns a zero T on the heap (reflect.New allocates there), where it never moves:
// the generated tables take a member's offset as its address minus the record's, and a
// record on the stack can move between the two (the stack grows during any call), which
// once gave offsets of 0x8e000 and more under -race. Room follows the record in the same
// allocation, so that the accessor of a flexible array member may point past the record
// (checkptr checks that pointer arithmetic stays inside the allocation).
func New[T any]() *T {
	type roomy struct {
		v T
		_ [256]byte
	}
	return &reflect.New(reflect.TypeFor[roomy]()).Interface().(*roomy).v
}
