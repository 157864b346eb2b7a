//go:build linux && cgo && !rxe

package rdma

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// batchQP is a stub QP of 16 send and receive slots of 2 SGEs each, and
// an SRQ of 16.
func batchQP(t *testing.T) (*QP, *stubprovider.QP, *SRQ, *stubprovider.SRQ) {
	e := newStubEnv(t)
	cq, s := e.cq(t, 64, 0)
	q, sq := e.qp(t, QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 16, MaxRecv: 16, MaxSendSGE: 2, MaxRecvSGE: 2}, s, s, nil, false)
	srq, ssrq := e.srq(t, SRQConfig{MaxWR: 16, MaxSGE: 2})
	return q, sq, srq, ssrq
}

// TestSendBatch posts a prepared batch through a stub provider: the WQEs
// the provider builds carry what was prepared and what the setters
// changed since, whole and in part, posts of the batch interleave with
// PostSend, and nothing allocates.
func TestSendBatch(t *testing.T) {
	q, sq, _, _ := batchQP(t)
	b, err := q.PrepareSend(
		SendWork{ID: 1, Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{{Addr: 0x10000, Length: 4096, LKey: 7}}, RemoteAddr: 0x90000, RKey: 9},
		SendWork{ID: 2, Op: ibv.WROpcodeSendWithImm, Imm: 0xaa, SGEs: []ibv.SGE{{Addr: 0x20000, Length: 64, LKey: 7}, {Addr: 0x30000, Length: 64, LKey: 8}}},
		SendWork{ID: 3, Op: ibv.WROpcodeRDMARead, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{{Addr: 0x40000, Length: 128, LKey: 7}}, RemoteAddr: 0xa0000, RKey: 10},
	)
	require.NoError(t, err)
	require.Equal(t, 3, b.Len())

	head := sq.SendHead()
	require.NoError(t, b.Post())
	assert.Equal(t, uint64(3), sq.SendPosted())
	w := sq.SendWQEAt(head)
	assert.Equal(t, uint8(stubprovider.OpRDMAWrite), w.Opcode)
	assert.Equal(t, uint64(0x90000), w.RAddr)
	assert.Equal(t, []ibv.SGE{{Addr: 0x10000, Length: 4096, LKey: 7}}, w.SGEs)
	assert.Equal(t, uint64(1), sq.SendWRID(head))
	w = sq.SendWQEAt(head + 1)
	assert.Equal(t, uint8(stubprovider.OpSendImm), w.Opcode)
	assert.Equal(t, uint32(0xaa), w.Imm)
	assert.Len(t, w.SGEs, 2)
	w = sq.SendWQEAt(head + 2)
	assert.Equal(t, uint8(stubprovider.OpRDMARead), w.Opcode)
	assert.True(t, w.Signaled)

	// The setters, then the batch again.
	b.SetID(0, 100)
	b.SetID(1, 101)
	b.SetID(2, 102)
	require.NoError(t, b.SetSGE(0, 0, 0x10000+1024, 512))
	require.NoError(t, b.SetSGE(1, 1, 0x30000, 0))
	require.NoError(t, b.SetImm(1, 0xbb))
	require.NoError(t, b.SetRemote(0, 0x99000, 19))
	require.NoError(t, b.SetRemote(2, 0xa8000, 20))
	head = sq.SendHead()
	require.NoError(t, b.Post())
	w = sq.SendWQEAt(head)
	assert.Equal(t, uint64(0x99000), w.RAddr)
	assert.Equal(t, uint32(19), w.RKey)
	assert.Equal(t, []ibv.SGE{{Addr: 0x10000 + 1024, Length: 512, LKey: 7}}, w.SGEs)
	assert.Equal(t, uint64(100), sq.SendWRID(head))
	w = sq.SendWQEAt(head + 1)
	assert.Equal(t, uint32(0xbb), w.Imm)
	assert.Equal(t, []ibv.SGE{{Addr: 0x20000, Length: 64, LKey: 7}}, w.SGEs, "the provider skips an SGE of 0 bytes")
	assert.Equal(t, uint64(101), sq.SendWRID(head+1))
	w = sq.SendWQEAt(head + 2)
	assert.Equal(t, uint64(0xa8000), w.RAddr)
	assert.Equal(t, uint64(102), sq.SendWRID(head+2))

	// A part of the batch, then PostSend, then the whole again: the chain
	// is whole after a part.
	posted := sq.SendPosted()
	head = sq.SendHead()
	require.NoError(t, b.PostRange(1, 2))
	assert.Equal(t, posted+1, sq.SendPosted())
	assert.Equal(t, uint64(101), sq.SendWRID(head))
	require.NoError(t, q.PostSend(SendWork{ID: 7, Op: ibv.WROpcodeSend}))
	require.NoError(t, b.PostRange(0, 3))
	assert.Equal(t, posted+5, sq.SendPosted())

	// Nothing allocates.
	assert.Zero(t, testing.AllocsPerRun(50, func() {
		b.SetID(0, 5)
		if b.SetSGE(0, 0, 0x10000, 64) != nil || b.SetRemote(0, 0x90000, 9) != nil || b.SetImm(1, 1) != nil || b.Post() != nil {
			t.Fatal("a setter or post failed")
		}
	}))
}

