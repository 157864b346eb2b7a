//go:build linux && cgo && !rxe

package ibv_test

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// stubQPEx is an extended stub QP of 64 send slots of 2 SGEs.
func stubQPEx(t *testing.T) *stubprovider.QP {
	ctx := stubprovider.NewContext()
	cq := ctx.NewCQ(stubprovider.CQConfig{Entries: 64})
	qp := ctx.NewQP(stubprovider.QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 64, MaxSendSGE: 2, Ex: true})
	t.Cleanup(func() {
		qp.Free()
		cq.Free()
		ctx.Free()
	})
	return qp
}

// TestFastWRPost posts work requests of the extended API in one crossing
// (FastWRPost): the same WQEs, wr_ids and doorbell as a twin QP given the
// same work requests one builder at a time through the checked bindings;
// a step whose op the QP lacks (the stub has no atomics), or that names
// none, is refused after ibv_wr_abort, nothing posted, with its index in
// Bad; n <= 0 calls nothing.
func TestFastWRPost(t *testing.T) {
	a, b := stubQPEx(t), stubQPEx(t)
	ax := a.RawEx()
	ops := ibv.FastWRPostOps(ax)
	addr := uintptr(unsafe.Pointer(ax))
	sges := (*ibv.SGE)(stubprovider.Alloc(2 * unsafe.Sizeof(ibv.SGE{})))
	defer stubprovider.Free(unsafe.Pointer(sges))
	list := unsafe.Slice(sges, 2)
	list[0] = ibv.SGE{Addr: 0x30000, Length: 16, LKey: 5}
	list[1] = ibv.SGE{Addr: 0x31000, Length: 32, LKey: 6}

	steps := make([]ibv.WRStep, 8)
	steps[0].RDMAWrite(0x99, 0x20000)
	steps[0].WRID, steps[0].WRFlags = 10, 0
	steps[1].SetSGE(0x77, 0x10000, 64)
	steps[2].SendImm(0xabcd)
	steps[2].WRID, steps[2].WRFlags = 11, uint32(ibv.SendFlagsSolicited)
	steps[3].SetSGEList(2, uintptr(unsafe.Pointer(sges)))
	steps[4].RDMARead(0x98, 0x28000)
	steps[4].WRID, steps[4].WRFlags = 12, uint32(ibv.SendFlagsSignaled)
	steps[5].SetSGE(0x77, 0x18000, 128)
	steps[6].Send()
	steps[6].WRID = 13
	steps[7].SetSGE(0x77, 0x19000, 0)
	require.Equal(t, int32(0), ibv.FastWRPost(&ops, addr, int32(len(steps)), &steps[0]))
	assert.Equal(t, int32(-1), ops.Bad)

	bx := b.RawEx()
	require.NoError(t, bx.Start())
	bx.WRID, bx.WRFlags = 10, 0
	require.NoError(t, bx.RDMAWrite(0x99, 0x20000))
	require.NoError(t, bx.SetSGE(0x77, 0x10000, 64))
	bx.WRID, bx.WRFlags = 11, uint32(ibv.SendFlagsSolicited)
	require.NoError(t, bx.SendImm(0xabcd))
	require.NoError(t, bx.SetSGEList(list))
	bx.WRID, bx.WRFlags = 12, uint32(ibv.SendFlagsSignaled)
	require.NoError(t, bx.RDMARead(0x98, 0x28000))
	require.NoError(t, bx.SetSGE(0x77, 0x18000, 128))
	bx.WRID, bx.WRFlags = 13, 0
	require.NoError(t, bx.Send())
	require.NoError(t, bx.SetSGE(0x77, 0x19000, 0))
	require.NoError(t, bx.Complete())

	require.Equal(t, uint64(4), a.SendPosted())
	require.Equal(t, b.SendHead(), a.SendHead())
	assert.Equal(t, b.SendDoorbell(), a.SendDoorbell())
	for i := 0; i < a.SendHead(); i++ {
		wa, wb := a.SendWQEAt(i), b.SendWQEAt(i)
		assert.Equal(t, a.Raw().QPNum, wa.QPN)
		wa.QPN, wb.QPN = 0, 0
		assert.Equal(t, wb, wa, "WQE at block %d", i)
		assert.Equal(t, b.SendWRID(i), a.SendWRID(i), "wr_id at block %d", i)
	}
	w := a.SendWQEAt(1)
	assert.Equal(t, uint8(stubprovider.OpSendImm), w.Opcode)
	assert.Equal(t, []ibv.SGE{list[0], list[1]}, w.SGEs)

	// Refused steps: an op the QP lacks (the stub has no atomics), no op,
	// an op past the last. Nothing posted; the QP takes the next batch.
	head := a.SendHead()
	for _, bad := range []func(s *ibv.WRStep){
		func(s *ibv.WRStep) { s.AtomicFetchAdd(1, 0x1000, 1) },
		func(s *ibv.WRStep) { s.Op = 0 },
		func(s *ibv.WRStep) { s.Op = 200 },
	} {
		steps := make([]ibv.WRStep, 4)
		steps[0].RDMAWrite(0x99, 0x20000)
		steps[1].SetSGE(0x77, 0x10000, 64)
		bad(&steps[2])
		steps[3].SetSGE(0x77, 0x10000, 8)
		assert.Equal(t, -int32(unix.EINVAL), ibv.FastWRPost(&ops, addr, 4, &steps[0]))
		assert.Equal(t, int32(2), ops.Bad)
		assert.Equal(t, head, a.SendHead(), "aborted: nothing built")
		assert.Equal(t, uint64(4), a.SendPosted())
	}
	assert.Zero(t, ibv.FastWRPost(&ops, addr, 0, &steps[0]), "no steps")
	noStart := ops
	noStart.WRStart = 0
	assert.Equal(t, -int32(unix.EINVAL), ibv.FastWRPost(&noStart, addr, 2, &steps[0]))
	assert.Equal(t, int32(-1), noStart.Bad)
	require.Equal(t, int32(0), ibv.FastWRPost(&ops, addr, 2, &steps[0]))
	assert.Equal(t, uint64(5), a.SendPosted())
	assert.Equal(t, uint64(10), a.SendWRID(head))
	assert.Zero(t, testing.AllocsPerRun(20, func() { ibv.FastWRPost(&ops, addr, 2, &steps[0]) }))
}
