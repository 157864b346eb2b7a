//go:build rxe

package rdma

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestSendRecvAwait: B waits for a receive completion on the netpoller
// while A sends; the payload arrives intact and both completions succeed.
func TestSendRecvAwait(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{})
	msg := []byte("hello from the netpoller")
	copy(a.buf.Bytes(), msg)
	require.NoError(t, b.qp.PostRecv(RecvWork{ID: 7, SGEs: []ibv.SGE{b.sge(t, 0, 4096)}}))

	got := make(chan ibv.WC, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		wcs := make([]ibv.WC, 4)
		n, err := b.cq.Await(ctx, wcs)
		if assert.NoError(t, err) && assert.Equal(t, 1, n) {
			got <- wcs[0]
		}
		close(got)
	}()
	require.NoError(t, a.qp.PostSend(SendWork{ID: 9, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 0, len(msg))}}))
	wc, ok := <-got
	require.True(t, ok)
	assert.Equal(t, ibv.WCStatusSuccess, wc.Status, ibv.WCStatusStr(wc.Status))
	assert.Equal(t, uint64(7), wc.WRID)
	assert.Equal(t, uint32(len(msg)), wc.ByteLen)
	assert.Equal(t, msg, b.buf.Bytes()[:len(msg)])

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wcs := make([]ibv.WC, 4)
	n, err := a.cq.Await(ctx, wcs)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, uint64(9), wcs[0].WRID)
	assert.Equal(t, ibv.WCStatusSuccess, wcs[0].Status)
}

func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no Threads line")
	return 0
}

