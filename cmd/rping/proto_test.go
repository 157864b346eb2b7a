package main

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestInfoWire: 64-bit address, 32-bit rkey, 32-bit size, big-endian.
func TestInfoWire(t *testing.T) {
	m := info{Addr: 0x0102030405060708, RKey: 0x090a0b0c, Size: 0x0d0e0f10}
	b := make([]byte, infoLen)
	m.put(b)
	assert.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, b)
	got, err := parseInfo(b)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	assert.Equal(t, "rkey 90a0b0c addr 102030405060708 len 219025168", got.String())
}

func TestInfoFromRping(t *testing.T) {
	// rping -d printed "RDMA addr 5639acfd3480 rkey 9b0 len 64" for the
	// message it sent; the server printed the same values on receipt.
	b := []byte{0, 0, 0x56, 0x39, 0xac, 0xfd, 0x34, 0x80, 0, 0, 0x09, 0xb0, 0, 0, 0, 64}
	got, err := parseInfo(b)
	require.NoError(t, err)
	assert.Equal(t, info{Addr: 0x5639acfd3480, RKey: 0x9b0, Size: 64}, got)
}

func TestInfoBogus(t *testing.T) {
	for _, n := range []int{0, 8, 15, 17} {
		_, err := parseInfo(make([]byte, n))
		require.Error(t, err, "%d bytes", n)
		assert.Contains(t, err.Error(), "bogus data")
	}
}

func TestInfoDoesNotAllocate(t *testing.T) {
	b := make([]byte, infoLen)
	var sink info
	allocs := testing.AllocsPerRun(100, func() {
		info{Addr: 1, RKey: 2, Size: 3}.put(b)
		sink, _ = parseInfo(b)
	})
	assert.Zero(t, allocs)
	assert.Equal(t, uint32(3), sink.Size)
}
