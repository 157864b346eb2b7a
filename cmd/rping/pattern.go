package main

import (
	"bytes"
	"strconv"
)

// The ping data: "rdma-ping-N: " followed by printable ASCII from 'A' to
// 'z', starting at 'A'+N (mod 58) and wrapping from 'z' back to 'A', up to
// size-1 bytes, then a NUL. rping fills its source buffer so before each
// ping and prints the buffer as a C string with -v.
const (
	patternFirst = 'A'
	patternLast  = 'z'
	patternSpan  = patternLast - patternFirst + 1
	pingPrefix   = "rdma-ping-"
)

// Ping sizes rping accepts: room for the longest prefix ("rdma-ping-" and
// the largest int, ": ", NUL) up to, but excluding, 64 KiB.
const (
	minSize     = len(pingPrefix) + len("2147483647") + len(": ") + 1 // 23
	maxSize     = 64 << 10                                            // exclusive
	defaultSize = 64
	defaultPort = 7174
)

// fillPattern writes ping number ping's data into b (len(b) is the ping
// size, at least minSize) without allocating.
func fillPattern(b []byte, ping int) {
	var num [20]byte
	n := copy(b, pingPrefix)
	n += copy(b[n:], strconv.AppendInt(num[:0], int64(ping), 10))
	n += copy(b[n:], ": ")
	c := byte(patternFirst + ping%patternSpan)
	last := len(b) - 1
	for i := n; i < last; i++ {
		b[i] = c
		if c++; c > patternLast {
			c = patternFirst
		}
	}
	b[last] = 0
}

// cString is b up to its first NUL, as C's printf("%s") shows it.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
