//go:build rxe

package rdma

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestBatchRC: a storage server's shape on rxe. B keeps a ring of 8
// receive slots as one prepared RecvBatch whose SGE window is the whole
// ring, reposting the slots that completed (SetSGE, SetID, PostRange); A
// answers each request with a prepared SendBatch of two work requests, an
// RDMA write with immediate data into the slot's place in B's memory and a
// send with immediate data, changing per post the remote address, the
// local SGE within its window and the immediate data. Every byte arrives
// where it was sent, every completion carries the wr_id and immediate
// data of that post, over enough rounds for both queues to wrap, and no
// post or setter allocates.
func TestBatchRC(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{MaxSend: 16, MaxRecv: 16, MaxSendSGE: 2})
	const slots, slot = 8, 256
	// B: receive slots at [0, 8*256); the RDMA writes land at 8192 + 256i.
	ring := make([]RecvWork, slots)
	for i := range ring {
		ring[i] = RecvWork{ID: uint64(i), SGEs: []ibv.SGE{b.sge(t, 0, slots*slot)}}
	}
	rb, err := b.qp.PrepareRecv(ring...)
	require.NoError(t, err)
	for i := range slots {
		require.NoError(t, rb.SetSGE(i, 0, b.mr.Addr()+uint64(i*slot), slot))
	}
	require.NoError(t, rb.Post())

	// A: its messages at [0, 16 KiB): the write's source window and the
	// send's.
	sb, err := a.qp.PrepareSend(
		SendWork{Op: ibv.WROpcodeRDMAWriteWithImm, SGEs: []ibv.SGE{a.sge(t, 0, 8192)}, RemoteAddr: b.mr.Addr() + 8192, RKey: b.mr.RKey()},
		SendWork{Op: ibv.WROpcodeSendWithImm, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 8192, 8192)}},
	)
	require.NoError(t, err)
	abuf, bbuf := a.buf.Bytes(), b.buf.Bytes()
	const rounds = 40
	for r := range rounds {
		k := 2 * r % slots // the receive slot of this round's write (k+1: its send)
		size := 16 + r*5
		wmsg, smsg := make([]byte, size), make([]byte, size/2)
		for j := range wmsg {
			wmsg[j] = byte(r*13 + j)
		}
		for j := range smsg {
			smsg[j] = byte(r*7 + j + 1)
		}
		woff, soff := 64*r%4096, 8192+32*r%4096
		copy(abuf[woff:], wmsg)
		copy(abuf[soff:], smsg)
		sb.SetID(0, uint64(1000+r))
		sb.SetID(1, uint64(2000+r))
		require.NoError(t, sb.SetSGE(0, 0, a.mr.Addr()+uint64(woff), uint32(size)))
		require.NoError(t, sb.SetSGE(1, 0, a.mr.Addr()+uint64(soff), uint32(size/2)))
		require.NoError(t, sb.SetRemote(0, b.mr.Addr()+uint64(8192+slot*k), b.mr.RKey()))
		require.NoError(t, sb.SetImm(0, uint32(0xa000+r)))
		require.NoError(t, sb.SetImm(1, uint32(0xb000+r)))
		require.NoError(t, sb.Post(), "round %d", r)

		wcs := awaitWCs(t, a.cq, 1)
		require.Equal(t, ibv.WCStatusSuccess, wcs[0].Status, "round %d", r)
		require.Equal(t, uint64(2000+r), wcs[0].WRID, "round %d: the signaled send", r)
		got := awaitWCs(t, b.cq, 2)
		what := fmt.Sprintf("round %d", r)
		// The write with immediate data takes receive slot k, the send
		// slot k+1 (the ring is reposted in the order it is taken).
		require.Equal(t, ibv.WCOpcodeRecvRDMAWithImm, got[0].Opcode, what)
		assert.Equal(t, uint64(k), got[0].WRID, what)
		assert.Equal(t, uint32(0xa000+r), *got[0].ImmData(), what)
		require.Equal(t, ibv.WCOpcodeRecv, got[1].Opcode, what)
		assert.Equal(t, uint64((k+1)%slots), got[1].WRID, what)
		assert.Equal(t, uint32(0xb000+r), *got[1].ImmData(), what)
		assert.Equal(t, uint32(size/2), got[1].ByteLen, what)
		assert.True(t, bytes.Equal(wmsg, bbuf[8192+slot*k:8192+slot*k+size]), "%s: the write", what)
		sslot := int(got[1].WRID)
		assert.True(t, bytes.Equal(smsg, bbuf[slot*sslot:slot*sslot+size/2]), "%s: the send", what)
		// Repost the two slots taken, one range of the ring's batch.
		for _, wc := range got {
			i := int(wc.WRID)
			rb.SetID(i, uint64(i))
			require.NoError(t, rb.SetSGE(i, 0, b.mr.Addr()+uint64(i*slot), slot))
		}
		require.NoError(t, rb.PostRange(k, k+2), what)
	}

	// No allocation in a round's posts and setters: the send alone, its
	// receive reposted.
	assert.Zero(t, testing.AllocsPerRun(20, func() {
		sb.SetID(1, 1)
		if sb.SetSGE(1, 0, a.mr.Addr()+8192, 8) != nil || sb.SetImm(1, 1) != nil || sb.SetRemote(0, b.mr.Addr()+8192, b.mr.RKey()) != nil {
			t.Fatal("a setter failed")
		}
		if err := sb.PostRange(1, 2); err != nil {
			t.Fatal(err)
		}
		drainOne(t, a.cq)
		drainOne(t, b.cq)
		if err := rb.PostRange(0, 1); err != nil {
			t.Fatal(err)
		}
	}))
}

