//go:build rxe

package rdma

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// drain polls cq until n completions arrived, failing on an error status.
func drain(t testing.TB, cq *CQ, wcs []ibv.WC, n int) {
	for got := 0; got < n; {
		k, err := cq.PollSpin(wcs, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for _, wc := range wcs[:k] {
			if wc.Status != ibv.WCStatusSuccess {
				t.Fatalf("completion %d: %s", wc.WRID, ibv.WCStatusStr(wc.Status))
			}
		}
		got += k
	}
}

// TestDataPathZeroAlloc: in steady state a send + receive round (post a
// receive, post a signaled send, poll both CQs), a batched RDMA write, the
// fused SendPoll, and a receive waited for on the netpoller (Await) or in C
// (WaitBlocking) allocate nothing.
func TestDataPathZeroAlloc(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{MaxSend: 16, MaxRecv: 16})
	sendSGE := []ibv.SGE{a.sge(t, 0, 64)}
	recvSGE := []ibv.SGE{b.sge(t, 0, 64)}
	wcs := make([]ibv.WC, 16)
	batch := make([]SendWork, 8)
	for i := range batch {
		batch[i] = SendWork{ID: uint64(i), Op: ibv.WROpcodeRDMAWrite, Flags: ibv.SendFlagsSignaled,
			SGEs: []ibv.SGE{a.sge(t, 64*i, 64)}, RemoteAddr: b.mr.Addr() + 4096 + uint64(64*i), RKey: b.mr.RKey()}
	}

	round := func() {
		if err := b.qp.PostRecv(RecvWork{ID: 1, SGEs: recvSGE}); err != nil {
			t.Fatal(err)
		}
		if err := a.qp.PostSend(SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}); err != nil {
			t.Fatal(err)
		}
		drain(t, a.cq, wcs, 1)
		drain(t, b.cq, wcs, 1)
	}
	write := func() {
		if err := a.qp.PostSend(batch...); err != nil {
			t.Fatal(err)
		}
		for got := 0; got < len(batch); {
			done, err := a.cq.PollBatch(16)
			if err != nil {
				t.Fatal(err)
			}
			for _, wc := range done {
				if wc.Status != ibv.WCStatusSuccess {
					t.Fatalf("write %d: %s", wc.WRID, ibv.WCStatusStr(wc.Status))
				}
			}
			got += len(done)
		}
	}
	fused := func() {
		if err := b.qp.PostRecv(RecvWork{ID: 1, SGEs: recvSGE}); err != nil {
			t.Fatal(err)
		}
		n, err := a.qp.SendPoll(SendWork{ID: 3, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}, wcs, 1<<22)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			drain(t, a.cq, wcs, 1)
		}
		drain(t, b.cq, wcs, 1)
	}
	// The receiver parks on the netpoller (CQ.Await, context.Background):
	// the wait allocates nothing either.
	await := func() {
		if err := b.qp.PostRecv(RecvWork{ID: 1, SGEs: recvSGE}); err != nil {
			t.Fatal(err)
		}
		if err := a.qp.PostSend(SendWork{ID: 4, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.cq.Await(context.Background(), wcs); err != nil {
			t.Fatal(err)
		}
		drain(t, a.cq, wcs, 1)
	}
	// The receiver waits in C (CompChannel.WaitBlocking, context.Background),
	// then drains.
	blocking := func() {
		if err := b.qp.PostRecv(RecvWork{ID: 1, SGEs: recvSGE}); err != nil {
			t.Fatal(err)
		}
		if err := a.qp.PostSend(SendWork{ID: 5, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}); err != nil {
			t.Fatal(err)
		}
		for {
			if n, err := b.cq.Poll(wcs); err != nil || n > 0 {
				if err != nil {
					t.Fatal(err)
				}
				break
			}
			if _, err := b.cc.WaitBlocking(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		drain(t, a.cq, wcs, 1)
	}
	// The same, waiting and taking the first poll in one C call
	// (CompChannel.WaitBlockingPoll).
	blockingPoll := func() {
		if err := b.qp.PostRecv(RecvWork{ID: 1, SGEs: recvSGE}); err != nil {
			t.Fatal(err)
		}
		if err := a.qp.PostSend(SendWork{ID: 6, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}); err != nil {
			t.Fatal(err)
		}
		for got := 0; got == 0; {
			_, n, err := b.cc.WaitBlockingPoll(context.Background(), wcs)
			if err != nil {
				t.Fatal(err)
			}
			got = n
		}
		drain(t, a.cq, wcs, 1)
	}
	// The netpoller's WaitPoll into an array of the caller's stack, which
	// must not escape to the heap (the wait polls into the channel's C
	// memory and copies).
	waitPoll := func() {
		if err := b.qp.PostRecv(RecvWork{ID: 1, SGEs: recvSGE}); err != nil {
			t.Fatal(err)
		}
		if err := a.qp.PostSend(SendWork{ID: 7, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}); err != nil {
			t.Fatal(err)
		}
		var local [4]ibv.WC
		for got := 0; got == 0; {
			_, n, err := b.cc.WaitPoll(context.Background(), local[:])
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 && local[0].WRID != 1 {
				t.Fatalf("WaitPoll: completion %d, want the receive's", local[0].WRID)
			}
			got = n
		}
		drain(t, a.cq, wcs, 1)
	}
	for name, f := range map[string]func(){"send/recv": round, "rdma write x8": write, "SendPoll": fused, "Await": await,
		"WaitBlocking": blocking, "WaitBlockingPoll": blockingPoll, "WaitPoll": waitPoll} {
		f() // warm up
		assert.Zero(t, testing.AllocsPerRun(200, f), name)
	}

	// The writes landed where they were aimed.
	for i := range batch {
		binary.LittleEndian.PutUint64(a.buf.Bytes()[64*i:], uint64(0xabc0+i))
	}
	write()
	for i := range batch {
		require.Equal(t, uint64(0xabc0+i), binary.LittleEndian.Uint64(b.buf.Bytes()[4096+64*i:]))
	}
}

// TestPollIntoStructField: completions can land in an array field of a
// struct that also holds Go pointers. cgo's run-time check of a pointer
// argument (cgocheck) refuses such memory with a panic; the data path
// passes ibv.WC memory as a C type without pointers, which cgo does not
// check, and the cgo rules allow (the memory passed, the array, holds no
// Go pointers).
func TestPollIntoStructField(t *testing.T) {
	a, b := pair(t, QPConfig{MaxSend: 4, MaxRecv: 4})
	type holder struct {
		name *string
		wcs  [4]ibv.WC
		next *holder
	}
	name := "completions"
	h := &holder{name: &name}
	h.next = h
	sendSGE := []ibv.SGE{a.sge(t, 0, 8)}
	require.NoError(t, b.qp.PostRecv(RecvWork{ID: 7, SGEs: []ibv.SGE{b.sge(t, 0, 8)}}))
	n, err := a.qp.SendPoll(SendWork{ID: 8, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sendSGE}, h.wcs[:], 1<<22)
	require.NoError(t, err)
	if n == 0 {
		n, err = a.cq.PollSpin(h.wcs[:], 1<<22)
		require.NoError(t, err)
	}
	require.Equal(t, 1, n)
	assert.Equal(t, uint64(8), h.wcs[0].WRID)
	for i := 0; n == 0 || i == 0; i++ {
		require.Less(t, i, 1<<22, "no receive completion")
		n, err = b.cq.Poll(h.wcs[1:])
		require.NoError(t, err)
	}
	assert.Equal(t, uint64(7), h.wcs[1].WRID)
	assert.Equal(t, ibv.WCStatusSuccess, h.wcs[1].Status)
	assert.Equal(t, "completions", *h.name)
}

// TestPostErrors: a batch larger than the queue, or a work request with too
// many SGEs, is refused before C with nothing posted; a post the provider
// refuses names ibv_post_send and says how many were posted.
func TestPostErrors(t *testing.T) {
	rxetest.NoLeaks(t)
	a, _ := pair(t, QPConfig{MaxSend: 4, MaxRecv: 4})
	var pe *PostError
	err := a.qp.PostSend(make([]SendWork, 5)...)
	require.ErrorAs(t, err, &pe)
	assert.Zero(t, pe.Posted)
	err = a.qp.PostSend(SendWork{Op: ibv.WROpcodeSend, SGEs: make([]ibv.SGE, 2)})
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "2 SGEs")
	err = a.qp.PostSend()
	require.ErrorAs(t, err, &pe)

	// No receive is posted at B: the sends wait on RNR retries, so the
	// send queue fills; the post that finds it full fails in the provider
	// (ENOMEM), the error naming ibv_post_send, with the first of its
	// batch posted and the second not.
	sg := a.sge(t, 0, 8)
	ws := []SendWork{{ID: 1, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{sg}}}
	posted := 0
	for ; posted < 4096; posted++ {
		if err = a.qp.PostSend(ws[0], ws[0]); err != nil {
			break
		}
		posted++
	}
	require.ErrorAs(t, err, &pe, "posted %d sends on a queue of %d", posted, a.qp.Caps().MaxSendWR)
	var ce *ibv.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "ibv_post_send", ce.Func)
	assert.ErrorIs(t, err, unix.ENOMEM)
	posted += pe.Posted
	// rxe rounds its queue up (a 4-deep queue takes 7): at least what was
	// asked fits.
	assert.GreaterOrEqual(t, posted, int(a.qp.Caps().MaxSendWR))
	// Flush the queue so that the QP closes clean.
	require.NoError(t, a.qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
	wcs := make([]ibv.WC, 8)
	for got := 0; got < posted; {
		n, err := a.cq.PollSpin(wcs, 1<<22)
		require.NoError(t, err)
		got += n
	}
}

// TestDataPathZeroAllocUDSRQ: in steady state a UD round (a receive posted
// to an SRQ, a send carrying its address handle, QPN and Q_Key, both
// CQs polled) allocates nothing.
func TestDataPathZeroAllocUDSRQ(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a := newUDNode(t, env, na.Dev, 1)
	b := newSRQNode(t, nb.Dev, 0, SRQConfig{MaxWR: 16})
	qb, err := b.pd.NewQP(QPConfig{Type: ibv.QPTypeUD, SendCQ: b.cq, RecvCQ: b.cq, SRQ: b.srq})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, qb.Close()) })
	require.NoError(t, qb.ActivateUD(1, udQKey))
	gid, err := b.dev.GID(1, env.GIDIndex)
	require.NoError(t, err)
	ah := mustAH(t, a.pd, env, gid)
	recv := RecvWork{ID: 1, SGEs: []ibv.SGE{b.mr.sge(t, 0, GRHLen+64)}}
	send := SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.mr.sge(t, 0, 64)},
		AH: ah, RemoteQPN: qb.Num(), RemoteQKey: udQKey}
	wcs := make([]ibv.WC, 4)
	round := func() {
		if err := b.srq.PostRecv(recv); err != nil {
			t.Fatal(err)
		}
		if err := a.qps[0].PostSend(send); err != nil {
			t.Fatal(err)
		}
		drain(t, a.cq, wcs, 1)
		drain(t, b.cq, wcs, 1)
	}
	round()
	assert.Zero(t, testing.AllocsPerRun(200, round))
}
