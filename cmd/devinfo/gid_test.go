package main

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
)

func TestGUIDStr(t *testing.T) {
	assert.Equal(t, "8079:30ff:fea1:e2e6", guidStr(beGUID([8]byte{0x80, 0x79, 0x30, 0xff, 0xfe, 0xa1, 0xe2, 0xe6})))
	assert.Equal(t, "0002:c903:0010:a0d1", guidStr(beGUID([8]byte{0, 2, 0xc9, 3, 0, 0x10, 0xa0, 0xd1})))
	assert.Equal(t, "0000:0000:0000:0000", guidStr(0))
}

// TestGIDStr compares with what glibc's inet_ntop(AF_INET6) prints for
// the same bytes.
func TestGIDStr(t *testing.T) {
	for _, c := range []struct {
		raw  [16]byte
		want string
	}{
		{[16]byte{0xfe, 0x80, 8: 0x94, 0x89, 0x03, 0xff, 0xfe, 0x55, 0x91, 0x4e}, "fe80::9489:3ff:fe55:914e"},
		{[16]byte{10: 0xff, 0xff, 192, 0, 2, 1}, "::ffff:192.0.2.1"},
		{[16]byte{10: 0xff, 0xff, 15: 1}, "::ffff:0.0.0.1"},
		{[16]byte{12: 1, 2, 3, 4}, "::1.2.3.4"},
		{[16]byte{15: 1}, "::1"},
		{[16]byte{}, "::"},
		{[16]byte{0x20, 0x01, 0x0d, 0xb8, 7: 1, 15: 1}, "2001:db8:0:1::1"},
		{[16]byte{0x20, 0x01, 0x0d, 0xb8, 9: 1, 15: 1}, "2001:db8::1:0:0:1"},
		{[16]byte{5: 1}, "0:0:1::"},
		{[16]byte{1: 1}, "1::"},
	} {
		assert.Equal(t, c.want, gidStr(c.raw), "% x", c.raw)
	}
}
