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
// rdma.CQ.Poll (one cgo crossing each), "c" the same provider call in a C
// loop. ns/op is per poll.
func BenchmarkPollEmpty(b *testing.B) {
	env := rxetest.Guest(b)
	f := newFlusher(b, env.Nodes[0].Dev, 1)
	wcs := make([]ibv.WC, 1)
	b.Run("impl=go", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := f.cq.Poll(wcs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=cgo", func(b *testing.B) {
		fn, cq := f.pollFn(), unsafe.Pointer(f.cq.Raw())
		for range b.N {
			cPollOnce(fn, cq, 1, unsafe.Pointer(&wcs[0]))
		}
	})
	b.Run("impl=c", func(b *testing.B) {
		ns := cPollEmpty(f.pollFn(), unsafe.Pointer(f.cq.Raw()), unsafe.Pointer(&wcs[0]), int64(b.N))
		b.ReportMetric(float64(ns)/float64(b.N), "ns/op")
	})
}

// BenchmarkDrain is the per-completion cost of draining a CQ full of
// completions in batches: "go" calls rdma.CQ.Poll once per batch, "c" runs
// the same loop in C. ns/op is per completion; only rounds where every poll
// returned a full batch count (all completions were already there).
func BenchmarkDrain(b *testing.B) {
	env := rxetest.Guest(b)
	const round = 512
	for _, batch := range []int{16, 64, 256} {
		f := newFlusher(b, env.Nodes[0].Dev, round)
		wcs := make([]ibv.WC, batch)
		b.Run(fmt.Sprintf("impl=go/batch=%d", batch), func(b *testing.B) {
			f.drainRounds(b, round, batch, func() (int, error) { return f.cq.Poll(wcs) })
		})
		b.Run(fmt.Sprintf("impl=gobatch/batch=%d", batch), func(b *testing.B) {
			f.drainRounds(b, round, batch, func() (int, error) {
				done, err := f.cq.PollBatch(batch)
				return len(done), err
			})
		})
		b.Run(fmt.Sprintf("impl=cgo/batch=%d", batch), func(b *testing.B) {
			fn, cq := f.pollFn(), unsafe.Pointer(f.cq.Raw())
			f.drainRounds(b, round, batch, func() (int, error) {
				if n := cPollOnce(fn, cq, batch, unsafe.Pointer(&wcs[0])); n >= 0 {
					return n, nil
				}
				return 0, errors.New("ibv_poll_cq failed")
			})
		})
		b.Run(fmt.Sprintf("impl=c/batch=%d", batch), func(b *testing.B) {
			var total int64
			for done := 0; done < b.N; {
				f.fill(b)
				ns := cDrain(f.pollFn(), unsafe.Pointer(f.cq.Raw()), batch, unsafe.Pointer(&wcs[0]), round)
				if ns < 0 {
					b.Fatal("ibv_poll_cq failed")
				}
				// The C loop does not count calls; a round slowed by late
				// completions is caught by fill's settle time instead.
				total += ns
				done += round
			}
			b.ReportMetric(float64(total)/float64(b.N), "ns/op")
		})
	}
}

// drainRounds fills the CQ with round completions and times draining them
// with poll (one call per batch) until b.N completions are timed; a round
// with a short poll (completions still arriving) is not counted. ns/op is
// per completion.
func (f *flusher) drainRounds(b *testing.B, round, batch int, poll func() (int, error)) {
	b.ReportAllocs()
	var total time.Duration
	for done := 0; done < b.N; {
		f.fill(b)
		start := time.Now()
		got, calls := 0, 0
		for got < round {
			n, err := poll()
			if err != nil {
				b.Fatal(err)
			}
			got += n
			calls++
		}
		el := time.Since(start)
		if calls == round/batch {
			total += el
			done += round
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
}

// flusher fills a CQ with completions on demand: a QP with n receives
// posted, moved to the error state, flushes them all.
type flusher struct {
	cq   *rdma.CQ
	qp   *rdma.QP
	recv []rdma.RecvWork
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
	f := &flusher{}
	f.cq, err = d.NewCQ(2*n, nil)
	must(err)
	b.Cleanup(func() { must(f.cq.Close()) })
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
	must(f.qp.Modify(&ibv.QPAttr{QPState: ibv.QpsInit, PortNum: 1}, ibv.QPStateValue|ibv.QPPkeyIndex|ibv.QPPort|ibv.QPAccessFlags))
	must(f.qp.PostRecv(f.recv...))
	must(f.qp.Modify(&ibv.QPAttr{QPState: ibv.QpsErr}, ibv.QPStateValue))
	time.Sleep(20 * time.Millisecond)
}

// BenchmarkCgoNoop is the floor under every Go/C comparison: one cgo call
// of a C function that does nothing.
func BenchmarkCgoNoop(b *testing.B) {
	for range b.N {
		cNoop()
	}
}
