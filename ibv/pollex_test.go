//go:build linux && cgo && !rxe

package ibv_test

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// stdTS: the standard fields and the completion time stamp.
const stdTS = ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsImm | ibv.CreateCQWCFlagsQPNum | ibv.CreateCQWCFlagsSrcQP |
	ibv.CreateCQWCFlagsSLID | ibv.CreateCQWCFlagsSL | ibv.CreateCQWCFlagsDLIDPathBits | ibv.CreateCQWCFlagsCompletionTimestamp

// stubCQEx is an extended stub CQ of 64 entries with flags, and the
// number of the QP whose work its device completes.
func stubCQEx(t *testing.T, flags ibv.CreateCQWCFlags) (*stubprovider.CQ, uint32) {
	ctx := stubprovider.NewContext()
	cq := ctx.NewCQ(stubprovider.CQConfig{Entries: 64, Ex: true, WCFlags: flags})
	qp := ctx.NewQP(stubprovider.QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 64, MaxRecv: 64})
	t.Cleanup(func() {
		qp.Free()
		cq.Free()
		ctx.Free()
	})
	return cq, qp.Raw().QPNum
}

// getterWCEx reads the current completion through the checked bindings,
// one call per getter: what FastPollCQEx must read in one crossing.
func getterWCEx(t *testing.T, cq *ibv.CQEx) ibv.WCEx {
	t.Helper()
	w := ibv.WCEx{WRID: cq.WRID, Status: cq.Status}
	var err error
	u32 := func(v uint32, e error) uint32 { err = errors.Join(err, e); return v }
	op, e := cq.WCReadOpcode()
	err = errors.Join(err, e)
	w.Opcode = op
	w.VendorErr = u32(cq.WCReadVendorErr())
	flags, e := cq.WCReadWCFlags()
	err = errors.Join(err, e)
	w.WCFlags = uint32(flags)
	w.ByteLen = u32(cq.WCReadByteLen())
	w.ImmData = u32(cq.WCReadImmData())
	w.QPNum = u32(cq.WCReadQPNum())
	w.SrcQP = u32(cq.WCReadSrcQP())
	w.SLID = u32(cq.WCReadSLID())
	sl, e := cq.WCReadSL()
	err = errors.Join(err, e)
	bits, e := cq.WCReadDLIDPathBits()
	err = errors.Join(err, e)
	ts, e := cq.WCReadCompletionTS()
	err = errors.Join(err, e)
	w.SL, w.DLIDPathBits, w.CompletionTS = sl, bits, ts
	require.NoError(t, err)
	return w
}

// TestFastPollCQEx polls an extended CQ in one crossing (FastPollCQEx):
// the same completions, field by field, as a twin CQ read through the
// checked bindings one getter at a time; 0 for an empty CQ and for n <= 0
// (without calling the provider); start_poll's error as minus its errno.
func TestFastPollCQEx(t *testing.T) {
	a, qpn := stubCQEx(t, stdTS)
	b, _ := stubCQEx(t, stdTS)
	ex := a.RawEx()
	ops := ibv.FastPollCQExOps(ex, stdTS)
	addr := uintptr(unsafe.Pointer(ex))
	wcs := make([]ibv.WCEx, 16)
	assert.Zero(t, ibv.FastPollCQEx(&ops, addr, 16, &wcs[0]), "an empty CQ")
	assert.Equal(t, uint64(1), a.Calls())

	a.SetReady(12)
	b.SetReady(12)
	bx := b.RawEx()
	var attr ibv.PollCQAttr
	for round := range 7 { // 84 completions: past the ring's end
		for i := range wcs {
			wcs[i] = ibv.WCEx{CVLAN: 9, TMInfo: ibv.WCTMInfo{Tag: 9}} // the absent fields are zeroed
		}
		n := ibv.FastPollCQEx(&ops, addr, 16, &wcs[0])
		require.Equal(t, int32(12), n, "round %d", round)
		assert.Zero(t, ops.Err)
		require.NoError(t, bx.CallStartPoll(&attr))
		for i := range n {
			want := getterWCEx(t, bx)
			want.QPNum = qpn // the twin's QP is another
			assert.Equal(t, want, wcs[i], "round %d, completion %d", round, i)
			if i < n-1 {
				require.NoError(t, bx.CallNextPoll())
			}
		}
		require.NoError(t, bx.CallEndPoll())
	}
	assert.Equal(t, uint64(84), a.Polled())
	assert.Equal(t, uint32(84), a.ConsumerRecord(), "end_poll ran")

	// n <= 0 calls nothing.
	calls := a.Calls()
	assert.Zero(t, ibv.FastPollCQEx(&ops, addr, 0, &wcs[0]))
	assert.Equal(t, calls, a.Calls())

	// Fewer asked than ready: the rest stays for the next poll.
	a.SetReady(5)
	require.Equal(t, int32(2), ibv.FastPollCQEx(&ops, addr, 2, &wcs[0]))
	a.SetReady(0)
	require.Equal(t, int32(3), ibv.FastPollCQEx(&ops, addr, 16, &wcs[0]))

	// A getter left out of the ops is not read.
	few := ibv.FastPollCQExOps(ex, ibv.CreateCQWCFlagsByteLen)
	assert.Zero(t, few.ReadCompletionTS)
	assert.NotZero(t, few.ReadOpcode, "the opcode is always read")
	a.SetReady(1)
	require.Equal(t, int32(1), ibv.FastPollCQEx(&few, addr, 1, &wcs[0]))
	assert.Zero(t, wcs[0].CompletionTS)
	assert.NotZero(t, wcs[0].ByteLen)

	// start_poll's error: a CQ whose device completes for no QP it knows
	// (the stub's EINVAL).
	ctx := stubprovider.NewContext()
	defer ctx.Free()
	lone := ctx.NewCQ(stubprovider.CQConfig{Entries: 4, Ex: true, WCFlags: stdTS})
	defer lone.Free()
	lone.SetReady(1)
	lops := ibv.FastPollCQExOps(lone.RawEx(), stdTS)
	assert.Equal(t, -int32(unix.EINVAL), ibv.FastPollCQEx(&lops, uintptr(unsafe.Pointer(lone.RawEx())), 4, &wcs[0]))
}

// TestFastReadWCEx reads the current completion, after the program's own
// ibv_start_poll and ibv_next_poll, in one crossing.
func TestFastReadWCEx(t *testing.T) {
	a, _ := stubCQEx(t, stdTS)
	ex := a.RawEx()
	ops := ibv.FastPollCQExOps(ex, stdTS)
	addr := uintptr(unsafe.Pointer(ex))
	a.SetReady(3)
	require.NoError(t, ex.CallStartPoll(&ibv.PollCQAttr{}))
	for i := range 3 {
		var w ibv.WCEx
		ibv.FastReadWCEx(&ops, addr, &w)
		assert.Equal(t, getterWCEx(t, ex), w, "completion %d", i)
		if i < 2 {
			require.NoError(t, ex.CallNextPoll())
		}
	}
	require.ErrorIs(t, ex.CallNextPoll(), unix.ENOENT)
	require.NoError(t, ex.CallEndPoll())
}
