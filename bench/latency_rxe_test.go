//go:build rxe

package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// Message sizes of the latency comparison.
var latencySizes = []int{2, 8, 32, 128, 512, 2048, 4096}

// BenchmarkSendLat is RC send latency, ping-pong between node A (this
// process) and node B (a peer process), both waiting for completions on
// their completion channel: "go" is this package's layer (PostSend, then
// CQ.Await parked on the netpoller), "perftest" is ib_send_lat -e (blocking
// ibv_get_cq_event) with the same size and iteration count. The metric t_avg_us is half the round trip,
// as ib_send_lat reports it; ns/op is the whole round trip.
func BenchmarkSendLat(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	for _, size := range latencySizes {
		b.Run(fmt.Sprintf("impl=go/size=%d", size), func(b *testing.B) {
			p, remote, err := startPeer(nb.Dev)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := p.stop(); err != nil {
					b.Error("peer:", err)
				}
			}()
			n, ep, err := newNode(na.Dev, env.GIDIndex)
			defer n.close()
			if err != nil {
				b.Fatal(err)
			}
			if err := p.send("%s", formatEP(ep)); err != nil {
				b.Fatal(err)
			}
			if err := n.connect(env.GIDIndex, remote); err != nil {
				b.Fatal(err)
			}
			if err := p.send("pong %d %d", size, b.N); err != nil {
				b.Fatal(err)
			}
			send, recv := n.sendWork(size), n.recvWork()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if err := n.qp.PostSend(send); err != nil {
					b.Fatal(err)
				}
				if err := n.awaitRecv(recv); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(start)
			b.StopTimer()
			if line, err := p.line(); err != nil || line != "done" {
				b.Fatalf("peer: %q %v", line, err)
			}
			b.ReportMetric(float64(el.Microseconds())/float64(b.N)/2, "t_avg_us")
		})
		b.Run(fmt.Sprintf("impl=perftest/size=%d", size), func(b *testing.B) {
			out, err := perftest(b, "ib_send_lat", na, nb, env.GIDIndex, "-e", "-s", fmt.Sprint(size), "-n", fmt.Sprint(max(b.N, 5)))
			if err != nil {
				b.Fatal(err)
			}
			t, err := perftestColumn(out, "t_avg[usec]")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(t, "t_avg_us")
		})
	}
}
