//go:build rxe

package bench

import (
	"errors"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// BenchmarkPollEmpty is the cost of one poll of an empty CQ: "go" is
// rdma.CQ.Poll (on rxe: a read of the CQ's ring in Go), "gocgo" the same
// through the provider's poll_cq (CQ.SetDirect(false): one cgo crossing
// each), "cgo" a bare cgo call of the provider's poll, "c" the same
// provider call in a C loop. ns/op is per
// poll (mean); each variant polls untimed first (warmup).
func BenchmarkPollEmpty(b *testing.B) {
	env := rxetest.Guest(b)
	f := newFlusher(b, env.Nodes[0].Dev, 1)
	wcs := make([]ibv.WC, 1)
	// goPolls polls through rdma.CQ.Poll, reading rxe's ring in Go when
	// direct, else through the provider's poll_cq.
	goPolls := func(direct bool) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			f.cq.SetDirect(direct)
			defer f.cq.SetDirect(true)
			poll := func(n int) {
				for range n {
					if _, err := f.cq.Poll(wcs); err != nil {
						b.Fatal(err)
					}
				}
			}
			poll(warmup(b))
			b.ResetTimer()
			poll(b.N)
		}
	}
	b.Run("impl=go", goPolls(true))
	b.Run("impl=gocgo", goPolls(false))
	b.Run("impl=cgo", func(b *testing.B) {
		fn, cq := f.pollFn(), unsafe.Pointer(f.cq.Raw())
		for range warmup(b) {
			cPollOnce(fn, cq, 1, unsafe.Pointer(&wcs[0]))
		}
		b.ResetTimer()
		for range b.N {
			cPollOnce(fn, cq, 1, unsafe.Pointer(&wcs[0]))
		}
	})
	b.Run("impl=c", func(b *testing.B) {
		cPollEmpty(f.pollFn(), unsafe.Pointer(f.cq.Raw()), unsafe.Pointer(&wcs[0]), int64(warmup(b)))
		ns := cPollEmpty(f.pollFn(), unsafe.Pointer(f.cq.Raw()), unsafe.Pointer(&wcs[0]), int64(b.N))
		b.ReportMetric(float64(ns)/float64(b.N), "ns/op")
	})
}

// BenchmarkDrain is the per-completion cost of draining a CQ full of
// completions in batches: "go" calls rdma.CQ.Poll once per batch (into Go
// memory), "gobatch" rdma.CQ.PollBatch (into the CQ's C-memory array),
// both reading rxe's ring in Go; "gobatchcgo" is PollBatch through the
// provider's poll_cq (CQ.SetDirect(false), one cgo crossing per batch),
// "cgo" a bare cgo call of the provider's poll per batch, "c" runs the
// same loop in C. Each poll is timed on its own, from the language that
// loops (Go's clock around the call, C's around the provider's), and only
// polls that returned a full batch count. b.N is the number of completions
// timed (make bench sets it with POLL_BENCHTIME). ns/op is the mean cost
// per completion; ns/completion, the figure compared, is the median poll's
// cost, less the median cost of the language's clock reads around an empty
// interval (clock_ns), divided by the batch: under TCG on a shared host a
// poll during which the host deschedules the guest's vCPU costs
// milliseconds, in either language, and Go's time.Now and time.Since cost
// more than C's two clock_gettime calls. Every variant drains one round
// untimed first.
func BenchmarkDrain(b *testing.B) {
	env := rxetest.Guest(b)
	for _, batch := range []int{16, 64, 256, 1024} {
		f := newFlusher(b, env.Nodes[0].Dev, drainRound)
		wcs := make([]ibv.WC, batch)
		b.Run(fmt.Sprintf("impl=go/batch=%d", batch), func(b *testing.B) {
			f.drainRounds(b, batch, goClockPairs, drainPoll(f.cq, wcs))
		})
		b.Run(fmt.Sprintf("impl=gobatch/batch=%d", batch), func(b *testing.B) {
			f.drainRounds(b, batch, goClockPairs, drainPollBatch(f.cq, batch))
		})
		b.Run(fmt.Sprintf("impl=gobatchcgo/batch=%d", batch), func(b *testing.B) {
			f.cq.SetDirect(false)
			defer f.cq.SetDirect(true)
			f.drainRounds(b, batch, goClockPairs, drainPollBatch(f.cq, batch))
		})
		b.Run(fmt.Sprintf("impl=cgo/batch=%d", batch), func(b *testing.B) {
			f.drainRounds(b, batch, goClockPairs, drainCgo(f.pollFn(), unsafe.Pointer(f.cq.Raw()), wcs))
		})
		b.Run(fmt.Sprintf("impl=c/batch=%d", batch), func(b *testing.B) {
			f.drainRounds(b, batch, cClockPairs, func(durs []int64, got []int32) (int, error) {
				calls := cDrain(f.pollFn(), unsafe.Pointer(f.cq.Raw()), batch, unsafe.Pointer(&wcs[0]), drainRound, durs, got)
				if calls < 0 {
					return 0, errors.New("ibv_poll_cq failed")
				}
				return calls, nil
			})
		})
	}
}

