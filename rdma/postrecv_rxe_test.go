//go:build rxe

package rdma

import (
	"bytes"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// cRecv posts one receive of sges with ibv_post_recv on q's raw QP from C,
// the work request and its SGEs in C memory, as a C program sharing the QP
// would.
func cRecv(t *testing.T, q *QP, id uint64, sges []ibv.SGE) error {
	t.Helper()
	wr := (*ibv.RecvWR)(cAlloc(unsafe.Sizeof(ibv.RecvWR{})))
	defer cFree(unsafe.Pointer(wr))
	*wr = ibv.RecvWR{WRID: id, NumSGE: int32(len(sges))}
	if len(sges) > 0 {
		sg := unsafe.Slice((*ibv.SGE)(cAlloc(uintptr(len(sges))*unsafe.Sizeof(ibv.SGE{}))), len(sges))
		defer cFree(unsafe.Pointer(&sg[0]))
		copy(sg, sges)
		wr.SgList = &sg[0]
	}
	_, err := q.Raw().PostRecv(wr)
	return err
}

// awaitWCs polls cq until n completions have come, and returns them.
func awaitWCs(t *testing.T, cq *CQ, n int) []ibv.WC {
	t.Helper()
	out := make([]ibv.WC, 0, n)
	wcs := make([]ibv.WC, 16)
	for deadline := time.Now().Add(30 * time.Second); len(out) < n; {
		require.True(t, time.Now().Before(deadline), "%d of %d completions", len(out), n)
		k, err := cq.PollSpin(wcs[:min(len(wcs), n-len(out))], 1<<16)
		require.NoError(t, err)
		out = append(out, wcs[:k]...)
	}
	return out
}

// TestRecvScatter: receives posted through rdma interleave with receives
// posted from C on Raw: messages land in posting order, each scattered
// over its receive's two SGEs, over enough rounds for the queue to wrap.
func TestRecvScatter(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{MaxSend: 16, MaxRecv: 16, MaxRecvSGE: 2})
	const perRound, rounds, size = 15, 6, 64
	next := 0
	for round := range rounds {
		for i := range perRound {
			id := uint64(next + i)
			// Receive i: its first 5 bytes at 4096+128i, the rest at 32768+128i.
			sges := []ibv.SGE{a.sge(t, 4096+128*i, 5), a.sge(t, 32768+128*i, size-5)}
			if i%3 == 1 {
				require.NoError(t, cRecv(t, a.qp, id, sges))
			} else {
				require.NoError(t, a.qp.PostRecv(RecvWork{ID: id, SGEs: sges}))
			}
			msg := b.buf.Bytes()[size*i : size*(i+1)]
			for j := range msg {
				msg[j] = byte(int(id)*7 + j)
			}
		}
		for i := range perRound {
			require.NoError(t, b.qp.PostSend(SendWork{ID: uint64(next + i), Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{b.sge(t, size*i, size)}}))
		}
		for _, wc := range awaitWCs(t, b.cq, perRound) {
			require.Equal(t, ibv.WCStatusSuccess, wc.Status, "send %d: %s", wc.WRID, ibv.WCStatusStr(wc.Status))
		}
		for i, wc := range awaitWCs(t, a.cq, perRound) {
			id := next + i
			require.Equal(t, uint64(id), wc.WRID, "round %d: receives complete in posting order", round)
			require.Equal(t, ibv.WCStatusSuccess, wc.Status, "receive %d: %s", id, ibv.WCStatusStr(wc.Status))
			require.Equal(t, ibv.WCOpcodeRecv, wc.Opcode)
			require.Equal(t, uint32(size), wc.ByteLen)
			got := append(bytes.Clone(a.buf.Bytes()[4096+128*i:4096+128*i+5]), a.buf.Bytes()[32768+128*i:32768+128*i+size-5]...)
			require.Equal(t, b.buf.Bytes()[size*i:size*(i+1)], got, "receive %d", id)
		}
		next += perRound
	}
}

// fill posts single receives on a fresh rxe QP in INIT until the queue is
// full, each with post, and returns how many fit and the error of the one
// that did not.
func fill(t *testing.T, qp *QP, post func(id uint64) error) (int, error) {
	t.Helper()
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
	for n := 0; n < 1<<16; n++ {
		if err := post(uint64(n)); err != nil {
			return n, err
		}
	}
	t.Fatal("the receive queue never filled")
	return 0, nil
}

