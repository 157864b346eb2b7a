//go:build rxe

package rdma

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// flushedCQ returns a CQ of cqe entries (no channel; from NewCQEx if ex)
// that will receive n flushed receive completions, wr_ids 0..n-1 in order,
// and the QP they come from: n receives are posted to a QP in INIT, which
// then moves to ERR. Everything is closed at the end of the test.
func flushedCQ(t *testing.T, ex bool, cqe, n int) (*CQ, *QP) {
	t.Helper()
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	var cq *CQ
	var err error
	if ex {
		cq, err = dev.NewCQEx(cqe, nil, 0)
	} else {
		cq, err = dev.NewCQ(cqe, nil)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cq.Close()) })
	qp, err := pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: n})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, qp.Close()) })
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, buf.Free()) })
	mr, err := pd.Register(buf.Bytes(), access)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, mr.Close()) })
	sg, err := mr.SGE(0, 64)
	require.NoError(t, err)
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
	for i := range n {
		require.NoError(t, qp.PostRecv(RecvWork{ID: uint64(i), SGEs: []ibv.SGE{sg}}))
	}
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
	return cq, qp
}

// checkFlushed checks that wcs are qp's flushed receives with wr_ids
// first, first+1, ... (of a flushed completion only wr_id, status and
// qp_num are defined: ibv_poll_cq(3)).
func checkFlushed(t *testing.T, qp *QP, first int, wcs []ibv.WC) {
	t.Helper()
	for i, wc := range wcs {
		require.Equal(t, uint64(first+i), wc.WRID, "completions in posting order")
		require.Equal(t, ibv.WCStatusWRFlushErr, wc.Status, "wr_id %d", wc.WRID)
		require.Equal(t, qp.Num(), wc.QPNum, "wr_id %d", wc.WRID)
	}
}

// pollFlushed polls cq once into wcs, checks what came as qp's flushed
// receives from wr_id first on (checkFlushed), and returns how many.
func pollFlushed(t *testing.T, cq *CQ, qp *QP, first int, wcs []ibv.WC) int {
	t.Helper()
	k, err := cq.Poll(wcs)
	require.NoError(t, err)
	checkFlushed(t, qp, first, wcs[:k])
	return k
}

// requireExtendedCQ checks that the installed rdma-core's librxe makes
// extended CQs, or (before RxeExtended) that NewCQEx fails with the
// provider's EOPNOTSUPP, naming ibv_create_cq_ex; it says which.
func requireExtendedCQ(t *testing.T, dev *Device) bool {
	t.Helper()
	env := rxetest.Guest(t)
	if env.Release >= rxetest.RxeExtended {
		return true
	}
	cq, err := dev.NewCQEx(16, nil, 0)
	if err == nil {
		require.NoError(t, cq.Close())
	}
	require.ErrorIs(t, err, unix.EOPNOTSUPP, "rdma-core %s: librxe has no create_cq_ex", env.RdmaCore)
	var e *ibv.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "ibv_create_cq_ex", e.Func)
	return false
}

// requireEmpty checks that a poll of cq finds nothing more.
func requireEmpty(t *testing.T, cq *CQ) {
	t.Helper()
	var wcs [1]ibv.WC
	k, err := cq.Poll(wcs[:])
	require.NoError(t, err)
	require.Zero(t, k, "completions beyond the flushed receives")
}

// TestPollKinds: Poll, PollBatch and PollSpin interleave with the checked
// binding's poll on Raw: together they see every completion once, in
// order, with the fields the provider reports.
func TestPollKinds(t *testing.T) {
	rxetest.NoLeaks(t)
	const n = 300
	cq, qp := flushedCQ(t, false, 512, n)

	wcs := make([]ibv.WC, 7)
	deadline := time.Now().Add(30 * time.Second)
	got := 0
	for step := 0; got < n; step++ {
		require.True(t, time.Now().Before(deadline), "only %d of %d flushed receives completed", got, n)
		var k int
		var err error
		switch step % 5 {
		case 0:
			k, err = cq.Poll(wcs)
		case 1:
			var done []ibv.WC
			done, err = cq.PollBatch(3)
			k = copy(wcs, done)
		case 2:
			k, err = cq.Raw().Poll(wcs[:5])
		case 3:
			k, err = cq.Poll(wcs[:4])
		case 4:
			k, err = cq.PollSpin(wcs[:2], 1000)
		}
		require.NoError(t, err)
		checkFlushed(t, qp, got, wcs[:k])
		got += k
	}
	requireEmpty(t, cq)
	done, err := cq.PollBatch(0)
	require.NoError(t, err)
	require.Empty(t, done, "PollBatch(0) takes nothing")
	k, err := cq.Raw().Poll(wcs[:1])
	require.NoError(t, err)
	require.Zero(t, k)
}