// The Go drainers time each poll as a Go program would make it: the call
// between the clock reads, as C's loop has the provider's poll between its
// own (a poll behind a func value would be charged the indirect call too).

// drainPoll drains with CQ.Poll into wcs.
func drainPoll(cq *rdma.CQ, wcs []ibv.WC) drainer {
	return func(durs []int64, got []int32) (int, error) {
		calls, total := 0, 0
		for ; calls < len(durs) && total < drainRound; calls++ {
			t0 := time.Now()
			n, err := cq.Poll(wcs)
			durs[calls] = int64(time.Since(t0))
			if err != nil {
				return 0, err
			}
			got[calls], total = int32(n), total+n
		}
		return calls, nil
	}
}

// drainPollBatch drains with CQ.PollBatch.
func drainPollBatch(cq *rdma.CQ, batch int) drainer {
	return func(durs []int64, got []int32) (int, error) {
		calls, total := 0, 0
		for ; calls < len(durs) && total < drainRound; calls++ {
			t0 := time.Now()
			done, err := cq.PollBatch(batch)
			durs[calls] = int64(time.Since(t0))
			if err != nil {
				return 0, err
			}
			got[calls], total = int32(len(done)), total+len(done)
		}
		return calls, nil
	}
}

// drainCgo drains with a bare cgo call of the provider's poll.
func drainCgo(fn, cq unsafe.Pointer, wcs []ibv.WC) drainer {
	return func(durs []int64, got []int32) (int, error) {
		calls, total := 0, 0
		for ; calls < len(durs) && total < drainRound; calls++ {
			t0 := time.Now()
			n := cPollOnce(fn, cq, len(wcs), unsafe.Pointer(&wcs[0]))
			durs[calls] = int64(time.Since(t0))
			if n < 0 {
				return 0, errors.New("ibv_poll_cq failed")
			}
			got[calls], total = int32(n), total+n
		}
		return calls, nil
	}
}

// drainRound is how many completions one round of BenchmarkDrain drains:
// the CQ is filled with that many, then drained in batches.
const drainRound = 4096

// A drainer drains one round, one poll per batch, recording each poll's
// duration (ns) in durs and its completions in got, and returns the
// number of polls (at most len(durs)).
type drainer func(durs []int64, got []int32) (int, error)

// drainRounds fills the CQ with drainRound completions and drains them
// with drain until b.N completions from full-batch polls are timed, after
// one untimed round. A round with a short poll (completions still
// arriving) makes the next fill wait longer. After each round clock times
// 512 empty intervals the way drain times a poll: their median over the
// timed rounds, the clock's own share of each poll's time (reported as
// clock_ns), is taken off the median poll, so that neither language is
// charged for its clock.
func (f *flusher) drainRounds(b *testing.B, batch int, clock func(durs []int64), drain drainer) {
	b.ReportAllocs()
	var clocks []int64 // empty intervals, 512 after each round
	empty := make([]int64, 512)
	maxCalls := 4 * drainRound / batch
	durs, got := make([]int64, maxCalls), make([]int32, maxCalls)
	full := make([]int64, 0, b.N/batch+maxCalls)
	for warm := false; len(full)*batch < b.N; warm = true {
		f.fill(b)
		calls, err := drain(durs, got)
		if err != nil {
			b.Fatal(err)
		}
		clock(empty)
		if warm {
			clocks = append(clocks, empty...)
		}
		for i := range calls {
			switch {
			case int(got[i]) != batch:
				f.settle = min(2*f.settle, time.Second)
			case warm:
				full = append(full, durs[i])
			}
		}
	}
	var total int64
	for _, d := range full {
		total += d
	}
	b.ReportMetric(float64(total)/float64(len(full)*batch), "ns/op")
	clockNs := median(clocks)
	b.ReportMetric(clockNs, "clock_ns")
	b.ReportMetric((median(full)-clockNs)/float64(batch), "ns/completion")
}