// TestRecvErrors: PostRecv fails where the provider fails, with its
// errors (naming ibv_post_recv and wrapping its errno), and posts from Go
// and from C fill the same queue.
func TestRecvErrors(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	cq, err := dev.NewCQ(64, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cq.Close()) })
	newQP := func() *QP {
		qp, err := pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: 4})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, qp.Close()) })
		return qp
	}
	goPost := func(qp *QP) func(uint64) error {
		return func(id uint64) error { return qp.PostRecv(RecvWork{ID: id}) }
	}
	checkErr := func(err error, errno unix.Errno, posted int, what string) {
		t.Helper()
		checkPostErr(t, err, "ibv_post_recv", errno, posted, what)
	}

	// A QP in RESET takes no receive (librxe: EINVAL) from rdma-core 40 on
	// (rxetest.RxeRecvResetRefused); librxe before queues it.
	if env.Release >= rxetest.RxeRecvResetRefused {
		checkErr(newQP().PostRecv(RecvWork{ID: 1}, RecvWork{ID: 2}), unix.EINVAL, 0, "RESET")
	} else {
		require.NoError(t, newQP().PostRecv(RecvWork{ID: 1}, RecvWork{ID: 2}), "RESET, rdma-core %s", env.RdmaCore)
	}

	// The queue holds as many posted from Go as from C, and the post that
	// finds it full fails with ENOMEM.
	qp := newQP()
	n, err := fill(t, qp, goPost(qp))
	checkErr(err, unix.ENOMEM, 0, "full")
	require.GreaterOrEqual(t, n, 4, "the queue holds at least what was asked")
	qp = newQP()
	k, err := fill(t, qp, func(id uint64) error { return cRecv(t, qp, id, nil) })
	require.Equal(t, n, k, "posting from C")
	require.ErrorIs(t, err, unix.ENOMEM)

	// Posting from Go and C in turn.
	qp = newQP()
	k, err = fill(t, qp, func(id uint64) error {
		if id%2 == 0 {
			return qp.PostRecv(RecvWork{ID: id})
		}
		return cRecv(t, qp, id, nil)
	})
	require.Equal(t, n, k, "posting from Go and C in turn")
	require.ErrorIs(t, err, unix.ENOMEM)

	// A batch that meets a full queue posts what fits.
	qp = newQP()
	k, err = fill(t, qp, func(id uint64) error {
		if int(id) < n-1 {
			return qp.PostRecv(RecvWork{ID: id})
		}
		return qp.PostRecv(RecvWork{ID: id}, RecvWork{ID: id + 1}, RecvWork{ID: id + 2})
	})
	require.Equal(t, n-1, k)
	checkErr(err, unix.ENOMEM, 1, "a batch of 3 with room for 1")
	require.ErrorIs(t, cRecv(t, qp, 99, nil), unix.ENOMEM, "the batch's first receive was posted")

	// Flushed, every receive comes back once, in posting order.
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
	for i, wc := range awaitWCs(t, cq, n) {
		require.Equal(t, uint64(i), wc.WRID)
		require.Equal(t, ibv.WCStatusWRFlushErr, wc.Status)
	}
}

// TestRecvConcurrent: goroutines posting through rdma and goroutines
// posting from C on Raw share one receive queue: every receive lands once.
func TestRecvConcurrent(t *testing.T) {
	rxetest.NoLeaks(t)
	const posters, each = 4, 60
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	cq, err := dev.NewCQ(512, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cq.Close()) })
	qp, err := pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: posters * each})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, qp.Close()) })
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))

	var wg sync.WaitGroup
	errs := make(chan error, posters*each)
	for p := range posters {
		wg.Go(func() {
			for i := range each {
				id := uint64(p*each + i)
				if p%2 == 0 {
					errs <- qp.PostRecv(RecvWork{ID: id})
				} else {
					errs <- cRecv(t, qp, id, nil)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
	checkPosters(t, awaitWCs(t, cq, posters*each), ibv.WCStatusWRFlushErr, posters, each)
	requireEmpty(t, cq)
}

// checkPosters checks the completions of posters×each work requests, the
// i-th of poster p with wr_id p×each+i: each with status, each once, each
// poster's in its order.
func checkPosters(t *testing.T, wcs []ibv.WC, status ibv.WCStatus, posters, each int) {
	t.Helper()
	seen := map[uint64]bool{}
	last := map[int]int{} // per poster, the last index seen
	for _, wc := range wcs {
		require.Equal(t, status, wc.Status)
		require.False(t, seen[wc.WRID], "wr_id %d twice", wc.WRID)
		seen[wc.WRID] = true
		p, i := int(wc.WRID)/each, int(wc.WRID)%each
		if prev, ok := last[p]; ok {
			require.Greater(t, i, prev, "poster %d's work requests in its order", p)
		}
		last[p] = i
	}
	require.Len(t, seen, posters*each)
}
