//go:build rxe

package rdma

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// cSend posts w with ibv_post_send on q's raw QP from C, the work request
// and its SGEs in C memory, as a C program sharing the QP would.
func cSend(t *testing.T, q *QP, w SendWork) error {
	t.Helper()
	wr := (*ibv.SendWR)(cAlloc(unsafe.Sizeof(ibv.SendWR{})))
	defer cFree(unsafe.Pointer(wr))
	*wr = ibv.SendWR{WRID: w.ID, Opcode: w.Op, SendFlags: uint32(w.Flags), NumSGE: int32(len(w.SGEs))}
	if len(w.SGEs) > 0 {
		sg := unsafe.Slice((*ibv.SGE)(cAlloc(uintptr(len(w.SGEs))*unsafe.Sizeof(ibv.SGE{}))), len(w.SGEs))
		defer cFree(unsafe.Pointer(&sg[0]))
		copy(sg, w.SGEs)
		wr.SgList = &sg[0]
	}
	r := wr.WR.RDMA()
	r.RemoteAddr, r.RKey = w.RemoteAddr, w.RKey
	*wr.ImmData() = w.Imm
	_, err := q.Raw().PostSend(wr)
	return err
}

// checkPostErr checks that err is a *PostError with posted work requests
// posted, naming fn and wrapping errno.
func checkPostErr(t *testing.T, err error, fn string, errno unix.Errno, posted int, what string) {
	t.Helper()
	var pe *PostError
	require.ErrorAs(t, err, &pe, what)
	assert.Equal(t, posted, pe.Posted, what)
	var ce *ibv.Error
	require.ErrorAs(t, err, &ce, what)
	assert.Equal(t, fn, ce.Func, what)
	assert.ErrorIs(t, err, errno, what)
}

