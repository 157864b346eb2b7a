package main

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestPatternMatchesRping compares the pattern with what rdmacm-utils'
// rping (rdma-core 65) printed in the rxe guest: "rping -c -v -V -S 200
// -C 70" (testdata), which crosses the wrap from 'z' to 'A' inside a ping
// and across pings, and the 10th ping's longer prefix.
func TestPatternMatchesRping(t *testing.T) {
	f, err := os.Open("testdata/rping-65-v-S200-C70.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	buf := make([]byte, 200)
	ping := 0
	for sc.Scan() {
		fillPattern(buf, ping)
		assert.Equal(t, sc.Text(), fmt.Sprintf("ping data: %s", cString(buf)), "ping %d", ping)
		assert.Equal(t, byte(0), buf[len(buf)-1])
		ping++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 70, ping)
}

// TestPatternSizes: rping's default (64) and minimum (23) sizes, as the C
// tool printed them; the minimum still holds the largest ping number.
func TestPatternSizes(t *testing.T) {
	for _, c := range []struct {
		size, ping int
		want       string
	}{
		{64, 0, "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr"},
		{64, 2, "rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrst"},
		{23, 0, "rdma-ping-0: ABCDEFGHI"},
		{23, 2, "rdma-ping-2: CDEFGHIJK"},
		{23, 1<<31 - 1, "rdma-ping-2147483647: "},
	} {
		b := make([]byte, c.size)
		for i := range b {
			b[i] = 0xff
		}
		fillPattern(b, c.ping)
		assert.Equal(t, c.want, string(cString(b)), "size %d ping %d", c.size, c.ping)
		assert.Len(t, cString(b), c.size-1)
	}
	assert.Equal(t, 23, minSize)
}

func TestPatternDoesNotAllocate(t *testing.T) {
	b := make([]byte, 4096)
	ping := 0
	allocs := testing.AllocsPerRun(100, func() {
		fillPattern(b, ping)
		ping++
	})
	assert.Zero(t, allocs)
}

func TestCString(t *testing.T) {
	assert.Equal(t, "ab", string(cString([]byte("ab\x00cd"))))
	assert.Equal(t, "abc", string(cString([]byte("abc"))))
	assert.Empty(t, cString([]byte{0, 'x'}))
}