// TestPollConcurrent: goroutines polling through rdma and goroutines
// polling through the checked binding on Raw drain one CQ together; each
// completion comes out exactly once.
func TestPollConcurrent(t *testing.T) {
	rxetest.NoLeaks(t)
	const n = 1000
	cq, _ := flushedCQ(t, false, 1024, n)

	var (
		total  atomic.Int64
		polled [4][]uint64 // wr_ids, by goroutine
		wg     sync.WaitGroup
	)
	deadline := time.Now().Add(60 * time.Second)
	for g := range polled {
		wg.Go(func() {
			var wcs [3]ibv.WC
			for total.Load() < n && time.Now().Before(deadline) {
				var k int
				var err error
				if g%2 == 0 {
					k, err = cq.Poll(wcs[:1+g%3])
				} else {
					k, err = cq.Raw().Poll(wcs[:1+g%3])
				}
				if !assert.NoError(t, err) {
					return
				}
				for _, wc := range wcs[:k] {
					polled[g] = append(polled[g], wc.WRID)
				}
				total.Add(int64(k))
			}
		})
	}
	wg.Wait()
	count := make([]int, n)
	var odd []uint64 // wr_ids seen twice, or never posted
	for _, ids := range polled {
		for _, id := range ids {
			if id >= n || count[id] > 0 {
				odd = append(odd, id)
				continue
			}
			count[id]++
		}
	}
	missing := slices.Index(count, 0)
	require.Zero(t, len(odd), "completions seen twice or never posted; the first: %v", odd[:min(len(odd), 10)])
	require.Equal(t, -1, missing, "wr_id %d never seen; %d completions seen", missing, total.Load())
}

// TestPollWhileClosing: Poll, PollBatch and PollSpin racing the CQ's
// Close: each poll returns completions until one returns ErrClosed, none
// crashes, and, run with -race, none touches what Close drops (PollBatch's
// array) unguarded.
func TestPollWhileClosing(t *testing.T) {
	rxetest.NoLeaks(t)
	for range 2 {
		t.Run("", func(t *testing.T) {
			const n = 400
			cq, qp := flushedCQ(t, false, 512, n)
			var (
				polled atomic.Int64
				wg     sync.WaitGroup
				errs   [3]error
			)
			for g := range errs {
				wg.Go(func() {
					var wcs [4]ibv.WC
					for {
						var k int
						var err error
						switch g {
						case 0:
							k, err = cq.Poll(wcs[:])
						case 1:
							var done []ibv.WC
							done, err = cq.PollBatch(4)
							k = len(done)
						case 2:
							k, err = cq.PollSpin(wcs[:], 10)
						}
						if err != nil {
							errs[g] = err
							return
						}
						polled.Add(int64(k))
					}
				})
			}
			// The kernel flushes the receives after the QP's move to
			// ERR, not at once; a QP destroyed before would take them
			// along. So the QP is closed (the CQ cannot be before it)
			// once the polls are taking completions.
			deadline := time.Now().Add(30 * time.Second)
			for polled.Load() < n/4 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			require.NoError(t, qp.Close())
			require.NoError(t, cq.Close())
			wg.Wait()
			require.GreaterOrEqual(t, polled.Load(), int64(n/4), "the polls took too few completions before Close")
			for g, err := range errs {
				require.ErrorIs(t, err, ErrClosed, "poller %d", g)
			}
		})
	}
}

