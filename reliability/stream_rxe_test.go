//go:build rxe

package reliability

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

const msgSlot = 64 // bytes per message slot of the fault tests

// tally counts the work requests of one queue and how they completed.
type tally struct {
	posted, completed int
	status            map[ibv.WCStatus]int
	seq               []ibv.WCStatus // statuses in completion order, runs merged
	outOfOrder        int
}

func (t *tally) add(wc *ibv.WC) {
	if t.status == nil {
		t.status = map[ibv.WCStatus]int{}
	}
	if wc.WRID != uint64(t.completed) {
		t.outOfOrder++
	}
	t.completed++
	t.status[wc.Status]++
	if len(t.seq) == 0 || t.seq[len(t.seq)-1] != wc.Status {
		t.seq = append(t.seq, wc.Status)
	}
}

func (t *tally) errors() int { return t.completed - t.status[ibv.WCStatusSuccess] }

func (t tally) String() string {
	var parts []string
	for s, n := range t.status {
		parts = append(parts, fmt.Sprintf("%s %d", ibv.WCStatusStr(s), n))
	}
	sort.Strings(parts)
	var order []string
	for _, s := range t.seq {
		order = append(order, ibv.WCStatusStr(s))
	}
	return fmt.Sprintf("posted %d, completed %d (%s; in order: %s)", t.posted, t.completed, strings.Join(parts, ", "), strings.Join(order, " -> "))
}

// checkFailed asserts what a failed queue must show: every posted work
// request completed, in order, some with an error; once one failed, every
// later one was flushed (IBV_WC_WR_FLUSH_ERR) — successes, then one kind
// of failure, then flushes.
func checkFailed(t *testing.T, what string, q tally) {
	t.Helper()
	t.Logf("%s: %s", what, q)
	assert.Equal(t, q.posted, q.completed, "%s: posted work requests that never completed", what)
	assert.Zero(t, q.outOfOrder, "%s: completions out of order", what)
	require.NotZero(t, q.errors(), "%s: no error completion", what)
	seq := q.seq
	if seq[0] == ibv.WCStatusSuccess {
		seq = seq[1:]
	}
	require.NotEmpty(t, seq)
	if seq[0] == ibv.WCStatusWRFlushErr {
		seq = seq[1:] // flushed without a failure of its own (e.g. moved to ERR)
	} else {
		seq = seq[1:]
		if len(seq) > 0 && seq[0] == ibv.WCStatusWRFlushErr {
			seq = seq[1:]
		}
	}
	assert.Empty(t, seq, "%s: after the first error only flushes may follow", what)
}

// sender posts signaled sends of msgSlot bytes, each carrying its number,
// keeping up to depth outstanding, and counts their completions.
type sender struct {
	qp      *rdma.QP
	cq      *rdma.CQ
	mr      *rdma.MR
	depth   int
	q       tally
	wcs     []ibv.WC
	faulted int // successful completions when the fault was injected, -1 if never
	// peer, when set, is the receiver of the sends, in this process: send i
	// is posted only once the peer has posted receive i (credit flow
	// control), so that no send ever meets an empty receive queue and no
	// RNR NAK is sent (see rnrNAKs for why that matters to the fault tests).
	peer *receiver
	// dev is the sending QP's device, whose RNR NAK counter transfer checks.
	dev string
}

// credit reports whether the peer (if any) has posted the receive that send
// i will consume.
func (s *sender) credit(i int) bool {
	return s.peer == nil || int64(i) < s.peer.credits.Load()
}

