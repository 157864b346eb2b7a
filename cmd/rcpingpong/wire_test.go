package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// observed is a message ibv_rc_pingpong (rdma-core 44 and 65) sent on rxe
// in the two-node guest, as captured on the wire, with what it stands for.
const observed = "0000:000011:c0785c:00000000000000000000ffffc0000201\x00"

func observedEndpoint() rdma.Endpoint {
	e := rdma.Endpoint{QPN: 0x11, PSN: 0xc0785c}
	copy(e.GID.Raw()[:], []byte{10: 0xff, 11: 0xff, 12: 192, 13: 0, 14: 2, 15: 1})
	return e
}

func TestFormatDest(t *testing.T) {
	msg, err := formatDest(observedEndpoint())
	require.NoError(t, err)
	assert.Equal(t, observed, string(msg))
	assert.Len(t, msg, msgSize)

	e := rdma.Endpoint{LID: 0xbeef, QPN: 0xffffff, PSN: 0xabcdef}
	for i := range e.GID.Raw() {
		e.GID.Raw()[i] = byte(0xf0 + i)
	}
	msg, err = formatDest(e)
	require.NoError(t, err)
	assert.Equal(t, "beef:ffffff:abcdef:f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff\x00", string(msg))

	_, err = formatDest(rdma.Endpoint{QPN: 1 << 24})
	assert.EqualError(t, err, "QPN 0x1000000 does not fit the message's 24 bits")
	_, err = formatDest(rdma.Endpoint{PSN: 1 << 24})
	assert.EqualError(t, err, "PSN 0x1000000 does not fit the message's 24 bits")
}

func TestParseDest(t *testing.T) {
	e, err := parseDest([]byte(observed))
	require.NoError(t, err)
	want := observedEndpoint()
	assert.Equal(t, want.QPN, e.QPN)
	assert.Equal(t, want.PSN, e.PSN)
	assert.Equal(t, want.LID, e.LID)
	assert.Equal(t, *want.GID.Raw(), *e.GID.Raw())

	// Upper-case digits are hex digits too.
	e, err = parseDest([]byte("BEEF:00ABCD:FFFFFF:FE800000000000000000000000000001\x00"))
	require.NoError(t, err)
	assert.Equal(t, uint16(0xbeef), e.LID)
	assert.Equal(t, uint32(0xabcd), e.QPN)
	assert.Equal(t, uint32(0xffffff), e.PSN)
	assert.Equal(t, [16]byte{0: 0xfe, 1: 0x80, 15: 1}, *e.GID.Raw())
}

func TestDestRoundTrip(t *testing.T) {
	for _, e := range []rdma.Endpoint{{}, observedEndpoint(), {LID: 0xffff, QPN: 0xffffff, PSN: 0xffffff, GID: gidOf(0xff)}, {LID: 1, QPN: 0x123, PSN: 7, GID: gidOf(0x5a)}} {
		msg, err := formatDest(e)
		require.NoError(t, err)
		got, err := parseDest(msg)
		require.NoError(t, err)
		assert.Equal(t, e.LID, got.LID)
		assert.Equal(t, e.QPN, got.QPN)
		assert.Equal(t, e.PSN, got.PSN)
		assert.Equal(t, *e.GID.Raw(), *got.GID.Raw())
	}
}

func gidOf(b byte) ibv.GID {
	var g ibv.GID
	for i := range g.Raw() {
		g.Raw()[i] = b
	}
	return g
}

func TestParseDestMalformed(t *testing.T) {
	// replace returns the observed message with s written at off.
	replace := func(off int, s string) string { return observed[:off] + s + observed[off+len(s):] }
	for _, c := range []struct{ msg, err string }{
		{"", "address message of 0 bytes, want 52"},
		{observed[:51], "address message of 51 bytes, want 52"},
		{observed + "x", "address message of 53 bytes, want 52"},
		{replace(51, "x"), `does not end in NUL`},
		{replace(4, "-"), `LID field is not 4 hex digits followed by ':'`},
		{replace(2, "g"), `LID "00g0" is not 4 hex digits`},
		{replace(5, " "), `QPN " 00011" is not 6 hex digits`},
		{replace(11, "x"), `QPN field is not 6 hex digits followed by ':'`},
		{replace(12, "-"), `PSN "-0785c" is not 6 hex digits`},
		{replace(18, "\x00"), `PSN field is not 6 hex digits followed by ':'`},
		{replace(43, "z"), `GID "00000000000000000000ffffz0000201" is not 32 hex digits`},
		{"0000:000011:c0785c:00000000000000000000ffffc000020\x00\x00", `GID "00000000000000000000ffffc000020\x00" is not 32 hex digits`},
		{replace(51, ":"), `does not end in NUL`},
		{"0:000011:c0785c:00000000000000000000ffffc0000201\x00\x00\x00\x00", `LID field is not 4 hex digits followed by ':'`},
	} {
		_, err := parseDest([]byte(c.msg))
		require.Error(t, err, "%q", c.msg)
		assert.Contains(t, err.Error(), c.err, "%q", c.msg)
	}
}

func TestReadDest(t *testing.T) {
	e, err := readDest(strings.NewReader(observed + "done\x00"))
	require.NoError(t, err)
	assert.Equal(t, uint32(0xc0785c), e.PSN)

	_, err = readDest(strings.NewReader(observed[:20]))
	assert.EqualError(t, err, "couldn't read remote address: connection closed after 20 of 52 bytes")
	_, err = readDest(strings.NewReader(""))
	assert.EqualError(t, err, "couldn't read remote address: connection closed after 0 of 52 bytes")
}

func TestReadDone(t *testing.T) {
	require.NoError(t, readDone(bytes.NewReader(doneMsg)))
	assert.EqualError(t, readDone(strings.NewReader("DONE\x00")), `client sent "DONE\x00", want "done\x00"`)
	assert.ErrorContains(t, readDone(strings.NewReader("do")), `couldn't read "done" from the client (2 of 5 bytes)`)
}
