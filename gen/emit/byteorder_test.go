package emit

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/goverbs/goverbs/gen/ir"
)

func TestByteOrderDoc(t *testing.T) {
	be16 := ir.Type{Kind: ir.Int, Size: 2, C: "__be16"}
	u32 := ir.Type{Kind: ir.Int, Size: 4, C: "uint32_t"}
	assert.Contains(t, byteOrderDoc(&ir.Func{Ret: be16}), "The result (C: __be16) is in network byte order", "a big-endian result")
	assert.Contains(t, byteOrderDoc(&ir.Func{Ret: be16}), "bits.ReverseBytes16")
	assert.Equal(t, "pkey (C: __be16) is in network byte order (big-endian).",
		byteOrderDoc(&ir.Func{Ret: u32, Params: []ir.Param{{Name: "port", Type: u32}, {Name: "pkey", Type: be16}}}))
	assert.Empty(t, byteOrderDoc(&ir.Func{Ret: u32, Params: []ir.Param{{Name: "n", Type: u32}}}))
	assert.Empty(t, byteOrderDoc(nil))
}
