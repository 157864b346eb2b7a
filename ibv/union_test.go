package ibv

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
)

// == on a union type compares its bytes: with the bytes in a blank field
// (as the generator once emitted them) any two GIDs were equal.
func TestUnionEquality(t *testing.T) {
	var a, b GID
	assert.True(t, a == b)
	b.Raw()[15] = 1
	assert.False(t, a == b, "GIDs differing in one byte")
	a.Raw()[15] = 1
	assert.True(t, a == b)

	// A struct holding a union compares it too.
	var x, y AHAttr
	y.GRH.DGID.Raw()[0] = 0xfe
	assert.False(t, x == y)
}
