//go:build rxe

package bench

import (
	"fmt"
	"testing"

	"github.com/goverbs/goverbs/internal/cycles"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// Message sizes of the latency comparison.
var latencySizes = []int{2, 8, 32, 128, 512, 2048, 4096}

// BenchmarkSendLat is RC send latency, ping-pong between node A (this
// process) and node B (a peer process), each built as ib_send_lat builds
// its ends (see node): signaled sends, a send CQ and a receive CQ on one
// completion channel. Three ways of waiting, each paired with its C twin
// in one run, and each twin held against perftest's own tool:
//
//   - busy polling ("pairpoll"): after each post the send CQ, then the
//     receive CQ, each with CQ.PollSpin, the whole loop one function
//     (node.spinPingPong) as ib_send_lat's is; its twin is the same loop
//     in C through the provider (ibv_post_send, ibv_poll_cq,
//     ibv_post_recv), held against ib_send_lat ("perftestpoll");
//   - events, two per iteration, waited for in C on the goroutine's
//     thread ("pairblocking": CompChannel.WaitBlockingPoll) or on the
//     netpoller ("pairnetpoll": CompChannel.WaitPoll), each event's CQ
//     polled in the same cgo call; their twin is ib_send_lat -e's loop in
//     C (ibv_get_cq_event blocking in its read, ibv_ack_cq_events,
//     ibv_req_notify_cq, ibv_poll_cq), held against ib_send_lat -e
//     ("perftest").
//
// A paired run goes in chunks of a few milliseconds (pairChunkTime, in
// rounds by a calibration run of the Go loop), the Go loop's and its C
// twin's in turn (cPingPong), both ends switching together. Its
// paired_ratio is the Go rounds' median over the C rounds' (see
// pairedHalfRTTs): the host's speed, which moves the figures of separate
// runs by up to 2.7x, is then the same for both sides of a ratio.
// t_typical_us is the Go loop's figure, c_t_typical_us its twin's, to
// hold against perftest's; BenchmarkPairCheck checks the pairing.
//
// Same size and iteration count on both sides. The metrics are half the
// round trip, as ib_send_lat reports them: t_typical_us the median (and
// perftest's t_avg_us the mean; a round trip runs from one post to the
// next, as ib_send_lat times it). The median is the figure compared:
// under TCG on a shared host a few iterations of either tool stall for
// milliseconds when the host deschedules a vCPU, which moves the mean by
// tens of per cent from run to run.
func BenchmarkSendLat(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	for _, size := range latencySizes {
		for _, impl := range []struct{ name, wait string }{{"pairpoll", waitPaired}, {"pairblocking", waitPairedBlocking}, {"pairnetpoll", waitPairedNetpoll}} {
			b.Run(fmt.Sprintf("impl=%s/size=%d", impl.name, size), func(b *testing.B) {
				sendLat(b, env, na, nb, size, impl.wait)
			})
		}
		for _, ref := range []struct {
			name   string
			events []string
		}{{"perftest", []string{"-e"}}, {"perftestpoll", nil}} {
			b.Run(fmt.Sprintf("impl=%s/size=%d", ref.name, size), func(b *testing.B) {
				out, err := perftest(b, "ib_send_lat", na, nb, env.GIDIndex, append(ref.events, "-s", fmt.Sprint(size), "-n", fmt.Sprint(max(b.N, 5)))...)
				if err != nil {
					b.Fatal(err)
				}
				for _, m := range []struct{ col, unit string }{{"t_typical[usec]", "t_typical_us"}, {"t_avg[usec]", "t_avg_us"}} {
					t, err := perftestColumn(out, m.col)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(t, m.unit)
				}
			})
		}
	}
}

// BenchmarkSendLatAlone is BenchmarkSendLat's Go loops alone, unpaired:
// "gopoll" (busy polling), "goblocking" (WaitBlockingPoll), "go"
// (WaitPoll), for make bench-wakes, whose tools/wakewin times the awake
// windows of the one loop a process runs. Not part of make bench: a ratio
// of separate runs cannot resolve the targets on this host.
func BenchmarkSendLatAlone(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	for _, size := range latencySizes {
		for _, impl := range []struct{ name, wait string }{{"go", waitNetpoll}, {"goblocking", waitBlocking}, {"gopoll", waitSpin}} {
			b.Run(fmt.Sprintf("impl=%s/size=%d", impl.name, size), func(b *testing.B) {
				sendLat(b, env, na, nb, size, impl.wait)
			})
		}
	}
}

// BenchmarkPairCheck checks the pairing of BenchmarkSendLat's impl=pairpoll:
// the same calibration, chunks, switches and figures, with each loop paired
// with itself, loop=c the C twin in every chunk and loop=go the Go loop.
// paired_ratio should then be 1 but for noise; a systematic departure would
// be the pairing's own, which impl=pairpoll's ratio carries too.
func BenchmarkPairCheck(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	for _, size := range latencySizes {
		for _, loop := range []struct{ name, wait string }{{"c", waitPairedC}, {"go", waitPairedGo}} {
			b.Run(fmt.Sprintf("loop=%s/size=%d", loop.name, size), func(b *testing.B) {
				sendLat(b, env, na, nb, size, loop.wait)
			})
		}
	}
}

// sendLat is one ping-pong run of BenchmarkSendLat or BenchmarkSendLatAlone:
// b.N round trips of size bytes against a peer process, both ends waiting
// as wait says.
func sendLat(b *testing.B, env *rxetest.Env, na, nb rxetest.Node, size int, wait string) {
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
	if n.wait, err = parseWait(wait); err != nil {
		b.Fatal(err)
	}
	if err := p.send("%s", formatEP(ep)); err != nil {
		b.Fatal(err)
	}
	if err := n.connect(env.GIDIndex, remote); err != nil {
		b.Fatal(err)
	}
	send, recv := n.sendWork(size), n.recvWork()
	paired, chunk := pairedWait(wait), 0
	if paired {
		if chunk, err = pairCalibrate(n, p, size, send, recv); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.send("pong %d %d %s %d", size, b.N, wait, chunk); err != nil {
		b.Fatal(err)
	}
	posts := make([]uint64, b.N+1) // cycles.Now at each post, and at the end
	b.ReportAllocs()
	b.ResetTimer()
	clock := cycles.Start()
	switch {
	case paired:
		err = n.pairedPingPong(send, recv, b.N, chunk, true, posts)
	case wait == waitSpin:
		err = n.spinPingPong(send, recv, b.N, true, posts)
	default:
		err = n.eventPingPong(send, recv, b.N, true, posts)
	}
	if err != nil {
		b.Fatal(err)
	}
	posts[b.N] = cycles.Now()
	clock.Stop()
	b.StopTimer()
	if line, err := p.line(); err != nil || line != "done" {
		b.Fatalf("peer: %q %v", line, err)
	}
	if !paired {
		typical, mean := halfRTTs(clock.Ns, posts)
		b.ReportMetric(typical, "t_typical_us")
		b.ReportMetric(mean, "t_avg_us")
		return
	}
	goTyp, cTyp, ratio := pairedHalfRTTs(clock.Ns, posts, chunk, pairSkip)
	b.ReportMetric(goTyp, "t_typical_us")
	b.ReportMetric(cTyp, "c_t_typical_us")
	b.ReportMetric(ratio, "paired_ratio")
	b.ReportMetric(float64(chunk), "pair_chunk_rounds")
}

// pairSkip rounds at the start of each chunk of the paired ping-pong are
// left out of its figures: the switch and the yield land in them (in
// either loop).
const pairSkip = 2

// pairCalibrationRounds is the rounds of pairCalibrate's run.
const pairCalibrationRounds = 64

// pairCalibrate runs pairCalibrationRounds rounds of the paired wait's Go
// loop alone (busy-polled or event-driven, calibrationWait), size bytes
// (send, recv), with the peer and returns the paired ping-pong's chunk for
// their typical half round trip (pairChunkFor).
func pairCalibrate(n *node, p *peer, size int, send rdma.SendWork, recv rdma.RecvWork) (int, error) {
	wait := calibrationWait(n.wait)
	if err := p.send("pong %d %d %s 0", size, pairCalibrationRounds, wait); err != nil {
		return 0, err
	}
	posts := make([]uint64, pairCalibrationRounds+1)
	clock := cycles.Start()
	var err error
	if wait == waitSpin {
		err = n.spinPingPong(send, recv, pairCalibrationRounds, true, posts)
	} else {
		err = n.eventPingPong(send, recv, pairCalibrationRounds, true, posts)
	}
	posts[pairCalibrationRounds] = cycles.Now()
	clock.Stop()
	if err != nil {
		return 0, err
	}
	if line, err := p.line(); err != nil || line != "done" {
		return 0, fmt.Errorf("peer after the calibration: %q %v", line, err)
	}
	typical, _ := halfRTTs(clock.Ns, posts)
	return pairChunkFor(typical), nil
}