// TestSendBatchRefusals: what PostSend refuses PrepareSend refuses, the
// setters refuse what leaves what was prepared, a bad range is refused,
// a provider's failure is a *PostError counting from the range's start,
// and a post after the QP's Close is ErrClosed.
func TestSendBatchRefusals(t *testing.T) {
	q, sq, _, _ := batchQP(t)
	sge := []ibv.SGE{{Addr: 0x10000, Length: 64, LKey: 7}}
	for name, ws := range map[string][]SendWork{
		"no work requests":  nil,
		"too many":          make([]SendWork, 17),
		"an unknown opcode": {{Op: 77, SGEs: sge}},
		"too many SGEs":     {{Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{sge[0], sge[0], sge[0]}}},
		"an AH on RC":       {{Op: ibv.WROpcodeSend, SGEs: sge, RemoteQPN: 5}},
		"an atomic of 4 B":  {{Op: ibv.WROpcodeAtomicFetchAndAdd, SGEs: []ibv.SGE{{Addr: 0x10000, Length: 4}}}},
		"inline unmapped":   {{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsInline, SGEs: sge}},
	} {
		_, err := q.PrepareSend(ws...)
		var pe *PostError
		require.ErrorAs(t, err, &pe, name)
		assert.True(t, errors.Is(err, unix.EINVAL), "%s: %v", name, err)
	}
	assert.Zero(t, sq.SendPosted(), "nothing posted")

	b, err := q.PrepareSend(
		SendWork{Op: ibv.WROpcodeSend, SGEs: sge},
		SendWork{Op: ibv.WROpcodeAtomicCmpAndSwp, SGEs: []ibv.SGE{{Addr: 0x18000, Length: 8, LKey: 7}}, RemoteAddr: 0x80000},
		SendWork{Op: ibv.WROpcodeRDMAWrite, SGEs: sge},
	)
	require.NoError(t, err)
	for name, err := range map[string]error{
		"SGE before its window":     b.SetSGE(0, 0, 0xffff, 1),
		"SGE past its window":       b.SetSGE(0, 0, 0x10001, 64),
		"SGE at the window's end+1": b.SetSGE(0, 0, 0x10041, 0),
		"SGE out of range":          b.SetSGE(0, 1, 0x10000, 1),
		"SGE of no work request":    b.SetSGE(3, 0, 0x10000, 1),
		"atomic's SGE not 8 bytes":  b.SetSGE(1, 0, 0x18000, 4),
		"imm of a send":             b.SetImm(0, 1),
		"imm of no work request":    b.SetImm(-1, 1),
		"remote of a send":          b.SetRemote(0, 0x1000, 1),
		"atomic's remote unaligned": b.SetRemote(1, 0x80004, 1),
		"range empty":               b.PostRange(1, 1),
		"range past the end":        b.PostRange(0, 4),
		"range before the start":    b.PostRange(-1, 2),
	} {
		assert.True(t, errors.Is(err, unix.EINVAL), "%s: %v", name, err)
	}
	assert.NoError(t, b.SetSGE(0, 0, 0x10040, 0), "an empty SGE at the window's end")
	assert.NoError(t, b.SetSGE(1, 0, 0x18000, 8))
	assert.NoError(t, b.SetRemote(1, 0x80008, 3))
	assert.True(t, panics(func() { b.SetID(3, 1) }), "SetID of no work request panics, as a slice index does")

	// The stub provider takes no atomics: the post fails at work request
	// 1, after one was posted; a range from 1 posts none.
	err = b.Post()
	var pe *PostError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 1, pe.Posted)
	var ce *ibv.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "ibv_post_send", ce.Func)
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)
	err = b.PostRange(1, 3)
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 0, pe.Posted)
	assert.NoError(t, b.PostRange(2, 3))

	var nb *SendBatch
	assert.True(t, errors.Is(nb.Post(), ErrNilHandle))
	assert.True(t, errors.Is(nb.SetSGE(0, 0, 0, 0), ErrNilHandle))
	var nq *QP
	_, err = nq.PrepareSend(SendWork{})
	assert.True(t, errors.Is(err, ErrNilHandle))

	require.NoError(t, q.Close())
	assert.True(t, errors.Is(b.Post(), ErrClosed), "post after the QP's Close")
	_, err = q.PrepareSend(SendWork{Op: ibv.WROpcodeSend})
	assert.True(t, errors.Is(err, ErrClosed))
}

