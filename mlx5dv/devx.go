package mlx5dv

import (
	"encoding/binary"
	"fmt"
)

// The static inline accessors behind mlx5dv.h's DEVX_SET, DEVX_GET,
// DEVX_SET64 and DEVX_GET64 macros, in Go over a []byte. A DEVX command is a
// buffer in the device specification's layout (the mlx5_ifc_*_bits
// structures, which mlx5dv.h does not declare): big-endian 32-bit words whose
// fields are given by a bit offset and a bit size. The macros compute those
// from the layout; these functions take them. Each indexes p like a slice, so
// a field past its end panics instead of writing past the buffer. wqe_test.go
// compares them with the C inlines byte for byte.

// devxField checks a field of bitSz bits at bitOff, which must lie in one
// 32-bit word: C shifts by 32 minus the sum, undefined when it exceeds 32.
func devxField(fn string, bitOff, bitSz uint) {
	if bitSz == 0 || bitSz > 32 || bitOff%32+bitSz > 32 {
		panic(fmt.Sprintf("mlx5dv.%s: a field of %d bits at bit %d is not within one 32-bit word", fn, bitSz, bitOff))
	}
}

// DevxSet is _devx_set (infiniband/mlx5dv.h), what DEVX_SET(typ, p, fld, v)
// expands to: it stores the low bitSz bits of value in the field of bitSz bits
// at bit offset bitOff of p, in the big-endian 32-bit word that holds it,
// keeping the word's other bits. The field must lie within one word.
func DevxSet(p []byte, value uint32, bitOff, bitSz uint) {
	devxField("DevxSet", bitOff, bitSz)
	w := p[bitOff/32*4:][:4]
	shift := 32 - bitSz - bitOff%32
	mask := uint32(1<<bitSz - 1)
	binary.BigEndian.PutUint32(w, binary.BigEndian.Uint32(w)&^(mask<<shift)|(value&mask)<<shift)
}

// DevxGet is _devx_get (infiniband/mlx5dv.h), what DEVX_GET(typ, p, fld)
// expands to: the field of bitSz bits at bit offset bitOff of p. The field
// must lie within one 32-bit word.
func DevxGet(p []byte, bitOff, bitSz uint) uint32 {
	devxField("DevxGet", bitOff, bitSz)
	w := p[bitOff/32*4:][:4]
	return binary.BigEndian.Uint32(w) >> (32 - bitSz - bitOff%32) & uint32(1<<bitSz-1)
}

// DevxSet64 is _devx_set64 (infiniband/mlx5dv.h), what DEVX_SET64(typ, p, fld,
// v) expands to: it stores v big-endian in the 64-bit word of p that holds bit
// bitOff (the 64-bit fields of the specification are aligned).
func DevxSet64(p []byte, v uint64, bitOff uint) {
	binary.BigEndian.PutUint64(p[bitOff/64*8:][:8], v)
}

// DevxGet64 is _devx_get64 (infiniband/mlx5dv.h), what DEVX_GET64(typ, p, fld)
// expands to: the big-endian 64-bit word of p that holds bit bitOff.
func DevxGet64(p []byte, bitOff uint) uint64 {
	return binary.BigEndian.Uint64(p[bitOff/64*8:][:8])
}