// TestPollSpinClose: PollSpin spins in C, holding the CQ, until a
// completion comes or its spins run out; Close ends a spin in progress at
// once (0, no error) and then closes the CQ; a Close refused because a QP
// still uses the CQ leaves PollSpin spinning and taking completions as
// before.
func TestPollSpinClose(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	cq, err := dev.NewCQ(16, nil)
	require.NoError(t, err)
	qp, err := pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: 1})
	require.NoError(t, err)
	var wcs [4]ibv.WC
	spin := func() chan error {
		done := make(chan error, 1)
		go func() {
			// Far more spins than the test lasts.
			n, err := cq.PollSpin(wcs[:], 1<<62)
			if err == nil && n != 0 {
				err = fmt.Errorf("%d completions from an empty CQ", n)
			}
			done <- err
		}()
		return done
	}
	done := spin()
	time.Sleep(50 * time.Millisecond)
	var busy *BusyError
	require.ErrorAs(t, cq.Close(), &busy, "the QP still uses the CQ")
	select {
	case err := <-done:
		// The refused Close may have ended this spin; a new one must spin.
		require.NoError(t, err)
		done = spin()
	case <-time.After(50 * time.Millisecond):
	}
	select {
	case err := <-done:
		t.Fatalf("a spin ended after a refused Close: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	require.NoError(t, qp.Close())
	start := time.Now()
	require.NoError(t, cq.Close())
	select {
	case err := <-done:
		require.NoError(t, err, "the spin Close ended")
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not end the spin")
	}
	t.Logf("Close with a spin in progress: %v", time.Since(start))
	_, err = cq.PollSpin(wcs[:], 1<<62)
	require.ErrorIs(t, err, ErrClosed)
}

// TestPollResize: after ibv_resize_cq on Raw, polls lose nothing (the
// provider's poll_cq op, read once at NewCQ, stays the CQ's).
func TestPollResize(t *testing.T) {
	rxetest.NoLeaks(t)
	const n = 24
	cq, qp := flushedCQ(t, false, 32, n)
	wcs := make([]ibv.WC, n)
	got := 0
	for deadline := time.Now().Add(30 * time.Second); got < 10; {
		require.True(t, time.Now().Before(deadline))
		got += pollFlushed(t, cq, qp, got, wcs[:10-got])
	}
	require.NoError(t, cq.Raw().Resize(200))
	require.GreaterOrEqual(t, cq.Len(), 200)
	for deadline := time.Now().Add(30 * time.Second); got < n; {
		require.True(t, time.Now().Before(deadline), "%d of %d after the resize", got, n)
		got += pollFlushed(t, cq, qp, got, wcs)
	}
	requireEmpty(t, cq)
}

// TestPollExtended: the extended poll (ibv_start_poll to ibv_end_poll)
// and Poll take turns on one CQ made by NewCQEx and see every completion
// once, in order.
func TestPollExtended(t *testing.T) {
	rxetest.NoLeaks(t)
	const n = 60
	env := rxetest.Guest(t)
	dev, _ := devPD(t, env.Nodes[0].Dev)
	if !requireExtendedCQ(t, dev) {
		return
	}
	cq, qp := flushedCQ(t, true, 128, n)
	cx, err := cq.Ex()
	require.NoError(t, err)
	wcs := make([]ibv.WC, 2)
	deadline := time.Now().Add(30 * time.Second)
	for got := 0; got < n; {
		require.True(t, time.Now().Before(deadline), "only %d of %d flushed receives completed", got, n)
		// Up to three through the extended API...
		if err := cx.CallStartPoll(&ibv.PollCQAttr{}); err == nil {
			for k := 0; ; k++ {
				require.Equal(t, uint64(got), cx.WRID, "completions in posting order")
				require.Equal(t, ibv.WCStatusWRFlushErr, cx.Status)
				got++
				if k == 2 {
					break
				}
				if err := cx.CallNextPoll(); err != nil {
					require.ErrorIs(t, err, unix.ENOENT)
					break
				}
			}
			require.NoError(t, cx.CallEndPoll())
		} else {
			require.ErrorIs(t, err, unix.ENOENT, "ibv_start_poll: ENOENT means empty")
		}
		// ... then up to two in Go.
		got += pollFlushed(t, cq, qp, got, wcs)
	}
	requireEmpty(t, cq)
}