// TestSendBatchInline: an inline work request's memory is checked again
// at each post: once its Buffer is freed, the post is refused before C.
func TestSendBatchInline(t *testing.T) {
	e := newStubEnv(t)
	cq, s := e.cq(t, 64, 0)
	q, sq := e.qp(t, QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 16, MaxInline: 64}, s, s, nil, false)
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	copy(buf.Bytes(), "inline!")
	b, err := q.PrepareSend(SendWork{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsInline, SGEs: []ibv.SGE{{Addr: uint64(buf.start()), Length: 7}}})
	require.NoError(t, err)
	assert.True(t, errors.Is(b.SetSGE(0, 0, uint64(buf.start()), 3), unix.EINVAL), "an inline SGE is fixed")
	head := sq.SendHead()
	require.NoError(t, b.Post())
	assert.Equal(t, []byte("inline!"), sq.SendWQEAt(head).Inline)
	require.NoError(t, buf.Free())
	err = b.Post()
	var pe *PostError
	require.ErrorAs(t, err, &pe)
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)
	assert.Equal(t, uint64(1), sq.SendPosted())
}

// TestRecvBatch posts prepared receive batches to a stub QP and SRQ: the
// WQEs carry the setters' SGEs and wr_ids, a part posts only its work
// requests, a QP on an SRQ refuses, and a post after Close is ErrClosed.
func TestRecvBatch(t *testing.T) {
	q, sq, srq, ssrq := batchQP(t)
	ws := []RecvWork{
		{ID: 1, SGEs: []ibv.SGE{{Addr: 0x10000, Length: 4096, LKey: 7}}},
		{ID: 2, SGEs: []ibv.SGE{{Addr: 0x20000, Length: 64, LKey: 7}, {Addr: 0x30000, Length: 64, LKey: 8}}},
	}
	for _, target := range []string{"QP", "SRQ"} {
		var b *RecvBatch
		var err error
		var posted func() uint64
		var wqe func(i int) []ibv.SGE
		var wrid func(i int) uint64
		if target == "QP" {
			b, err = q.PrepareRecv(ws...)
			posted, wqe, wrid = sq.RecvPosted, sq.RecvWQE, sq.RecvWRID
		} else {
			b, err = srq.PrepareRecv(ws...)
			posted, wqe, wrid = ssrq.Posted, ssrq.WQE, ssrq.WRID
		}
		require.NoError(t, err, target)
		require.Equal(t, 2, b.Len())
		// Each post of 2 takes the next 2 slots (the SRQ's free list runs
		// in order here: its device retires each post at once).
		slot := int(posted())
		require.NoError(t, b.Post(), target)
		assert.Equal(t, []ibv.SGE{{Addr: 0x10000, Length: 4096, LKey: 7}}, wqe(slot), target)
		assert.Equal(t, uint64(2), wrid(slot+1), target)

		b.SetID(0, 10)
		b.SetID(1, 11)
		require.NoError(t, b.SetSGE(0, 0, 0x10800, 100), target)
		require.NoError(t, b.SetSGE(1, 0, 0x20010, 16), target)
		assert.True(t, errors.Is(b.SetSGE(0, 0, 0x10800, 4096), unix.EINVAL), target)
		assert.True(t, errors.Is(b.SetSGE(1, 2, 0x20000, 1), unix.EINVAL), target)
		slot = int(posted())
		require.NoError(t, b.PostRange(1, 2), target)
		assert.Equal(t, uint64(slot+1), posted(), target)
		assert.Equal(t, []ibv.SGE{{Addr: 0x20010, Length: 16, LKey: 7}, {Addr: 0x30000, Length: 64, LKey: 8}}, wqe(slot), target)
		assert.Equal(t, uint64(11), wrid(slot), target)
		require.NoError(t, b.Post(), target)
		assert.Equal(t, []ibv.SGE{{Addr: 0x10800, Length: 100, LKey: 7}}, wqe(slot+1), target)
		assert.Equal(t, uint64(10), wrid(slot+1), target)
		assert.Zero(t, testing.AllocsPerRun(50, func() {
			b.SetID(0, 1)
			if b.SetSGE(0, 0, 0x10000, 64) != nil || b.Post() != nil {
				t.Fatal("a setter or post failed")
			}
		}), target)
		_, err = q.PrepareRecv(make([]RecvWork, 17)...)
		assert.True(t, errors.Is(err, unix.EINVAL), "%s: %v", target, err)
	}

	// A QP on the SRQ refuses receives of its own.
	e := newStubEnv(t)
	cq, s := e.cq(t, 64, 0)
	srq2, ssrq2 := e.srq(t, SRQConfig{MaxWR: 4})
	q2, _ := e.qp(t, QPConfig{SendCQ: cq, RecvCQ: cq, SRQ: srq2}, s, s, ssrq2, false)
	_, err := q2.PrepareRecv(ws[0])
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)

	qb, err := q.PrepareRecv(ws...)
	require.NoError(t, err)
	require.NoError(t, q.Close())
	assert.True(t, errors.Is(qb.Post(), ErrClosed))
	// A stub SRQ cannot be destroyed (ibv_destroy_srq would call into
	// libibverbs): its queue is marked closed as Close marks it.
	sb, err := srq.PrepareRecv(ws...)
	require.NoError(t, err)
	srq.mu.Lock()
	srq.closedQueue = true
	srq.mu.Unlock()
	assert.True(t, errors.Is(sb.Post(), ErrClosed))
	var nb *RecvBatch
	assert.True(t, errors.Is(nb.PostRange(0, 1), ErrNilHandle))
}

