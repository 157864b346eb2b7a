package rdma

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

// TestParseGRH reads both shapes a UD receive's first 40 bytes take: an
// IPv6-shaped GRH, and RoCE v2's IPv4 header in the last 20 bytes.
func TestParseGRH(t *testing.T) {
	var b [GRHLen]byte
	binary.BigEndian.PutUint32(b[0:], 6<<28|0x2a<<20|0xbeef)
	binary.BigEndian.PutUint16(b[4:], 1024)
	b[6], b[7] = 0x1b, 64
	s := netip.MustParseAddr("fe80::1").As16()
	d := netip.MustParseAddr("fe80::2").As16()
	copy(b[8:], s[:])
	copy(b[24:], d[:])
	g, err := ParseGRH(b[:])
	require.NoError(t, err)
	assert.False(t, g.IPv4)
	assert.Equal(t, uint8(0x2a), g.TrafficClass)
	assert.Equal(t, uint32(0xbeef), g.FlowLabel)
	assert.Equal(t, uint16(1024), g.PayloadLen)
	assert.Equal(t, uint8(0x1b), g.NextHeader)
	assert.Equal(t, uint8(64), g.HopLimit)
	assert.Equal(t, s, *g.SGID.Raw())
	assert.Equal(t, d, *g.DGID.Raw())

	// RoCE v2 over IPv4: the header at [20, 40), with its checksum.
	var v4 [GRHLen]byte
	ip := v4[20:]
	ip[0], ip[1] = 0x45, 0x08
	binary.BigEndian.PutUint16(ip[2:], 20+8+12+64)
	ip[8], ip[9] = 63, 17
	copy(ip[12:], []byte{192, 0, 2, 1})
	copy(ip[16:], []byte{192, 0, 2, 2})
	binary.BigEndian.PutUint16(ip[10:], ipv4Checksum(ip))
	g, err = ParseGRH(v4[:])
	require.NoError(t, err)
	assert.True(t, g.IPv4)
	assert.Equal(t, uint8(8), g.TrafficClass)
	assert.Equal(t, uint16(8+12+64), g.PayloadLen)
	assert.Equal(t, uint8(63), g.HopLimit)
	assert.Equal(t, uint8(17), g.NextHeader)
	assert.Equal(t, netip.MustParseAddr("::ffff:192.0.2.1").As16(), *g.SGID.Raw())
	assert.Equal(t, netip.MustParseAddr("::ffff:192.0.2.2").As16(), *g.DGID.Raw())

	// A wrong checksum, a wrong version, too few bytes: EINVAL.
	ip[10] ^= 1
	_, err = ParseGRH(v4[:])
	assert.ErrorIs(t, err, unix.EINVAL)
	_, err = ParseGRH(make([]byte, GRHLen))
	assert.ErrorIs(t, err, unix.EINVAL)
	_, err = ParseGRH(b[:GRHLen-1])
	assert.ErrorIs(t, err, unix.EINVAL)
}

// FuzzParseGRH: any 40 bytes parse or fail with EINVAL, never panic, and a
// parsed IPv6-shaped GRH keeps its GIDs.
func FuzzParseGRH(f *testing.F) {
	f.Add(make([]byte, GRHLen))
	f.Add(append(make([]byte, 20), 0x45))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGRH(b)
		if err != nil {
			assert.ErrorIs(t, err, unix.EINVAL)
			return
		}
		if !g.IPv4 {
			assert.Equal(t, b[8:24], g.SGID.Raw()[:])
		}
	})
}
