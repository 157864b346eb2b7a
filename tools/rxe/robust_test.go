//go:build linux

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The guest survives a command that floods its output and then dies of a signal: all
// 20 MiB of stdout come back byte for byte (the guest prints the sha256 of what it sent on
// stderr, the test hashes what arrived), and the status is 128+SIGSEGV.
func TestFloodThenSignal(t *testing.T) {
	const size = 20 << 20
	script := "head -c " + strconv.Itoa(size) + " /dev/urandom > /tmp/flood && sha256sum /tmp/flood >&2 && cat /tmp/flood && kill -SEGV $$"
	out, errOut, code := rxe(t, "-topology=one", "sh", "-c", script)
	require.Equal(t, 128+11, code, "a command killed by SIGSEGV returns 128+11; stderr: %s", errOut)
	require.Equal(t, size, len(out), "stdout came back short or long")
	sum := sha256.Sum256([]byte(out))
	want := hex.EncodeToString(sum[:]) + "  /tmp/flood"
	require.True(t, strings.Contains(errOut, want), "the guest's sha256 of what it sent differs from the host's %s; stderr:\n%s", want, errOut)
}
