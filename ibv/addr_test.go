package ibv

import (
	"net/netip"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

func TestGIDAddr(t *testing.T) {
	for _, s := range []string{"fe80::5054:ff:fe12:3456", "::ffff:10.0.0.1", "::"} {
		g, err := ParseGID(s)
		require.NoError(t, err)
		assert.Equal(t, s, g.String())
		assert.Equal(t, netip.MustParseAddr(s), g.Addr())
	}
	g := GIDFromAddr(netip.MustParseAddr("10.0.0.1"))
	assert.Equal(t, [16]uint8{10: 0xff, 11: 0xff, 12: 10, 15: 1}, *g.Raw())
	assert.Equal(t, "10.0.0.1", g.Addr().Unmap().String())
	_, err := ParseGID("not a gid")
	assert.Error(t, err)
}

func TestMTU(t *testing.T) {
	assert.Equal(t, 256, MTU256.Bytes())
	assert.Equal(t, 4096, MTU4096.Bytes())
	assert.Equal(t, 0, MTU(0).Bytes())
	assert.Equal(t, 0, MTU(6).Bytes())
	for _, n := range []int{256, 512, 1024, 2048, 4096} {
		m, err := MTUFromBytes(n)
		require.NoError(t, err)
		assert.Equal(t, n, m.Bytes())
	}
	_, err := MTUFromBytes(1500)
	assert.Error(t, err)
	m, err := ParseMTU("IBV_MTU_2048")
	require.NoError(t, err)
	assert.Equal(t, MTU2048, m)
	m, err = ParseMTU("1024")
	require.NoError(t, err)
	assert.Equal(t, MTU1024, m)
	_, err = ParseMTU("big")
	assert.Error(t, err)
}
