//go:build cgo

package ibv

import (
	"os"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/dl"
)

// libcFunc is the address of a libc function standing in for a provider op.
func libcFunc(t *testing.T, name string) unsafe.Pointer {
	t.Helper()
	p, err := (&dl.Symbol{Lib: dl.NewLib("libc.so.6"), Name: name}).Addr()
	require.NoError(t, err)
	return p
}

// TestFastOpThroughLayout reads ops through the generated layout, as rdma
// does once per object.
func TestFastOpThroughLayout(t *testing.T) {
	var ctx Context
	cq := CQ{Context: &ctx}
	assert.Zero(t, FastPollCQOp(&cq), "a NULL op reads as 0")
	getpid := libcFunc(t, "getpid")
	ctx.Ops.PollCQ = getpid
	assert.Equal(t, uintptr(getpid), FastPollCQOp(&cq))
	var ex CQEx
	ex.ReadOpcode = getpid
	assert.Equal(t, uintptr(getpid), FastWCReadOpcodeOp(&ex))
}

// TestFastCall calls fast trampolines with libc functions standing in for
// the provider's ops: the integer object, a result of each width, and Go
// memory on the stack passed as a pointer.
func TestFastCall(t *testing.T) {
	getpid := uintptr(libcFunc(t, "getpid"))
	assert.Equal(t, uint32(os.Getpid()), uint32(FastWCReadOpcode(getpid, 0)))
	assert.Equal(t, uint64(os.Getpid()), FastWCReadCompletionTS(getpid, 0)&0xffffffff)
	// start_poll(cq, attr) -> strcmp(cq, attr): the object is C memory
	// (a string libc holds), attr Go memory on this goroutine's stack.
	strcmp := uintptr(libcFunc(t, "strcmp"))
	cs := []byte("gvb\x00")
	pinned := unsafe.Pointer(&cs[0]) // heap memory, alive until the end of the test
	var attr PollCQAttr
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&attr)), unsafe.Sizeof(attr)), "gvb\x00")
	assert.Zero(t, FastStartPoll(strcmp, uintptr(pinned), &attr))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&attr)), unsafe.Sizeof(attr)), "gvc\x00")
	assert.NotZero(t, FastStartPoll(strcmp, uintptr(pinned), &attr))
	_ = cs[0]
}
