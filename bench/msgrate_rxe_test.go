//go:build rxe

package bench

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// BenchmarkWriteRate is the 64-byte RDMA-write message rate from node A to
// node B, in batches of writeBatch writes posted with one call (a post
// list, one signaled per batch), at most writeDepth outstanding (as
// ib_write_bw's default tx depth):
//
//   - "pair": this package's loop (QP.PostSend of the batch, CQ.PollSpin)
//     and its C twin (cwrites.go: ibv_post_send of the chained batch,
//     ibv_poll_cq, the loop BenchmarkConns's twin runs on one connection)
//     on the same QP, in rounds that alternate, a Go round then a C round,
//     each of writeRoundBatches batches, drained at its end. Mpps and
//     c_Mpps are each side's median round, paired_ratio the median of each
//     Go round's rate over the C round's after it: the host's speed, which
//     moves separate runs' figures by up to 2.7x, is then the same for
//     both sides of a ratio.
//   - "perftest": ib_write_bw -s 64 with post lists of writeBatch (-l),
//     the external reference of the C twin.
func BenchmarkWriteRate(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	b.Run("impl=pair", func(b *testing.B) {
		src, dst := newPair(b, na.Dev, nb.Dev, env.GIDIndex, writeDepth)
		sg, _ := src.mr.SGE(0, writeSize)
		ws := make([]rdma.SendWork, writeBatch)
		for i := range ws {
			ws[i] = rdma.SendWork{ID: uint64(i), Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{sg},
				RemoteAddr: dst.mr.Addr(), RKey: dst.mr.RKey()}
		}
		ws[writeBatch-1].Flags = ibv.SendFlagsSignaled
		cw, err := newCWrites(1, writeBatch)
		if err != nil {
			b.Fatal(err)
		}
		defer cw.free()
		cw.conn(0, src.qp.Raw(), src.cq.Raw(), sg, dst.mr.Addr(), dst.mr.RKey())
		wcs := make([]ibv.WC, 4)
		rounds := max(b.N/(writeBatch*writeRoundBatches), writeMinRounds)
		writes := float64(writeBatch * writeRoundBatches)
		var goRates, cRates, ratios []float64
		b.ReportAllocs()
		b.ResetTimer()
		for range rounds {
			runtime.Gosched()
			el, err := goWriteRound(src, ws, wcs, writeRoundBatches, writeDepth/writeBatch)
			if err != nil {
				b.Fatal(err)
			}
			runtime.Gosched()
			cel, err := cw.run(writeRoundBatches, writeDepth/writeBatch)
			if err != nil {
				b.Fatal(err)
			}
			g, c := writes/el.Seconds()/1e6, writes/cel.Seconds()/1e6
			goRates, cRates, ratios = append(goRates, g), append(cRates, c), append(ratios, g/c)
		}
		b.StopTimer()
		b.ReportMetric(median(goRates), "Mpps")
		b.ReportMetric(median(cRates), "c_Mpps")
		b.ReportMetric(median(ratios), "paired_ratio")
	})
	b.Run("impl=perftest", func(b *testing.B) {
		out, err := perftest(b, "ib_write_bw", na, nb, env.GIDIndex, "-s", fmt.Sprint(writeSize), "-l", fmt.Sprint(writeBatch),
			"-n", fmt.Sprint(max(b.N, writeBatch*writeRoundBatches*writeMinRounds)))
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

// The write rate's shape: writes of writeSize bytes, in batches of
// writeBatch, at most writeDepth outstanding; rounds of writeRoundBatches
// batches, at least writeMinRounds of each side.
const (
	writeSize, writeBatch, writeDepth = 64, 32, 128
	writeRoundBatches, writeMinRounds = 16, 8
)

// goWriteRound is one Go round of the write rate: batches posts of ws (one
// QP.PostSend each), at most inflight outstanding, polled with
// CQ.PollSpin into wcs until all have completed. Returns its time.
func goWriteRound(n *pairNode, ws []rdma.SendWork, wcs []ibv.WC, batches, inflight int) (time.Duration, error) {
	start := time.Now()
	posted, outstanding := 0, 0
	for posted < batches || outstanding > 0 {
		for posted < batches && outstanding < inflight {
			if err := n.qp.PostSend(ws...); err != nil {
				return 0, err
			}
			posted++
			outstanding++
		}
		k, err := n.cq.PollSpin(wcs, 1<<30)
		if err != nil {
			return 0, err
		}
		for _, wc := range wcs[:k] {
			if wc.Status != ibv.WCStatusSuccess {
				return 0, fmt.Errorf("write: %s", ibv.WCStatusStr(wc.Status))
			}
		}
		outstanding -= k
	}
	return time.Since(start), nil
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
