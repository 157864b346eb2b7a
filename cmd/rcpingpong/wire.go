package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/goverbs/goverbs/rdma"
)

// The out-of-band exchange of ibv_rc_pingpong, over one TCP connection:
// the client sends its address message, the server answers with its own
// once its QP is connected, and the client ends with doneMsg. An address
// message is text of fixed size, NUL-terminated:
//
//	LLLL:QQQQQQ:PPPPPP:GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG\0
//
// LID (4 hex digits), QPN and PSN (6 each) and the GID's 16 bytes in
// order as 32 hex digits, lower case: 52 bytes in all.
const (
	lidDigits = 4
	qpnDigits = 6
	psnDigits = 6
	gidDigits = 32
	msgSize   = lidDigits + 1 + qpnDigits + 1 + psnDigits + 1 + gidDigits + 1
)

// doneMsg is the client's last message: "done" and its NUL.
var doneMsg = []byte("done\x00")

// formatDest renders e as an address message. QPN and PSN are 24-bit
// numbers on the wire; higher bits are an error, not truncated.
func formatDest(e rdma.Endpoint) ([]byte, error) {
	if e.QPN > 0xffffff {
		return nil, fmt.Errorf("QPN %#x does not fit the message's 24 bits", e.QPN)
	}
	if e.PSN > 0xffffff {
		return nil, fmt.Errorf("PSN %#x does not fit the message's 24 bits", e.PSN)
	}
	s := fmt.Sprintf("%04x:%06x:%06x:%s\x00", e.LID, e.QPN, e.PSN, hex.EncodeToString(e.GID.Raw()[:]))
	return []byte(s), nil
}

// parseDest reads an address message, which must be exactly msgSize bytes.
func parseDest(msg []byte) (rdma.Endpoint, error) {
	var e rdma.Endpoint
	if len(msg) != msgSize {
		return e, fmt.Errorf("address message of %d bytes, want %d", len(msg), msgSize)
	}
	if msg[msgSize-1] != 0 {
		return e, fmt.Errorf("address message %q does not end in NUL", msg)
	}
	fields := []struct {
		name   string
		digits int
	}{{"LID", lidDigits}, {"QPN", qpnDigits}, {"PSN", psnDigits}, {"GID", gidDigits}}
	var vals [3]uint64
	off := 0
	for i, f := range fields {
		text := msg[off : off+f.digits]
		end := msg[off+f.digits] // ':' after each field, NUL after the GID
		want := byte(':')
		if i == len(fields)-1 {
			want = 0
		}
		if end != want {
			return e, fmt.Errorf("address message %q: %s field is not %d hex digits followed by %q", msg, f.name, f.digits, want)
		}
		if f.name == "GID" {
			if _, err := hex.Decode(e.GID.Raw()[:], text); err != nil {
				return e, fmt.Errorf("address message %q: GID %q is not %d hex digits", msg, text, f.digits)
			}
			break
		}
		var v uint64
		for _, c := range text {
			d, ok := hexDigit(c)
			if !ok {
				return e, fmt.Errorf("address message %q: %s %q is not %d hex digits", msg, f.name, text, f.digits)
			}
			v = v<<4 | uint64(d)
		}
		vals[i] = v
		off += f.digits + 1
	}
	e.LID, e.QPN, e.PSN = uint16(vals[0]), uint32(vals[1]), uint32(vals[2])
	return e, nil
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// readDest reads one address message from r.
func readDest(r io.Reader) (rdma.Endpoint, error) {
	buf := make([]byte, msgSize)
	if n, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return rdma.Endpoint{}, fmt.Errorf("couldn't read remote address: connection closed after %d of %d bytes", n, msgSize)
		}
		return rdma.Endpoint{}, fmt.Errorf("couldn't read remote address: %w", err)
	}
	return parseDest(buf)
}

// readDone reads the client's final doneMsg.
func readDone(r io.Reader) error {
	buf := make([]byte, len(doneMsg))
	if n, err := io.ReadFull(r, buf); err != nil {
		return fmt.Errorf("couldn't read \"done\" from the client (%d of %d bytes): %w", n, len(doneMsg), err)
	}
	if string(buf) != string(doneMsg) {
		return fmt.Errorf("client sent %q, want %q", buf, doneMsg)
	}
	return nil
}