// TestSendKinds: sends posted through rdma interleave with sends posted
// from C on Raw: every kind (send gathered from two SGEs, inline send,
// send with immediate, RDMA write with and without immediate, RDMA read)
// arrives byte for byte and completes in posting order, over enough
// rounds for the queue to wrap.
func TestSendKinds(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{MaxSend: 16, MaxRecv: 64, MaxSendSGE: 2, MaxInline: 64})
	const perRound, rounds, size = 15, 6, 64
	ops := []ibv.WROpcode{ibv.WROpcodeSend, ibv.WROpcodeSend, ibv.WROpcodeSendWithImm, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMARead}
	// A: message i's source at 128i (its first 5 bytes) and 8192+128i
	// (the rest); an RDMA read's destination at 16384+128i.
	// B: receive i at 128i; RDMA writes land at 8192+128i; reads come
	// from 16384+128i.
	abuf, bbuf := a.buf.Bytes(), b.buf.Bytes()
	for round := range rounds {
		var recvs []int // the work requests that take a receive on B, in order
		for i := range perRound {
			op := ops[(round+i)%len(ops)]
			if op == ibv.WROpcodeSend || op == ibv.WROpcodeSendWithImm || op == ibv.WROpcodeRDMAWriteWithImm {
				require.NoError(t, b.qp.PostRecv(RecvWork{ID: uint64(i), SGEs: []ibv.SGE{b.sge(t, 128*i, size)}}))
				recvs = append(recvs, i)
			}
		}
		want := make([][]byte, perRound)
		for i := range perRound {
			id := uint64(round*perRound + i)
			op := ops[(round+i)%len(ops)]
			msg := make([]byte, size)
			for j := range msg {
				msg[j] = byte(int(id)*7 + j)
			}
			want[i] = msg
			copy(abuf[128*i:], msg[:5])
			copy(abuf[8192+128*i:], msg[5:])
			copy(bbuf[16384+128*i:], msg)
			clear(abuf[16384+128*i : 16384+128*i+size])
			clear(bbuf[128*i : 128*i+size])
			clear(bbuf[8192+128*i : 8192+128*i+size])
			w := SendWork{ID: id, Op: op, Flags: ibv.SendFlagsSignaled, Imm: uint32(id) | 0xab000000,
				SGEs: []ibv.SGE{a.sge(t, 128*i, 5), a.sge(t, 8192+128*i, size-5)}}
			switch op {
			case ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm:
				w.RemoteAddr, w.RKey = b.mr.Addr()+uint64(8192+128*i), b.mr.RKey()
			case ibv.WROpcodeRDMARead:
				w.RemoteAddr, w.RKey = b.mr.Addr()+uint64(16384+128*i), b.mr.RKey()
				w.SGEs = []ibv.SGE{a.sge(t, 16384+128*i, size)}
			}
			if op == ibv.WROpcodeSend && i%2 == 1 {
				w.Flags |= ibv.SendFlagsInline
			}
			if i%3 == 1 {
				require.NoError(t, cSend(t, a.qp, w))
			} else {
				require.NoError(t, a.qp.PostSend(w))
			}
			if w.Flags&ibv.SendFlagsInline != 0 {
				// Inline: the data was copied at the post.
				clear(abuf[128*i : 128*i+5])
				clear(abuf[8192+128*i : 8192+128*i+size-5])
			}
		}
		for i, wc := range awaitWCs(t, a.cq, perRound) {
			what := fmt.Sprintf("round %d, send %d", round, i)
			require.Equal(t, ibv.WCStatusSuccess, wc.Status, what)
			require.Equal(t, uint64(round*perRound+i), wc.WRID, what)
			switch op := ops[(round+i)%len(ops)]; op {
			case ibv.WROpcodeSend, ibv.WROpcodeSendWithImm:
				require.Equal(t, ibv.WCOpcodeSend, wc.Opcode, what)
			case ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm:
				require.Equal(t, ibv.WCOpcodeRDMAWrite, wc.Opcode, what)
				require.True(t, bytes.Equal(want[i], bbuf[8192+128*i:8192+128*i+size]), what)
			case ibv.WROpcodeRDMARead:
				require.Equal(t, ibv.WCOpcodeRDMARead, wc.Opcode, what)
				require.True(t, bytes.Equal(want[i], abuf[16384+128*i:16384+128*i+size]), what)
			}
		}
		for k, wc := range awaitWCs(t, b.cq, len(recvs)) {
			i := recvs[k]
			id := uint64(round*perRound + i)
			what := fmt.Sprintf("round %d, receive of send %d", round, i)
			require.Equal(t, ibv.WCStatusSuccess, wc.Status, what)
			require.Equal(t, uint64(i), wc.WRID, what)
			require.Equal(t, uint32(size), wc.ByteLen, what)
			switch ops[(round+i)%len(ops)] {
			case ibv.WROpcodeSend:
				require.Equal(t, ibv.WCOpcodeRecv, wc.Opcode, what)
				require.Zero(t, wc.WCFlags&uint32(ibv.WCFlagsWithImm), what)
				require.True(t, bytes.Equal(want[i], bbuf[128*i:128*i+size]), what)
			case ibv.WROpcodeSendWithImm:
				require.Equal(t, ibv.WCOpcodeRecv, wc.Opcode, what)
				require.NotZero(t, wc.WCFlags&uint32(ibv.WCFlagsWithImm), what)
				require.Equal(t, uint32(id)|0xab000000, *wc.ImmData(), what)
				require.True(t, bytes.Equal(want[i], bbuf[128*i:128*i+size]), what)
			case ibv.WROpcodeRDMAWriteWithImm:
				require.Equal(t, ibv.WCOpcodeRecvRDMAWithImm, wc.Opcode, what)
				require.Equal(t, uint32(id)|0xab000000, *wc.ImmData(), what)
			}
		}
	}
}