// run sends until a completion fails or limit sends (if limit > 0) are
// posted, calling fault once after faultAfter successful completions (if
// fault is not nil), then waits until every posted send has completed. A send the QP refuses to post is not counted
// as posted (it has nothing to complete). ctx bounds the wait: a hang is
// a failure.
func (s *sender) run(ctx context.Context, t *testing.T, limit, faultAfter int, fault func()) {
	t.Helper()
	s.wcs = make([]ibv.WC, 16)
	s.faulted = -1
	stopped := false
	for !stopped || s.q.completed < s.q.posted {
		if limit > 0 && s.q.posted == limit {
			stopped = true
		}
		for !stopped && s.q.posted-s.q.completed < s.depth && (limit == 0 || s.q.posted < limit) && s.credit(s.q.posted) {
			i := s.q.posted
			off := (i % s.depth) * msgSlot
			binary.LittleEndian.PutUint64(s.mr.Bytes()[off:], uint64(i))
			sg, err := s.mr.SGE(off, msgSlot)
			require.NoError(t, err)
			if err := s.qp.PostSend(rdma.SendWork{ID: uint64(i), Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{sg}}); err != nil {
				t.Logf("post %d refused: %v", i, err)
				stopped = true
				break
			}
			s.q.posted++
		}
		if s.q.completed == s.q.posted {
			if stopped || s.peer == nil {
				break
			}
			// Nothing outstanding, and no credit for the next send: wait
			// until the peer posts a receive.
			select {
			case <-s.peer.more:
			case <-ctx.Done():
				require.NoError(t, ctx.Err(), "waiting for the receiver to post receive %d: %s", s.q.posted, s.q)
			}
			continue
		}
		n, err := s.cq.Await(ctx, s.wcs)
		if err != nil {
			// Tell a lost wakeup (completions sitting in the CQ) from a
			// provider that never completed the sends (none).
			k, perr := s.cq.Poll(s.wcs)
			var late []string
			for _, wc := range s.wcs[:k] {
				late = append(late, fmt.Sprintf("%d:%s", wc.WRID, ibv.WCStatusStr(wc.Status)))
			}
			require.NoError(t, err, "waiting for completions: %s; one more poll after the wait failed found %d (%v, poll error %v)", s.q, k, late, perr)
		}
		for i := range s.wcs[:n] {
			wc := &s.wcs[i]
			s.q.add(wc)
			if wc.Status != ibv.WCStatusSuccess {
				stopped = true
			}
			if fault != nil && s.q.status[ibv.WCStatusSuccess] == faultAfter {
				s.faulted = faultAfter
				fault()
				fault = nil
			}
		}
	}
}

// receiver keeps depth receives posted and checks that the messages arrive
// numbered 0, 1, 2, ...: none lost, duplicated or corrupted.
type receiver struct {
	// mu guards the repost of a receive against stop: rxe (Linux 6.1)
	// flushes the receive queue once, when the QP enters the error state,
	// and never completes a receive posted after that (see stop).
	mu         sync.Mutex
	stopped    bool
	qp         *rdma.QP
	cq         *rdma.CQ
	mr         *rdma.MR
	depth      int
	q          tally
	delivered  int // messages received, in order
	misnumbers int // messages with another number than expected
	// credits counts the receives posted, for a sender in this process
	// (sender.peer); more, when not nil, gets a token after each post.
	credits atomic.Int64
	more    chan struct{}
}

func (r *receiver) post() error {
	i := r.q.posted
	sg, err := r.mr.SGE((i%r.depth)*msgSlot, msgSlot)
	if err != nil {
		return err
	}
	if err := r.qp.PostRecv(rdma.RecvWork{ID: uint64(i), SGEs: []ibv.SGE{sg}}); err != nil {
		return err
	}
	r.q.posted++
	r.credits.Add(1)
	if r.more != nil {
		select {
		case r.more <- struct{}{}:
		default:
		}
	}
	return nil
}

