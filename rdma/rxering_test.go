package rdma

import (
	"os"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

// TestRxeRingOfOtherProvider: a CQ whose poll_cq is not librxe's is never
// read as an rxe ring, whatever its memory holds.
func TestRxeRingOfOtherProvider(t *testing.T) {
	raw := (*ibv.CQ)(allOnes(t))
	fn := reflect.ValueOf(TestRxeRingOfOtherProvider).Pointer() // in this test binary
	require.Nil(t, rxeRingOf(raw, fn))
}

// allOnes returns a page of memory outside the Go heap with every bit set,
// unmapped at the end of the test: a provider object holding nonsense.
func allOnes(t *testing.T) unsafe.Pointer {
	mem, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, unix.Munmap(mem)) })
	for i := range mem {
		mem[i] = 0xff
	}
	return unsafe.Pointer(&mem[0])
}

// TestUverbsMapping: only a mapping of a uverbs device, at exactly the
// address and size librxe recorded, passes for a ring.
func TestUverbsMapping(t *testing.T) {
	anon, err := unix.Mmap(-1, 0, 8192, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(anon)) }()
	addr := uintptr(unsafe.Pointer(&anon[0]))
	require.False(t, uverbsMapping(addr, 8192), "anonymous memory")

	f, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer f.Close()
	dev, err := unix.Mmap(int(f.Fd()), 0, 8192, unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(dev)) }()
	addr = uintptr(unsafe.Pointer(&dev[0]))
	require.False(t, uverbsMapping(addr, 8192), "a mapping of another device file")
	require.False(t, uverbsMapping(addr+4096, 4096), "not the start of a mapping")
}

// TestRxeRQOfOtherProvider: a QP whose post_recv is not librxe's never has
// its receive queue written in Go, whatever its memory holds.
func TestRxeRQOfOtherProvider(t *testing.T) {
	raw := (*ibv.QP)(allOnes(t))
	fn := reflect.ValueOf(TestRxeRQOfOtherProvider).Pointer() // in this test binary
	rq, sq := rxeRQOf(raw, fn, 1, 1)
	require.Nil(t, rq)
	require.Zero(t, sq)
}

// TestRxeWQAt: a receive or send queue's description with no ring, or
// with a ring in memory that is not a uverbs device's, does not pass (the
// rxe tests in the guest check the rest: the QP's own queues pass).
func TestRxeWQAt(t *testing.T) {
	ring, err := unix.Mmap(-1, 0, 8192, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(ring)) }()
	type wq struct {
		offset    uint64
		size, pad uint32
		queue     unsafe.Pointer
		lock      int32
		maxSGE    uint32
		maxInline uint32
	}
	for _, w := range []wq{
		{size: 8192, queue: unsafe.Pointer(&ring[0]), lock: spinFree},
		{size: 8192, queue: nil, lock: spinFree},
	} {
		_, _, ok := rxeWQAt(unsafe.Pointer(&w))
		require.False(t, ok, "%+v", w)
	}
}
