//go:build !linux || !cgo

package rdma

import (
	"context"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// This build cannot call C (not Linux, or CGO_ENABLED=0): the package builds, and every
// call fails with an error matching ErrNotSupported, from the generated packages below it
// (no device opens, so no object exists). What follows stands in for the files that call C
// directly (blockwait.go, channel_cgo.go, cmem.go, pollspin.go); none of it is reached.

// blockState is empty: WaitBlocking needs C.
type blockState struct{}

// WaitBlocking is CompChannel.WaitBlocking, which needs C: an error matching
// ErrNotSupported.
func (c *CompChannel) WaitBlocking(context.Context) (*CQ, error) {
	return nil, opErr("rdma.CompChannel.WaitBlocking", ErrNotSupported)
}

// WaitBlockingPoll is CompChannel.WaitBlockingPoll, which needs C: an error matching
// ErrNotSupported.
func (c *CompChannel) WaitBlockingPoll(context.Context, []ibv.WC) (*CQ, int, error) {
	return nil, 0, opErr("rdma.CompChannel.WaitBlockingPoll", ErrNotSupported)
}

func (c *CompChannel) setFDBlocking(string, bool) error { return nil }
func (c *CompChannel) dropWakerEvent(*ibv.CQ) bool      { return false }
func (c *CompChannel) stopBlocked() func()              { return func() {} }
func (c *CompChannel) destroyWaker() error              { return nil }
func (c *CompChannel) freeBlocker()                     {}

func newCQEventOut(unsafe.Pointer, *ibv.Context) (unsafe.Pointer, error) { return cAlloc(64), nil }

func takeCQEvent(unsafe.Pointer, *ibv.CompChannel, []ibv.WC) (int, int32, unsafe.Pointer, int) {
	return takeGetEvent, int32(syscall.EINVAL), nil, 0
}

// The steps takeCQEvent returns.
const (
	takeOK = iota
	takeGetEvent
	takeNotify
	takeOther
)

func spinPoll(uintptr, uintptr, int32, *ibv.WC, int64, *int32) int32 { return 0 }

// cAlloc is Go memory here: no C function is ever given it.
func cAlloc(n uintptr) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(make([]byte, n))) }

func cFree(unsafe.Pointer) {}