// run posts the receives, then takes completions, reposting after each
// success, until a completion fails and every posted receive has completed
// (the QP was moved to the error state), or ctx ends.
func (r *receiver) run(ctx context.Context, t *testing.T) error {
	for r.q.posted < r.depth {
		if err := r.post(); err != nil {
			return err
		}
	}
	wcs := make([]ibv.WC, 16)
	failed := false
	for !failed || r.q.completed < r.q.posted {
		n, err := r.cq.Await(ctx, wcs)
		if err != nil {
			return err
		}
		for i := range wcs[:n] {
			wc := &wcs[i]
			r.q.add(wc)
			if wc.Status != ibv.WCStatusSuccess {
				failed = true
				continue
			}
			got := binary.LittleEndian.Uint64(r.mr.Bytes()[(int(wc.WRID)%r.depth)*msgSlot:])
			if got != uint64(r.delivered) || wc.ByteLen != msgSlot {
				r.misnumbers++
			}
			r.delivered++
			r.mu.Lock()
			if !failed && !r.stopped {
				err = r.post()
			}
			r.mu.Unlock()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// stop ends the receiver: it reposts nothing more, and its QP is moved to
// the error state, so that every receive it posted is flushed and run
// returns. (Posting stops first: rxe on Linux 6.1 flushes a QP's receive
// queue once, when the QP enters the error state, and a receive posted
// after that never completes: a receiver still reposting while its QP
// went to ERR left up to 24 of 32 receives without a completion, none in
// the CQ, the QP in ERR.)
func (r *receiver) stop(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	toError(t, r.qp)
}

// toError moves qp to the error state, so that its outstanding work
// requests are flushed.
func toError(t *testing.T, qp *rdma.QP) {
	t.Helper()
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState))
}

// transfer runs one connection's traffic: r receives in a goroutine while
// s sends (see sender.run) in this one; then r is stopped and drained. It
// checks that r got, in order and intact, at least every message s saw
// acknowledged, and — when fault is not nil — that the fault came before
// the first failure (else the test proved nothing).
//
// s sends only against r's credits (sender.peer), and transfer checks that
// s's device received no RNR NAK meanwhile (see rnrNAKs).
func transfer(ctx context.Context, t *testing.T, s *sender, r *receiver, limit int, fault func()) {
	t.Helper()
	require.NotEmpty(t, s.dev, "sender without its device")
	rnrBefore := rnrNAKs(t, s.dev)
	r.more = make(chan struct{}, 1)
	s.peer = r
	done := make(chan error, 1)
	go func() { done <- r.run(ctx, t) }()
	s.run(ctx, t, limit, faultAfter, fault)
	r.stop(t)
	require.NoError(t, <-done, "receiver: %s", r.q)
	assert.Equal(t, rnrBefore, rnrNAKs(t, s.dev), "%s received RNR NAKs: a send met an empty receive queue despite the credits", s.dev)
	if fault != nil {
		require.Equal(t, faultAfter, s.faulted, "the sends failed before the fault: %s", s.q)
	}
	assert.Zero(t, r.misnumbers, "messages lost, duplicated or corrupted")
	assert.GreaterOrEqual(t, r.delivered, s.q.status[ibv.WCStatusSuccess], "the receiver got fewer messages than the sender saw acknowledged")
	messages.Add(int64(r.delivered))
}

// rnrNAKs reads how many RNR NAKs dev has received (rxe's rcvd_rnr_err
// counter).
//
// The fault tests keep them at zero, because rxe on Linux 6.1 can leave a
// QP's sends without completions for good when a link fault meets an RNR
// wait. Seen with a kprobe on
// rxe_query_qp that read the QP's requester and completer state, after
// TestLinkDownConn hung with 32 sends never completed (about one run in
// ten, before the credits):
//   - B's receive queue ran empty at send 200: B answered with an RNR NAK,
//     then a PSN-sequence NAK for the sends behind it. A's completer set
//     need_retry and wait_for_rnr_timer, and left the retry to A's
//     requester once the RNR timer fires.
//   - veth-a went down. The next send posted failed in A's requester (no
//     route: IBV_WC_LOC_QP_OP_ERR), which put the requester, and only the
//     requester, in its error state.
//   - The RNR timer fired; the requester, in error, flushes what it has
//     not sent and never does the retry, so need_retry stayed set, and A's
//     completer returns at once whenever need_retry is set. The 24 sends
//     already sent (acknowledged by no one) stayed pending at the head of
//     the send queue, and every send behind them waited for them: no
//     completion, no retry timer, the QP still in RTS, for good.
//
// Moving the QP to the error state still flushes every send (the
// completer's flush does not look at need_retry): a program that must not
// hang on this kernel bounds its wait for completions and then does that.
func rnrNAKs(t *testing.T, dev string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/sys/class/infiniband", dev, "ports/1/hw_counters/rcvd_rnr_err"))
	require.NoError(t, err)
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	require.NoError(t, err)
	return n
}