// TestSendErrors: PostSend fails where the provider fails, with its
// errors (naming ibv_post_send and wrapping its errno), and posts from Go
// and from C fill the same queue.
func TestSendErrors(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	cfg := QPConfig{MaxSend: 4, MaxRecv: 64, MaxInline: 16}
	na, nb := env.Pair(t)
	a, b := newSide(t, na.Dev, cfg), newSide(t, nb.Dev, cfg)
	send := func(id uint64) SendWork {
		return SendWork{ID: id, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 0, 8)}}
	}

	// Before RTS the kernel refuses the doorbell (EINVAL) and reports no
	// failed work request, but librxe has queued the sends.
	checkPostErr(t, a.qp.PostSend(send(1)), "ibv_post_send", unix.EINVAL, 0, "RESET")
	require.NoError(t, a.qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
	checkPostErr(t, a.qp.PostSend(send(2)), "ibv_post_send", unix.EINVAL, 0, "INIT")
	// Connected, with no receive on B: the queued sends wait for one,
	// retried without end (RNR), and fill the queue.
	connect(t, env, a, b)

	// An inline send longer than the QP's inline size: EINVAL at it, the
	// one before it posted. The provider's inline size is what the kernel
	// granted, at least the 16 asked.
	maxInline := int(a.qp.Caps().MaxInlineData)
	require.GreaterOrEqual(t, maxInline, 16)
	long := SendWork{ID: 99, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsInline | ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 0, maxInline+1)}}
	id := uint64(10)
	checkPostErr(t, a.qp.PostSend(send(id), long), "ibv_post_send", unix.EINVAL, 1, "inline too long")
	id++

	fillSQ := func(post func(id uint64) error) (int, error) {
		for n := 0; n < 1<<12; n++ {
			if err := post(id); err != nil {
				return n, err
			}
			id++
		}
		t.Fatal("the send queue never filled")
		return 0, nil
	}
	// Every send queued so far, in order: 1 and 2 before RTS, 10 before
	// the long one.
	posted := []uint64{1, 2, 10}
	first := id
	k0, err := fillSQ(func(id uint64) error { return a.qp.PostSend(send(id)) })
	checkPostErr(t, err, "ibv_post_send", unix.ENOMEM, 0, "full")
	for i := first; i < first+uint64(k0); i++ {
		posted = append(posted, i)
	}
	// Make room: receives on B let all of them complete, in order.
	drain := func() {
		t.Helper()
		for range posted {
			require.NoError(t, b.qp.PostRecv(RecvWork{SGEs: []ibv.SGE{b.sge(t, 0, 64)}}))
		}
		for i, wc := range awaitWCs(t, a.cq, len(posted)) {
			require.Equal(t, ibv.WCStatusSuccess, wc.Status, "send %d", i)
			require.Equal(t, posted[i], wc.WRID, "send %d", i)
		}
		awaitWCs(t, b.cq, len(posted))
		posted = posted[:0]
	}
	drain()
	capacity := k0 + 3

	// Posted from C, the queue holds as many; from Go and C in turn too.
	first = id
	k1, err := fillSQ(func(id uint64) error { return cSend(t, a.qp, send(id)) })
	require.ErrorIs(t, err, unix.ENOMEM)
	require.Equal(t, capacity, k1, "posting from C")
	for i := first; i < first+uint64(k1); i++ {
		posted = append(posted, i)
	}
	drain()
	first = id
	k2, err := fillSQ(func(id uint64) error {
		if id%2 == 0 {
			return a.qp.PostSend(send(id))
		}
		return cSend(t, a.qp, send(id))
	})
	require.Equal(t, capacity, k2, "posting from Go and C in turn")
	require.ErrorIs(t, err, unix.ENOMEM)
	for i := first; i < first+uint64(k2); i++ {
		posted = append(posted, i)
	}
	drain()

	// A batch that meets a full queue posts what fits.
	first = id
	for i := range capacity - 1 {
		require.NoError(t, a.qp.PostSend(send(first+uint64(i))))
		posted = append(posted, first+uint64(i))
	}
	id = first + uint64(capacity-1)
	checkPostErr(t, a.qp.PostSend(send(id), send(id+1), send(id+2)), "ibv_post_send", unix.ENOMEM, 1, "a batch of 3 with room for 1")
	posted = append(posted, id)
	require.ErrorIs(t, cSend(t, a.qp, send(id+5)), unix.ENOMEM, "the batch's first send was posted")
	drain()
}

// TestSendConcurrent: goroutines posting through rdma and goroutines
// posting from C on Raw share one send queue: every send goes once, each
// poster's in its order.
func TestSendConcurrent(t *testing.T) {
	rxetest.NoLeaks(t)
	const posters, each = 4, 60
	a, b := pair(t, QPConfig{MaxSend: posters * each, MaxRecv: 1})
	for id := range posters * each {
		*(*uint64)(unsafe.Pointer(&a.buf.Bytes()[8*id])) = uint64(id) + 1
	}
	var wg sync.WaitGroup
	errs := make(chan error, posters*each)
	for p := range posters {
		wg.Go(func() {
			for i := range each {
				id := uint64(p*each + i)
				// Each send writes its id at its own place in B.
				w := SendWork{ID: id, Op: ibv.WROpcodeRDMAWrite, Flags: ibv.SendFlagsSignaled | ibv.SendFlagsInline, SGEs: []ibv.SGE{{Addr: uint64(uintptr(unsafe.Pointer(&a.buf.Bytes()[8*id]))), Length: 8}},
					RemoteAddr: b.mr.Addr() + 8*id, RKey: b.mr.RKey()}
				if p%2 == 0 {
					errs <- a.qp.PostSend(w)
				} else {
					errs <- cSend(t, a.qp, w)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	checkPosters(t, awaitWCs(t, a.cq, posters*each), ibv.WCStatusSuccess, posters, each)
	for id := range posters * each {
		require.Equal(t, uint64(id)+1, *(*uint64)(unsafe.Pointer(&b.buf.Bytes()[8*id])), "send %d's data", id)
	}
}
