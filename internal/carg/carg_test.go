package carg

import (
	"errors"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

func TestRanges(t *testing.T) {
	v, err := Int32("f", "n", -5)
	require.NoError(t, err)
	assert.Equal(t, int32(-5), v)
	_, err = Int32("ibv_create_cq", "cqe", math.MaxInt32+1)
	require.Error(t, err)
	assert.True(t, errors.Is(err, unix.EINVAL))
	assert.Equal(t, "ibv_create_cq: cqe: 2147483648 is out of the range of int32_t (not called)", err.Error())
	_, err = Uint32("f", "n", -1)
	assert.True(t, errors.Is(err, unix.EINVAL))
	u, err := Uint32("f", "n", math.MaxUint32)
	require.NoError(t, err)
	assert.Equal(t, uint32(math.MaxUint32), u)
	_, err = Uint8("f", "n", 256)
	assert.Error(t, err)
	_, err = Uint16("f", "n", 1<<16)
	assert.Error(t, err)
	_, err = Uint64("f", "n", -1)
	assert.Error(t, err)
}

func TestMillis(t *testing.T) {
	ms, err := Millis("f", "timeout_ms", 2*time.Second)
	require.NoError(t, err)
	assert.Equal(t, int32(2000), ms)
	ms, err = Millis("f", "timeout_ms", time.Microsecond)
	require.NoError(t, err)
	assert.Equal(t, int32(1), ms, "rounded up")
	for _, d := range []time.Duration{-time.Millisecond, time.Duration(math.MaxInt32+1) * time.Millisecond} {
		_, err := Millis("f", "timeout_ms", d)
		assert.True(t, errors.Is(err, unix.EINVAL), d)
	}
}

func TestString(t *testing.T) {
	p, err := String("f", "s", "")
	require.NoError(t, err)
	assert.Nil(t, p)
	p, err = String("f", "s", "ab")
	require.NoError(t, err)
	assert.Equal(t, []byte{'a', 'b', 0}, unsafeBytes(p, 3))
	_, err = String("f", "s", "a\x00b")
	assert.True(t, errors.Is(err, unix.EINVAL))
}

func TestSlices(t *testing.T) {
	assert.Nil(t, Bytes(nil))
	assert.Nil(t, Bytes([]byte{}))
	b := []byte{1}
	assert.Equal(t, &b[0], (*byte)(Bytes(b)))
	assert.Nil(t, Slice([]int(nil)))
	s := []int{1, 2}
	assert.Equal(t, &s[0], Slice(s))
	assert.Equal(t, int32(1), Bool(true))
	assert.Equal(t, int32(0), Bool(false))
}

func unsafeBytes(p *byte, n int) []byte { return unsafe.Slice(p, n) }
