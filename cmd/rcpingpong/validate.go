package main

import (
	"fmt"
	"os"
)

// The buffer check of -c, as ibv_rc_pingpong does it (observed on the
// wire): the buffer starts filled with fillByte; the client writes
// patternByte at the start of every page before sending, and a receiver
// checks that those bytes arrived. Only the page starts carry the pattern,
// so a message that was not written (or sent without -c) shows as
// fillByte there.
const (
	fillByte    = 0x7b
	patternByte = 0
)

var pageSize = os.Getpagesize()

// fillBuffer gives a new buffer its initial contents.
func fillBuffer(b []byte) {
	for i := range b {
		b[i] = fillByte
	}
}

// writePattern writes the pattern into b.
func writePattern(b []byte) {
	for i := 0; i < len(b); i += pageSize {
		b[i] = patternByte
	}
}

// checkPattern checks that b holds the pattern: the first page whose first
// byte differs is an error.
func checkPattern(b []byte) error {
	for i := 0; i < len(b); i += pageSize {
		if b[i] != patternByte {
			return fmt.Errorf("invalid data in page %d: byte %d is %#02x, want %#02x", i/pageSize, i, b[i], patternByte)
		}
	}
	return nil
}
