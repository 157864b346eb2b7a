package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"

	"github.com/goverbs/goverbs/rdma"
)

func TestAddressLine(t *testing.T) {
	assert.Equal(t, "  local address:  LID 0x0000, QPN 0x000011, PSN 0xc0785c, GID ::ffff:192.0.2.1",
		addressLine("local address: ", observedEndpoint()))
	e := rdma.Endpoint{LID: 0x1a, QPN: 0x123456, PSN: 0x7}
	assert.Equal(t, "  remote address: LID 0x001a, QPN 0x123456, PSN 0x000007, GID ::", addressLine("remote address:", e))
}

func TestGIDText(t *testing.T) {
	for raw, want := range map[[16]byte]string{
		{}:                                   "::",
		{10: 0xff, 11: 0xff, 12: 192, 15: 1}: "::ffff:192.0.0.1",
		{0: 0xfe, 1: 0x80, 15: 1}:            "fe80::1",
		{12: 10, 13: 1, 14: 2, 15: 3}:        "::10.1.2.3", // IPv4-compatible, as inet_ntop prints it
		{14: 0x12, 15: 0x34}:                 "::1234",
	} {
		assert.Equal(t, want, gidText(raw))
	}
}

// TestSummary: the figures ibv_rc_pingpong printed for 5 iterations of 16
// bytes in 146951 µs (rdma-core 44 on rxe) are what summary prints for
// them.
func TestSummary(t *testing.T) {
	assert.Equal(t, "160 bytes in 0.15 seconds = 0.01 Mbit/sec\n5 iters in 0.15 seconds = 29390.20 usec/iter\n",
		summary(16, 5, 146951*time.Microsecond))
	assert.Equal(t, "8192000 bytes in 2.00 seconds = 32.77 Mbit/sec\n1000 iters in 2.00 seconds = 2000.00 usec/iter\n",
		summary(4096, 1000, 2*time.Second))
}

func TestValidatePattern(t *testing.T) {
	b := make([]byte, 3*pageSize+1)
	fillBuffer(b)
	err := checkPattern(b)
	assert.EqualError(t, err, "invalid data in page 0: byte 0 is 0x7b, want 0x00")
	writePattern(b)
	assert.NoError(t, checkPattern(b))
	for i := range b {
		if i%pageSize != 0 {
			assert.Equal(t, byte(fillByte), b[i], "byte %d outside the pattern", i)
		}
	}
	b[2*pageSize] = 1
	assert.EqualError(t, checkPattern(b), fmt.Sprintf("invalid data in page 2: byte %d is 0x01, want 0x00", 2*pageSize))
	b[2*pageSize] = patternByte
	b[3*pageSize] = fillByte // the last, partial page
	assert.ErrorContains(t, checkPattern(b), "invalid data in page 3")
}