// TestManyWaitersNoThreads: 64 goroutines each wait on their own CQ's
// channel; while all are parked the process has no more OS threads than a
// handful over its start (a blocking ibv_get_cq_event would hold 64).
// Then every CQ gets one completion and every waiter wakes with it.
func TestManyWaitersNoThreads(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	var err error

	const n = 64
	before := threads(t)
	type waiter struct {
		cc *CompChannel
		cq *CQ
		qp *QP
	}
	ws := make([]waiter, n)
	for i := range ws {
		w := &ws[i]
		w.cc, err = dev.NewCompChannel()
		require.NoError(t, err)
		w.cq, err = dev.NewCQ(4, w.cc)
		require.NoError(t, err)
		// A loopback-free way to get one completion per CQ: a QP moved to
		// ERR flushes its posted receive with IBV_WC_WR_FLUSH_ERR.
		w.qp, err = pd.NewQP(QPConfig{SendCQ: w.cq, RecvCQ: w.cq, MaxSend: 1, MaxRecv: 1})
		require.NoError(t, err)
	}
	defer func() {
		for _, w := range ws {
			require.NoError(t, w.qp.Close())
			require.NoError(t, w.cq.Close())
			require.NoError(t, w.cc.Close())
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	results := make(chan ibv.WCStatus, n)
	for i := range ws {
		wg.Add(1)
		go func(w waiter) {
			defer wg.Done()
			wcs := make([]ibv.WC, 2)
			k, err := w.cq.Await(ctx, wcs)
			if assert.NoError(t, err) && assert.Equal(t, 1, k) {
				results <- wcs[0].Status
			}
		}(ws[i])
	}
	time.Sleep(200 * time.Millisecond) // let them park
	parked := threads(t)
	assert.Less(t, parked-before, 16, "threads went from %d to %d with %d goroutines waiting", before, parked, n)

	init := ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1, QPAccessFlags: uint32(access)}
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	defer func() { require.NoError(t, buf.Free()) }()
	mr, err := pd.Register(buf.Bytes(), access)
	require.NoError(t, err)
	defer func() { require.NoError(t, mr.Close()) }()
	sg, err := mr.SGE(0, 64)
	require.NoError(t, err)
	for _, w := range ws {
		require.NoError(t, w.qp.Modify(&init, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
		require.NoError(t, w.qp.PostRecv(RecvWork{ID: 1, SGEs: []ibv.SGE{sg}}))
		require.NoError(t, w.qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
	}
	wg.Wait()
	close(results)
	count := 0
	for s := range results {
		assert.Equal(t, ibv.WCStatusWRFlushErr, s)
		count++
	}
	assert.Equal(t, n, count)
}

// TestWaitCancel: a cancelled context ends a wait with ctx.Err(), parked
// on the netpoller (CQ.Wait) or blocked in C (CompChannel.WaitBlocking,
// CQ.WaitBlocking), as
// does an expired deadline; the CQ stays usable and a later wait of the
// same kind still sees the next completion.
func TestWaitCancel(t *testing.T) {
	for _, kind := range []string{"Wait", "WaitBlocking", "CQ.WaitBlocking"} {
		t.Run(kind, func(t *testing.T) {
			rxetest.NoLeaks(t)
			a, b := pair(t, QPConfig{})
			wait := b.cq.Wait
			if kind == "CQ.WaitBlocking" {
				wait = b.cq.WaitBlocking
			}
			if kind == "WaitBlocking" {
				wait = func(ctx context.Context) error {
					cq, err := b.cc.WaitBlocking(ctx)
					if err == nil && cq != b.cq {
						err = errors.New("the event is for another CQ")
					}
					return err
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- wait(ctx) }()
			time.Sleep(50 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(30 * time.Second):
				t.Fatal("the wait did not return after its context was cancelled")
			}
			dl, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel2()
			require.ErrorIs(t, wait(dl), context.DeadlineExceeded)

			require.NoError(t, b.qp.PostRecv(RecvWork{ID: 1, SGEs: []ibv.SGE{b.sge(t, 0, 64)}}))
			require.NoError(t, a.qp.PostSend(SendWork{ID: 2, Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{a.sge(t, 0, 8)}}))
			ctx3, cancel3 := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel3()
			require.NoError(t, wait(ctx3))
			wc, err := b.cq.PollOne()
			require.NoError(t, err)
			assert.Equal(t, ibv.WCStatusSuccess, wc.Status)
		})
	}
}

// TestSharedChannel: with two CQs on one channel, CQ.Wait and
// CQ.WaitBlocking refuse (ErrSharedChannel) and CompChannel.Wait and
// WaitPoll say which CQ the event is for.
func TestSharedChannel(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	var err error
	cc, err := dev.NewCompChannel()
	require.NoError(t, err)
	defer func() { require.NoError(t, cc.Close()) }()
	cq1, err := dev.NewCQ(4, cc)
	require.NoError(t, err)
	defer func() { require.NoError(t, cq1.Close()) }()
	cq2, err := dev.NewCQ(4, cc)
	require.NoError(t, err)
	defer func() { require.NoError(t, cq2.Close()) }()

	err = cq1.Wait(context.Background())
	require.ErrorIs(t, err, ErrSharedChannel)
	err = cq1.WaitBlocking(context.Background())
	require.ErrorIs(t, err, ErrSharedChannel)

	qp, err := pd.NewQP(QPConfig{SendCQ: cq1, RecvCQ: cq2, MaxSend: 1, MaxRecv: 1})
	require.NoError(t, err)
	defer func() { require.NoError(t, qp.Close()) }()
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	defer func() { require.NoError(t, buf.Free()) }()
	mr, err := pd.Register(buf.Bytes(), access)
	require.NoError(t, err)
	defer func() { require.NoError(t, mr.Close()) }()
	sg, _ := mr.SGE(0, 8)
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
	require.NoError(t, qp.PostRecv(RecvWork{ID: 5, SGEs: []ibv.SGE{sg}}))
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := cc.Wait(ctx)
	require.NoError(t, err)
	require.Same(t, cq2, got, "the flushed receive completes on the receive CQ")
	wc, err := cq2.PollOne()
	require.NoError(t, err)
	assert.Equal(t, uint64(5), wc.WRID)
	assert.Equal(t, ibv.WCStatusWRFlushErr, wc.Status)
	// WaitPoll alike, the completion polled with the event: a second
	// QP's receive, flushed onto cq1.
	qp2, err := pd.NewQP(QPConfig{SendCQ: cq2, RecvCQ: cq1, MaxSend: 1, MaxRecv: 1})
	require.NoError(t, err)
	defer func() { require.NoError(t, qp2.Close()) }()
	require.NoError(t, qp2.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
	require.NoError(t, qp2.PostRecv(RecvWork{ID: 6, SGEs: []ibv.SGE{sg}}))
	require.NoError(t, qp2.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
	wcs := make([]ibv.WC, 2)
	got, n, err := cc.WaitPoll(ctx, wcs)
	require.NoError(t, err)
	require.Same(t, cq1, got, "the second flushed receive completes on cq1")
	require.Equal(t, 1, n)
	assert.Equal(t, uint64(6), wcs[0].WRID)
	assert.Equal(t, ibv.WCStatusWRFlushErr, wcs[0].Status)
	_, err = cq2.PollOne()
	require.ErrorIs(t, err, ErrNoCompletion)
	require.False(t, errors.Is(err, ErrClosed))
}

// TestWaitBlocking: B waits in C for its channel's event while A sends;
// the event names B's CQ, which holds the receive. The CQ is re-armed: a
// second send raises a second event, for WaitBlocking and then for the
// netpoller's Wait alike.
func TestWaitBlocking(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{})
	wcs := make([]ibv.WC, 4)
	for i, wait := range []func(context.Context) (*CQ, error){b.cc.WaitBlocking, b.cc.WaitBlocking, b.cc.Wait} {
		require.NoError(t, b.qp.PostRecv(RecvWork{ID: uint64(10 + i), SGEs: []ibv.SGE{b.sge(t, 0, 4096)}}))
		got := make(chan *CQ, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cq, err := wait(ctx)
			assert.NoError(t, err, "wait %d", i)
			got <- cq
		}()
		require.NoError(t, a.qp.PostSend(SendWork{ID: 9, Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{a.sge(t, 0, 8)}}))
		require.Same(t, b.cq, <-got, "wait %d", i)
		n, err := b.cq.Poll(wcs)
		require.NoError(t, err)
		require.Equal(t, 1, n, "wait %d", i)
		assert.Equal(t, uint64(10+i), wcs[0].WRID)
		assert.Equal(t, ibv.WCStatusSuccess, wcs[0].Status, ibv.WCStatusStr(wcs[0].Status))
	}
}

// TestWaitBlockingClose: Close of a channel that a CQ still uses is refused
// and leaves a blocked wait waiting; once the CQ is gone, Close wakes the
// wait with ErrClosed and succeeds, and a later wait is ErrClosed too.
func TestWaitBlockingClose(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, _ := devPD(t, env.Nodes[0].Dev)
	cc, err := dev.NewCompChannel()
	require.NoError(t, err)
	cq, err := dev.NewCQ(4, cc)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := cc.WaitBlocking(context.Background())
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	var busy *BusyError
	require.ErrorAs(t, cc.Close(), &busy)
	select {
	case err := <-done:
		t.Fatalf("a refused Close woke the wait: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, cq.Close())
	require.NoError(t, cc.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrClosed)
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not wake WaitBlocking")
	}
	_, err = cc.WaitBlocking(context.Background())
	require.ErrorIs(t, err, ErrClosed)
	var nilCC *CompChannel
	_, err = nilCC.WaitBlocking(context.Background())
	require.ErrorIs(t, err, ErrNilHandle)
}

// TestWaitBlockingPoll: the wait returns its CQ with the first poll's
// completions: all of them when wcs has room, len(wcs) of them when it
// has not (Poll takes the rest), none with an empty wcs (WaitBlocking);
// the same for the netpoller's WaitPoll. A's two signaled sends complete
// only once B has received both, so both of B's completions are in its CQ
// when B's wait begins.
func TestWaitBlockingPoll(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{})
	rest := make([]ibv.WC, 4)
	waits := []struct {
		name string
		wait func(context.Context, []ibv.WC) (*CQ, int, error)
	}{{"WaitBlockingPoll", b.cc.WaitBlockingPoll}, {"WaitPoll", b.cc.WaitPoll}, {"WaitBlockingPoll again", b.cc.WaitBlockingPoll}}
	for w, wait := range waits {
		for i, room := range []int{4, 1, 0} {
			id := 100*w + 10*i
			for j := range 2 {
				require.NoError(t, b.qp.PostRecv(RecvWork{ID: uint64(id + j), SGEs: []ibv.SGE{b.sge(t, 0, 4096)}}))
			}
			for j := range 2 {
				require.NoError(t, a.qp.PostSend(SendWork{ID: uint64(j), Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 0, 8)}}))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			for sent := 0; sent < 2; {
				n, err := a.cq.Await(ctx, rest)
				require.NoError(t, err)
				sent += n
			}
			wcs := make([]ibv.WC, room)
			cq, n, err := wait.wait(ctx, wcs)
			cancel()
			require.NoError(t, err, "%s, room %d", wait.name, room)
			require.Same(t, b.cq, cq, "%s, room %d", wait.name, room)
			require.Equal(t, min(room, 2), n, "%s, room %d", wait.name, room)
			m, err := b.cq.Poll(rest)
			require.NoError(t, err)
			require.Equal(t, 2-n, m, "%s, room %d: left for Poll", wait.name, room)
			got := append(wcs[:n:n], rest[:m]...)
			for j, wc := range got {
				assert.Equal(t, uint64(id+j), wc.WRID, "%s, room %d", wait.name, room)
				assert.Equal(t, ibv.WCStatusSuccess, wc.Status, ibv.WCStatusStr(wc.Status))
			}
		}
	}
}

// TestWaitBlockingPollForeign: an event for a CQ made through the
// generated layer on the package's channel is an error, and
// WaitBlockingPoll takes nothing from that CQ: its completion (a receive
// flushed by moving its QP to the error state) is still there to poll.
// The same for the netpoller's WaitPoll.
func TestWaitBlockingPollForeign(t *testing.T) {
	rxetest.NoLeaks(t)
	na, _ := rxetest.Guest(t).Pair(t)
	s := newSide(t, na.Dev, QPConfig{})
	for _, wait := range []struct {
		name string
		wait func(context.Context, []ibv.WC) (*CQ, int, error)
	}{{"WaitBlockingPoll", s.cc.WaitBlockingPoll}, {"WaitPoll", s.cc.WaitPoll}} {
		raw, err := s.dev.Raw().CreateCQ(4, nil, s.cc.Raw(), 0)
		require.NoError(t, err)
		require.NoError(t, raw.ReqNotify(false))
		qp, err := s.pd.Raw().CreateQP(&ibv.QPInitAttr{SendCQ: raw, RecvCQ: raw, QPType: ibv.QPTypeRC,
			Cap: ibv.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
		require.NoError(t, err)
		require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))
		// The work request and its SGE live in the Buffer (C memory),
		// past what the receive may write.
		mem := s.buf.Bytes()
		sge := (*ibv.SGE)(unsafePointer(mem[60<<10:]))
		*sge, err = s.mr.SGE(0, 64)
		require.NoError(t, err)
		wr := (*ibv.RecvWR)(unsafePointer(mem[61<<10:]))
		*wr = ibv.RecvWR{WRID: 77, SgList: sge, NumSGE: 1}
		_, err = qp.PostRecv(wr)
		require.NoError(t, err)
		require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		wcs := make([]ibv.WC, 4)
		cq, n, err := wait.wait(ctx, wcs)
		cancel()
		require.ErrorIs(t, err, errForeignEvent, wait.name)
		assert.Nil(t, cq, wait.name)
		assert.Zero(t, n, wait.name)
		var wc [1]ibv.WC
		got, err := raw.Poll(wc[:])
		require.NoError(t, err)
		require.Equal(t, 1, got, "%s: the flushed receive is still in the foreign CQ", wait.name)
		assert.Equal(t, uint64(77), wc[0].WRID)
		assert.Equal(t, ibv.WCStatusWRFlushErr, wc[0].Status, ibv.WCStatusStr(wc[0].Status))
		require.NoError(t, qp.Destroy())
		require.NoError(t, raw.Destroy())
	}
}

// TestWaitBlockingWaker: WaitBlocking blocks in ibv_get_cq_event's read on
// a blocking fd, woken for cancellation by its waker (see waker.go), and
// the netpoller's Wait, which needs the fd non-blocking, takes it back and
// drops a waker event that came late: it returns the next real event.
func TestWaitBlockingWaker(t *testing.T) {
	rxetest.NoLeaks(t)
	a, b := pair(t, QPConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := b.cc.WaitBlocking(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, b.cc.blk.waker, "no waker: WaitBlocking waits in poll(2)")
	require.NotNil(t, b.cc.blk.args.waker)
	require.True(t, b.cc.fdBlocking)

	b.cc.blk.wake() // no wait to wake: the waker's event waits in the channel
	send := func(id uint64) {
		require.NoError(t, b.qp.PostRecv(RecvWork{ID: id, SGEs: []ibv.SGE{b.sge(t, 0, 4096)}}))
		require.NoError(t, a.qp.PostSend(SendWork{ID: id, Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{a.sge(t, 0, 8)}}))
	}
	wcs := make([]ibv.WC, 4)
	for i, wait := range []func(context.Context) (*CQ, error){b.cc.Wait, b.cc.WaitBlocking, b.cc.Wait} {
		send(uint64(20 + i))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cq, err := wait(ctx)
		cancel()
		require.NoError(t, err, "wait %d", i)
		require.Same(t, b.cq, cq, "wait %d", i)
		assert.Equal(t, i == 1, b.cc.fdBlocking, "wait %d: fd blocking", i)
		n, err := b.cq.Poll(wcs)
		require.NoError(t, err)
		require.Equal(t, 1, n, "wait %d", i)
		assert.Equal(t, uint64(20+i), wcs[0].WRID)
	}
}
