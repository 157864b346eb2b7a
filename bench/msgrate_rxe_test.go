//go:build rxe

package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// BenchmarkWriteRate is the 64-byte RDMA-write message rate from node A to
// node B: "go" posts batches of 32 writes per call (one signaled per batch,
// at most 128 outstanding, as ib_write_bw's default tx depth), "perftest" is
// ib_write_bw -s 64. The metric is Mpps.
func BenchmarkWriteRate(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	const size, batch, depth = 64, 32, 128
	b.Run("impl=go", func(b *testing.B) {
		src, dst := newPair(b, na.Dev, nb.Dev, env.GIDIndex, depth)
		ws := make([]rdma.SendWork, batch)
		for i := range ws {
			sg, _ := src.mr.SGE(0, size)
			ws[i] = rdma.SendWork{ID: uint64(i), Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{sg},
				RemoteAddr: dst.mr.Addr(), RKey: dst.mr.RKey()}
		}
		ws[batch-1].Flags = ibv.SendFlagsSignaled
		wcs := make([]ibv.WC, depth/batch)
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		posted, outstanding := 0, 0
		for posted < b.N || outstanding > 0 {
			for posted < b.N && outstanding < depth/batch {
				if err := src.qp.PostSend(ws...); err != nil {
					b.Fatal(err)
				}
				posted += batch
				outstanding++
			}
			k, err := src.cq.PollSpin(wcs, 1<<30)
			if err != nil {
				b.Fatal(err)
			}
			for _, wc := range wcs[:k] {
				if wc.Status != ibv.WCStatusSuccess {
					b.Fatalf("write: %s", ibv.WCStatusStr(wc.Status))
				}
			}
			outstanding -= k
		}
		el := time.Since(start)
		b.ReportMetric(float64(posted)/float64(el.Microseconds()), "Mpps")
	})
	b.Run("impl=perftest", func(b *testing.B) {
		out, err := perftest(b, "ib_write_bw", na, nb, env.GIDIndex, "-s", fmt.Sprint(size), "-n", fmt.Sprint(max(b.N, 1000)))
		if err != nil {
			b.Fatal(err)
		}
		r, err := perftestColumn(out, "MsgRate[Mpps]")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r, "Mpps")
	})
}

// pairNode is one side of an in-process pair.
type pairNode struct {
	dev *rdma.Device
	pd  *rdma.PD
	buf *rdma.Buffer
	mr  *rdma.MR
	cq  *rdma.CQ
	qp  *rdma.QP
}

// newPair connects RC QPs on devices a and b of this process, closed when
// the benchmark ends.
func newPair(b *testing.B, a, bdev string, gid, depth int) (*pairNode, *pairNode) {
	mk := func(dev string) *pairNode {
		n := &pairNode{}
		var err error
		must := func(err error) {
			if err != nil {
				b.Fatal(err)
			}
		}
		n.dev, err = rdma.Open(dev)
		must(err)
		b.Cleanup(func() { must(n.dev.Close()) })
		n.pd, err = n.dev.AllocPD()
		must(err)
		b.Cleanup(func() { must(n.pd.Close()) })
		n.buf, err = rdma.AllocBuffer(1 << 16)
		must(err)
		b.Cleanup(func() { must(n.buf.Free()) })
		n.mr, err = n.pd.Register(n.buf.Bytes(), ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite|ibv.AccessFlagsRemoteRead)
		must(err)
		b.Cleanup(func() { must(n.mr.Close()) })
		n.cq, err = n.dev.NewCQ(2*depth, nil)
		must(err)
		b.Cleanup(func() { must(n.cq.Close()) })
		n.qp, err = n.pd.NewQP(rdma.QPConfig{SendCQ: n.cq, RecvCQ: n.cq, MaxSend: depth, MaxRecv: depth})
		must(err)
		b.Cleanup(func() { must(n.qp.Close()) })
		return n
	}
	x, y := mk(a), mk(bdev)
	path := rdma.Path{GIDIndex: gid}
	ex, err := x.qp.Endpoint(path, 1)
	if err != nil {
		b.Fatal(err)
	}
	ey, err := y.qp.Endpoint(path, 2)
	if err != nil {
		b.Fatal(err)
	}
	if err := x.qp.Connect(path, 1, ey); err != nil {
		b.Fatal(err)
	}
	if err := y.qp.Connect(path, 2, ex); err != nil {
		b.Fatal(err)
	}
	return x, y
}