// drainOne waits for one completion on cq, successful (for at most 30 s).
func drainOne(t *testing.T, cq *CQ) {
	var wcs [1]ibv.WC
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		n, err := cq.Poll(wcs[:])
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			if wcs[0].Status != ibv.WCStatusSuccess {
				t.Fatalf("completion: %s", ibv.WCStatusStr(wcs[0].Status))
			}
			return
		}
	}
	t.Fatal("no completion in 30 s")
}

// TestBatchUDSRQ: a prepared UD send batch to a UD QP on an SRQ whose
// receives are a prepared batch: each message arrives with the wr_id set
// for that post; once the batch's address handle is closed, a post is
// refused with ErrClosed before C, and a batch for a QP of another PD's
// address handle is refused at PrepareSend.
func TestBatchUDSRQ(t *testing.T) {
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
	ah, err := a.pd.NewAH(Route{GIDIndex: env.GIDIndex, DGID: gid})
	require.NoError(t, err)

	rb, err := b.srq.PrepareRecv(RecvWork{SGEs: []ibv.SGE{b.mr.sge(t, 0, 4096)}}, RecvWork{SGEs: []ibv.SGE{b.mr.sge(t, 4096, 4096)}})
	require.NoError(t, err)
	sb, err := a.qps[0].PrepareSend(SendWork{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.mr.sge(t, 0, 1024)},
		AH: ah, RemoteQPN: qb.Num(), RemoteQKey: udQKey})
	require.NoError(t, err)
	abuf, bbuf := a.buf.Bytes(), b.buf.Bytes()
	for r := range 6 {
		rb.SetID(0, uint64(10+2*r))
		rb.SetID(1, uint64(11+2*r))
		require.NoError(t, rb.Post())
		for k := range 2 {
			msg := []byte(fmt.Sprintf("round %d, message %d", r, k))
			copy(abuf[128*k:], msg)
			sb.SetID(0, uint64(100+2*r+k))
			require.NoError(t, sb.SetSGE(0, 0, a.mr.Addr()+uint64(128*k), uint32(len(msg))))
			require.NoError(t, sb.Post())
			wc := a.oneWC(t, "send")
			assert.Equal(t, uint64(100+2*r+k), wc.WRID)
			got := awaitWCs(t, b.cq, 1)[0]
			require.Equal(t, ibv.WCStatusSuccess, got.Status)
			assert.Equal(t, uint64(10+2*r+k), got.WRID)
			assert.Equal(t, uint32(GRHLen+len(msg)), got.ByteLen)
			off := 4096 * k
			assert.Equal(t, string(msg), string(bbuf[off+GRHLen:off+GRHLen+len(msg)]))
		}
	}
	require.NoError(t, ah.Close())
	err = sb.Post()
	var pe *PostError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, ErrClosed, "the batch's address handle is closed")

	_, pd2 := devPD(t, na.Dev)
	ah2 := mustAH(t, pd2, env, gid)
	_, err = a.qps[0].PrepareSend(SendWork{Op: ibv.WROpcodeSend, AH: ah2, RemoteQPN: qb.Num(), RemoteQKey: udQKey})
	require.ErrorAs(t, err, &pe)
}