// TestBatchMemory: a batch's C memory outlives every use of the batch
// (it is freed once the batch is unreachable): batches made and dropped
// in a loop, with collections between, keep posting right.
func TestBatchMemory(t *testing.T) {
	q, sq, _, _ := batchQP(t)
	for i := range 200 {
		b, err := q.PrepareSend(SendWork{ID: uint64(i), Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{{Addr: 0x1000, Length: 8}}})
		require.NoError(t, err)
		head := sq.SendHead()
		require.NoError(t, b.Post())
		require.Equal(t, uint64(i), sq.SendWRID(head))
		if i%50 == 0 {
			runtime.GC()
		}
	}
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestPostEx posts through the extended API in one crossing (QP.PostEx):
// the WQEs are those PostSend builds on a twin QP for the same work
// requests; what PostSend refuses PostEx refuses, and an opcode outside
// the QP's SendOps, a QP without SendOps, and a builder or setter the
// provider lacks (the stub has no atomics and no inline setters) are
// refused with nothing posted.
func TestPostEx(t *testing.T) {
	e := newStubEnv(t)
	cq, s := e.cq(t, 64, 0)
	ops := ibv.QPCreateSendOpsFlagsSend | ibv.QPCreateSendOpsFlagsSendWithImm | ibv.QPCreateSendOpsFlagsRDMAWrite |
		ibv.QPCreateSendOpsFlagsRDMARead | ibv.QPCreateSendOpsFlagsAtomicFetchAndAdd
	cfg := QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 16, MaxSendSGE: 2, MaxInline: 64, SendOps: ops}
	qx, sx := e.qp(t, cfg, s, s, nil, true)
	cq2, s2 := e.cq(t, 64, 0)
	cfg.SendCQ, cfg.RecvCQ, cfg.SendOps = cq2, cq2, 0
	q, sq := e.qp(t, cfg, s2, s2, nil, false)

	ws := []SendWork{
		{ID: 1, Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{{Addr: 0x10000, Length: 64, LKey: 7}}, RemoteAddr: 0x90000, RKey: 9},
		{ID: 2, Op: ibv.WROpcodeSendWithImm, Imm: 0xaa, Flags: ibv.SendFlagsSolicited, SGEs: []ibv.SGE{{Addr: 0x20000, Length: 64, LKey: 7}, {Addr: 0x30000, Length: 32, LKey: 8}}},
		{ID: 3, Op: ibv.WROpcodeRDMARead, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{{Addr: 0x40000, Length: 128, LKey: 7}}, RemoteAddr: 0xa0000, RKey: 10},
		{ID: 4, Op: ibv.WROpcodeSend},
	}
	for round := range 2 {
		require.NoError(t, qx.PostEx(ws...), "round %d", round)
		require.NoError(t, q.PostSend(ws...), "round %d", round)
	}
	require.Equal(t, uint64(8), sx.SendPosted())
	require.Equal(t, sq.SendHead(), sx.SendHead())
	for i := 0; i < sx.SendHead(); i++ {
		wx, w := sx.SendWQEAt(i), sq.SendWQEAt(i)
		wx.QPN, w.QPN = 0, 0
		assert.Equal(t, w, wx, "WQE at block %d", i)
		assert.Equal(t, sq.SendWRID(i), sx.SendWRID(i), "wr_id at block %d", i)
	}
	assert.Zero(t, testing.AllocsPerRun(20, func() {
		if qx.PostEx(ws...) != nil {
			t.Fatal("PostEx failed")
		}
	}))

	posted := sx.SendPosted()
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	defer func() { require.NoError(t, buf.Free()) }()
	for name, c := range map[string]struct {
		q  *QP
		ws []SendWork
	}{
		"no work requests":        {qx, nil},
		"too many":                {qx, make([]SendWork, 17)},
		"an unknown opcode":       {qx, []SendWork{ws[0], {Op: 77}}},
		"an AH on RC":             {qx, []SendWork{{Op: ibv.WROpcodeSend, RemoteQKey: 1}}},
		"not in SendOps":          {qx, []SendWork{ws[0], {Op: ibv.WROpcodeRDMAWriteWithImm}}},
		"a QP without SendOps":    {q, ws[:1]},
		"no atomic builder":       {qx, []SendWork{ws[0], {Op: ibv.WROpcodeAtomicFetchAndAdd, SGEs: []ibv.SGE{{Addr: 0x18000, Length: 8}}}}},
		"inline memory not known": {qx, []SendWork{{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsInline, SGEs: []ibv.SGE{{Addr: 0x18000, Length: 8}}}}},
		"inline past MaxInline":   {qx, []SendWork{{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsInline, SGEs: []ibv.SGE{{Addr: uint64(buf.start()), Length: 40}, {Addr: uint64(buf.start()), Length: 40}}}}},
	} {
		err := c.q.PostEx(c.ws...)
		var pe *PostError
		require.ErrorAs(t, err, &pe, name)
		assert.Zero(t, pe.Posted, name)
		assert.True(t, errors.Is(err, unix.EINVAL), "%s: %v", name, err)
	}
	// The stub has no inline setter: refused after ibv_wr_abort, naming
	// the work request.
	err = qx.PostEx(ws[0], SendWork{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsInline, SGEs: []ibv.SGE{{Addr: uint64(buf.start()), Length: 8}}})
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)
	assert.ErrorContains(t, err, "work request 1")
	assert.Equal(t, posted, sx.SendPosted(), "nothing posted")
	head := sx.SendHead()
	require.NoError(t, qx.PostEx(ws[3]))
	assert.Equal(t, head, int(sx.SendWQEAt(head).Index), "the QP posts on where it was")

	require.NoError(t, qx.Close())
	assert.True(t, errors.Is(qx.PostEx(ws[0]), ErrClosed))
	var nq *QP
	assert.True(t, errors.Is(nq.PostEx(ws[0]), ErrNilHandle))
}