// goClockPairs fills durs with the durations of empty intervals timed as
// BenchmarkDrain's Go loops time a poll.
func goClockPairs(durs []int64) {
	for i := range durs {
		t0 := time.Now()
		durs[i] = int64(time.Since(t0))
	}
}

// flusher fills a CQ with completions on demand: a QP with n receives
// posted, moved to the error state, flushes them all.
type flusher struct {
	cq     *rdma.CQ
	qp     *rdma.QP
	recv   []rdma.RecvWork
	settle time.Duration // how long fill lets the provider finish flushing
}

func newFlusher(b *testing.B, dev string, n int) *flusher {
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	d, err := rdma.Open(dev)
	must(err)
	b.Cleanup(func() { must(d.Close()) })
	pd, err := d.AllocPD()
	must(err)
	b.Cleanup(func() { must(pd.Close()) })
	buf, err := rdma.AllocBuffer(4096)
	must(err)
	b.Cleanup(func() { must(buf.Free()) })
	mr, err := pd.Register(buf.Bytes(), ibv.AccessLocalWrite)
	must(err)
	b.Cleanup(func() { must(mr.Close()) })
	f := &flusher{settle: 20 * time.Millisecond}
	f.cq, err = d.NewCQ(2*n, nil)
	must(err)
	b.Cleanup(func() { must(f.cq.Close()) })
	if !f.cq.Direct() {
		b.Fatal("rdma.CQ on rxe does not read its ring in Go (CQ.Direct is false)")
	}
	f.qp, err = pd.NewQP(rdma.QPConfig{SendCQ: f.cq, RecvCQ: f.cq, MaxSend: 1, MaxRecv: n})
	must(err)
	b.Cleanup(func() { must(f.qp.Close()) })
	sg, _ := mr.SGE(0, 64)
	f.recv = make([]rdma.RecvWork, n)
	for i := range f.recv {
		f.recv[i] = rdma.RecvWork{ID: uint64(i), SGEs: []ibv.SGE{sg}}
	}
	return f
}

func (f *flusher) pollFn() unsafe.Pointer { return f.cq.Raw().Context.Ops.PollCQ }

// fill (timer stopped) resets the QP, posts its receives and flushes them
// into the CQ, then lets the provider finish.
func (f *flusher) fill(b *testing.B) {
	b.StopTimer()
	defer b.StartTimer()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(f.qp.Modify(&ibv.QPAttr{QPState: ibv.QpsReset}, ibv.QPStateValue))
	for { // what a round left (it stops at drainRound completions or its poll budget)
		n, err := f.cq.PollBatch(256)
		must(err)
		if len(n) == 0 {
			break
		}
	}
	must(f.qp.Modify(&ibv.QPAttr{QPState: ibv.QpsInit, PortNum: 1}, ibv.QPStateValue|ibv.QPPkeyIndex|ibv.QPPort|ibv.QPAccessFlags))
	must(f.qp.PostRecv(f.recv...))
	must(f.qp.Modify(&ibv.QPAttr{QPState: ibv.QpsErr}, ibv.QPStateValue))
	time.Sleep(f.settle)
}

// BenchmarkCgoNoop is the floor under every Go/C comparison: one cgo call
// of a C function that does nothing.
func BenchmarkCgoNoop(b *testing.B) {
	for range warmup(b) {
		cNoop()
	}
	b.ResetTimer()
	for range b.N {
		cNoop()
	}
}

// BenchmarkCgoPointerArgs is BenchmarkCgoNoop with three pointer arguments
// (C memory): what cgo's run-time check of pointer arguments adds to a
// call, which rdma's trampolines avoid (rdma/fastpath.go).
func BenchmarkCgoPointerArgs(b *testing.B) {
	p := cAllocBench(64)
	defer cFreeBench(p)
	for range warmup(b) {
		cNoopPtrs(p, p, p)
	}
	b.ResetTimer()
	for range b.N {
		cNoopPtrs(p, p, p)
	}
}

// warmup is how many untimed calls a benchmark makes before timing: under
// TCG the first runs of a code path pay for its translation.
func warmup(b *testing.B) int { return min(b.N, 1000) }