// TestPostExRC: QP.PostEx posts a mix of work requests through the
// extended API in one crossing on rxe (an RDMA write, a send gathered from
// two SGEs with immediate data, an inline send, an RDMA read, an inline
// send from two SGEs, which PostEx gathers into one buffer): each
// arrives byte for byte and completes in order with its wr_id; an opcode
// outside the QP's SendOps is refused before C, and so is a work request
// of several SGEs not inline on rxe before rdma-core rxeSGEListFixed. Before rdma-core
// RxeExtended librxe has no create_qp_ex (TestExtendedVerbs).
func TestPostExRC(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	b := newSide(t, nb.Dev, QPConfig{MaxRecv: 16})
	a := newSide(t, na.Dev, QPConfig{})
	if !requireExtendedCQ(t, a.dev) {
		return
	}
	qx, err := a.pd.NewQP(QPConfig{SendCQ: a.cq, RecvCQ: a.cq, MaxSend: 16, MaxSendSGE: 2, MaxInline: 64,
		SendOps: ibv.QPCreateSendOpsFlagsSend | ibv.QPCreateSendOpsFlagsSendWithImm | ibv.QPCreateSendOpsFlagsRDMAWrite | ibv.QPCreateSendOpsFlagsRDMARead})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, qx.Close()) })
	path := Path{GIDIndex: env.GIDIndex}
	ea, err := qx.Endpoint(path, 11)
	require.NoError(t, err)
	eb, err := b.qp.Endpoint(path, 22)
	require.NoError(t, err)
	require.NoError(t, qx.Connect(path, 11, eb))
	require.NoError(t, b.qp.Connect(path, 22, ea))

	abuf, bbuf := a.buf.Bytes(), b.buf.Bytes()
	// Before rdma-core rxeSGEListFixed librxe sets a wrong length for a
	// work request of several SGEs: PostEx refuses it (and posts none).
	oneSGE := env.Release < rxeSGEListFixed
	if oneSGE {
		err := qx.PostEx(SendWork{Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 100, 11), a.sge(t, 200, 8)}})
		var pe *PostError
		require.ErrorAs(t, err, &pe)
		require.ErrorIs(t, err, unix.EOPNOTSUPP)
		requireEmpty(t, a.cq)
	}
	for r := range 3 {
		copy(abuf[0:], fmt.Sprintf("written %d", r))
		copy(abuf[100:], fmt.Sprintf("gathered %d ", r))
		copy(abuf[200:], "from two")
		copy(abuf[300:], fmt.Sprintf("inline %d", r))
		copy(bbuf[20000:], fmt.Sprintf("read back %d", r))
		require.NoError(t, b.qp.PostRecv(RecvWork{ID: 1, SGEs: []ibv.SGE{b.sge(t, 4096, 256)}}, RecvWork{ID: 2, SGEs: []ibv.SGE{b.sge(t, 8192, 256)}}))
		ws := []SendWork{
			{ID: 10, Op: ibv.WROpcodeRDMAWrite, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 0, 9)}, RemoteAddr: b.mr.Addr() + 12288, RKey: b.mr.RKey()},
			{ID: 11, Op: ibv.WROpcodeSendWithImm, Imm: 0x77, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 100, 11), a.sge(t, 200, 8)}},
			{ID: 12, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled | ibv.SendFlagsInline, SGEs: []ibv.SGE{a.sge(t, 300, 8)}},
			{ID: 13, Op: ibv.WROpcodeRDMARead, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 1000, 11)}, RemoteAddr: b.mr.Addr() + 20000, RKey: b.mr.RKey()},
			{ID: 14, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled | ibv.SendFlagsInline, SGEs: []ibv.SGE{a.sge(t, 400, 5), a.sge(t, 500, 6)}},
		}
		if oneSGE { // the gathered send's second SGE moved next to its first
			copy(abuf[111:], "from two")
			ws[1].SGEs = []ibv.SGE{a.sge(t, 100, 19)}
		}
		copy(abuf[400:], "two, ")
		copy(abuf[500:], "inline")
		require.NoError(t, b.qp.PostRecv(RecvWork{ID: 3, SGEs: []ibv.SGE{b.sge(t, 16384, 256)}}))
		require.NoError(t, qx.PostEx(ws...))
		copy(abuf[300:], "clobber!") // inline: copied at the post
		copy(abuf[400:], "clobber!")
		for i, wc := range awaitWCs(t, a.cq, 5) {
			require.Equal(t, ibv.WCStatusSuccess, wc.Status, "round %d, %d: %s", r, i, ibv.WCStatusStr(wc.Status))
			assert.Equal(t, uint64(10+i), wc.WRID)
		}
		got := awaitWCs(t, b.cq, 3)
		assert.Equal(t, uint32(0x77), *got[0].ImmData())
		assert.Equal(t, uint32(11), got[2].ByteLen, "inline from two SGEs")
		assert.Equal(t, "two, inline", string(bbuf[16384:16384+11]))
		assert.Equal(t, fmt.Sprintf("written %d", r), string(bbuf[12288:12297]))
		assert.Equal(t, fmt.Sprintf("gathered %d from two", r), string(bbuf[4096:4096+19]))
		assert.Equal(t, fmt.Sprintf("inline %d", r), string(bbuf[8192:8200]))
		assert.Equal(t, fmt.Sprintf("read back %d", r), string(abuf[1000:1011]))
	}
	err = qx.PostEx(SendWork{Op: ibv.WROpcodeRDMAWriteWithImm, SGEs: []ibv.SGE{a.sge(t, 0, 8)}, RemoteAddr: b.mr.Addr(), RKey: b.mr.RKey()})
	var pe *PostError
	require.ErrorAs(t, err, &pe)
	assert.Zero(t, pe.Posted)
	requireEmpty(t, a.cq)
}
