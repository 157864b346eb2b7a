//go:build linux && cgo && !rxe

package ibv_test

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestLeanShims: the checked bindings of the data path pass the op and
// pointer-free memory without cgo's run-time check (gen/emit leanParams),
// and keep it where it can find something: a poll into Go memory and
// posts (bad_wr the wrapper's own local) work as before, and a work
// request in Go memory whose SGE list is Go memory is still refused by
// cgocheck (a panic) before C is called.
func TestLeanShims(t *testing.T) {
	ctx := stubprovider.NewContext()
	cq := ctx.NewCQ(stubprovider.CQConfig{Entries: 64})
	qp := ctx.NewQP(stubprovider.QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 64, MaxRecv: 64})
	t.Cleanup(func() {
		qp.Free()
		cq.Free()
		ctx.Free()
	})
	cq.SetReady(3)
	wcs := make([]ibv.WC, 8) // Go memory, checked for nothing
	n, err := cq.Raw().Poll(wcs)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, qp.Raw().QPNum, wcs[0].QPNum)

	// C memory: the chain's second work request has an opcode the stub
	// refuses (C stores it in bad_wr, the wrapper's own local).
	wrs := stubprovider.SendChain(2, ibv.WROpcodeRDMAWrite, 1, 0x1000, 64, 2, 0x2000)
	defer stubprovider.Free(unsafe.Pointer(&wrs[0]))
	wrs[1].Opcode = ibv.WROpcodeAtomicFetchAndAdd
	_, err = qp.Raw().PostSend(&wrs[0])
	require.ErrorIs(t, err, unix.EINVAL)
	assert.Equal(t, uint64(1), qp.SendPosted())
	wrs[1].Opcode = ibv.WROpcodeRDMAWrite
	bad, err := qp.Raw().PostSend(&wrs[0])
	require.NoError(t, err)
	assert.Nil(t, bad)
	assert.Equal(t, uint64(3), qp.SendPosted())

	// Go memory pointing at Go memory, on the heap (cgocheck does not
	// look into a goroutine's stack): cgocheck panics, C is not called.
	sges := make([]ibv.SGE, 1)
	wr := &ibv.SendWR{Opcode: ibv.WROpcodeSend, NumSGE: 1, SgList: &sges[0]}
	heapSink = wr
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		qp.Raw().PostSend(wr)
		return ""
	}()
	assert.True(t, strings.Contains(msg, "Go pointer"), "cgocheck: %q", msg)
	assert.Equal(t, uint64(3), qp.SendPosted(), "C was not called")
}

// heapSink keeps what a test stores in it on the heap.
var heapSink any
