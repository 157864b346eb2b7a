//go:build rxe

package bench

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cycles"
	"github.com/goverbs/goverbs/rdma"
)

// The latency benchmark's far end is another process, as ib_send_lat's
// server is: this test binary re-executed with peerEnv set, driven over
// its stdin/stdout:
//
//	peer -> "ep <qpn> <psn> <gid hex>"    its endpoint
//	bench -> "ep <qpn> <psn> <gid hex>"   the benchmark's; the peer connects
//	bench -> "pong <size> <n> <wait> <chunk>"
//	                                       answer n sends with sends of size,
//	                                       waiting as the benchmark does (a
//	                                       wait below; chunk: the paired
//	                                       ping-pong's, 0 for the others)
//	peer -> "done"
//	bench -> "quit"                        close everything and exit 0
const peerEnv = "GOVERBS_BENCH_PEER_DEV"

func TestMain(m *testing.M) {
	if ip := os.Getenv(connsPeerEnv); ip != "" {
		if err := runConnsPeer(ip, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench conns peer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dev := os.Getenv(peerEnv); dev != "" {
		if err := runPeer(dev, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench peer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	maxMsg    = 4096
	recvDepth = 64
	sendDepth = 16
)

// node is one end of a latency pair, built as ib_send_lat builds its own:
// sends and receives complete on CQs of their own, both on one completion
// channel; every send is signaled (ib_send_lat caps its CQ moderation at
// its send queue's depth, 1 in a latency test); no send is inline
// (ib_send_lat knows inline sizes only for the devices it recognises by
// vendor ID; on any other, rxe among them, it asks for none and prints
// "Max inline data : 0[B]"); an iteration waits for the completions of
// both its send and its receive. With -e, ib_send_lat waits for each
// through the channel (seen with strace: two ibv_get_cq_event reads per
// iteration, one per CQ); without, it busy-polls the send CQ after each
// post and the receive CQ before it.
type node struct {
	lastRecv uint32 // byte length of the last receive
	sending  bool   // a signaled send has not completed yet
	wait     string // how it waits: waitNetpoll, waitBlocking or waitSpin
	dev      *rdma.Device
	pd       *rdma.PD
	buf      *rdma.Buffer
	mr       *rdma.MR
	cc       *rdma.CompChannel
	rcq      *rdma.CQ // receive completions
	scq      *rdma.CQ // send completions
	qp       *rdma.QP
	wcs      []ibv.WC
}

func newNode(devName string, gidIndex int) (*node, rdma.Endpoint, error) {
	n := &node{wcs: make([]ibv.WC, 16)}
	var err error
	if n.dev, err = rdma.Open(devName); err != nil {
		return nil, rdma.Endpoint{}, err
	}
	if n.pd, err = n.dev.AllocPD(); err != nil {
		return n, rdma.Endpoint{}, err
	}
	if n.buf, err = rdma.AllocBuffer(2 * maxMsg); err != nil {
		return n, rdma.Endpoint{}, err
	}
	if n.mr, err = n.pd.Register(n.buf.Bytes(), ibv.AccessFlagsLocalWrite); err != nil {
		return n, rdma.Endpoint{}, err
	}
	if n.cc, err = n.dev.NewCompChannel(); err != nil {
		return n, rdma.Endpoint{}, err
	}
	if n.rcq, err = n.dev.NewCQ(2*recvDepth, n.cc); err != nil {
		return n, rdma.Endpoint{}, err
	}
	if n.scq, err = n.dev.NewCQ(2*sendDepth, n.cc); err != nil {
		return n, rdma.Endpoint{}, err
	}
	if n.qp, err = n.pd.NewQP(rdma.QPConfig{SendCQ: n.scq, RecvCQ: n.rcq, MaxSend: sendDepth, MaxRecv: recvDepth}); err != nil {
		return n, rdma.Endpoint{}, err
	}
	ep, err := n.qp.Endpoint(rdma.Path{GIDIndex: gidIndex}, 0)
	return n, ep, err
}

func (n *node) close() {
	for _, c := range []interface{ Close() error }{n.qp, n.rcq, n.scq, n.cc, n.mr, n.pd} {
		if c != nil {
			c.Close()
		}
	}
	if n.buf != nil {
		n.buf.Free()
	}
	if n.dev != nil {
		n.dev.Close()
	}
}

func (n *node) connect(gidIndex int, remote rdma.Endpoint) error {
	if err := n.qp.Connect(rdma.Path{GIDIndex: gidIndex}, 0, remote); err != nil {
		return err
	}
	recv := n.recvWork()
	for range recvDepth {
		if err := n.qp.PostRecv(recv); err != nil {
			return err
		}
	}
	return nil
}

func (n *node) recvWork() rdma.RecvWork {
	sg, _ := n.mr.SGE(maxMsg, maxMsg)
	return rdma.RecvWork{ID: recvID, SGEs: []ibv.SGE{sg}}
}

// The work-request IDs of the ping-pong's receives and sends.
const (
	recvID = 1
	sendID = 2
)

// sendWork is the signaled send of size bytes that send posts, gathered
// from the node's memory region, never inline (see node).
func (n *node) sendWork(size int) rdma.SendWork {
	sg, _ := n.mr.SGE(0, size)
	return rdma.SendWork{ID: sendID, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{sg}}
}

// send posts w; awaitRecv waits for its completion.
func (n *node) send(w rdma.SendWork) error {
	if err := n.qp.PostSend(w); err != nil {
		return err
	}
	n.sending = true
	return nil
}

// awaitRecv waits until a receive has completed (and re-posts it) and the
// last send has too, as n.wait says. As ib_send_lat -e does, an event wait
// takes the channel's next event first and then polls the CQ the event
// names, the first poll in the same cgo call as the wait: through the
// netpoller (CompChannel.WaitPoll), or held in C (WaitBlockingPoll).
// Each CQ is drained after each of its events, so every completion raises
// one. Busy polling (waitSpin) is spinPingPong's.
func (n *node) awaitRecv(recv rdma.RecvWork) error {
	for got := false; !got || n.sending; {
		cq, k, err := n.waitEvent()
		for ; err == nil; k, err = cq.Poll(n.wcs) {
			if err := n.handle(n.wcs[:k], recv, &got); err != nil {
				return err
			}
			if k < len(n.wcs) {
				break
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// spinPingPong is iters rounds of the busy-polled ping-pong in one
// function, as ib_send_lat's loop is one C function: each round the
// initiator posts its send (noting the time in posts[i] first, a
// cycles.Now stamp, as ib_send_lat notes get_cycles) and then waits, the
// other side waits and then sends; waiting is polling the send CQ until
// the last send has completed, then the receive CQ until a receive has,
// which is re-posted at once, each wait one CQ.PollSpin (its polls a loop
// in C, as ib_send_lat's are). Under TCG the calls and returns between
// seeing the receive and ringing the next send's doorbell cost far more
// than their work (see docs/notes/2026-12-02-rxe-ring-path.md,
// "Busy polling"), so none is left but those of rdma's own calls.
func (n *node) spinPingPong(send rdma.SendWork, recv rdma.RecvWork, iters int, initiator bool, posts []uint64) error {
	wcs := n.wcs[:1]
	for i := range iters {
		if initiator {
			posts[i] = cycles.Now()
			if err := n.qp.PostSend(send); err != nil {
				return err
			}
			n.sending = true
		}
		for n.sending {
			k, err := n.scq.PollSpin(wcs, spinLong)
			if err != nil {
				return err
			}
			if k > 0 {
				if wcs[0].Status != ibv.WCStatusSuccess || wcs[0].WRID != sendID {
					return fmt.Errorf("send completion %d: %s", wcs[0].WRID, ibv.WCStatusStr(wcs[0].Status))
				}
				n.sending = false
			}
		}
		for {
			k, err := n.rcq.PollSpin(wcs, spinLong)
			if err != nil {
				return err
			}
			if k > 0 {
				if wcs[0].Status != ibv.WCStatusSuccess || wcs[0].WRID != recvID {
					return fmt.Errorf("receive completion %d: %s", wcs[0].WRID, ibv.WCStatusStr(wcs[0].Status))
				}
				n.lastRecv = wcs[0].ByteLen
				if err := n.qp.PostRecv(recv); err != nil {
					return err
				}
				break
			}
		}
		if !initiator {
			if err := n.qp.PostSend(send); err != nil {
				return err
			}
			n.sending = true
		}
	}
	return nil
}

// spinLong is the spins of the busy-polled ping-pong's CQ.PollSpin: far
// more than a round trip takes (it returns at the first completion).
const spinLong = 1 << 40

// handle takes completions: a receive sets *got and is re-posted, a send
// clears n.sending.
func (n *node) handle(wcs []ibv.WC, recv rdma.RecvWork, got *bool) error {
	for _, wc := range wcs {
		if wc.Status != ibv.WCStatusSuccess {
			return fmt.Errorf("completion %d: %s", wc.WRID, ibv.WCStatusStr(wc.Status))
		}
		switch wc.WRID {
		case recvID:
			n.lastRecv, *got = wc.ByteLen, true
			if err := n.qp.PostRecv(recv); err != nil {
				return err
			}
		case sendID:
			n.sending = false
		}
	}
	return nil
}

// waitEvent waits for the channel's next event, as n.wait says, and
// returns its CQ with the completions of the first poll in n.wcs[:k].
func (n *node) waitEvent() (cq *rdma.CQ, k int, err error) {
	if n.wait == waitBlocking || n.wait == waitPairedBlocking {
		return n.cc.WaitBlockingPoll(context.Background(), n.wcs)
	}
	return n.cc.WaitPoll(context.Background(), n.wcs)
}

func formatEP(ep rdma.Endpoint) string {
	return fmt.Sprintf("ep %d %d %s", ep.QPN, ep.PSN, hex.EncodeToString(ep.GID.Raw()[:]))
}

func parseEP(line string) (rdma.Endpoint, error) {
	var ep rdma.Endpoint
	var g string
	if _, err := fmt.Sscanf(line, "ep %d %d %s", &ep.QPN, &ep.PSN, &g); err != nil {
		return ep, fmt.Errorf("endpoint line %q: %w", line, err)
	}
	b, err := hex.DecodeString(g)
	if err != nil || len(b) != 16 {
		return ep, fmt.Errorf("endpoint line %q: bad GID", line)
	}
	copy(ep.GID.Raw()[:], b)
	return ep, nil
}

func runPeer(devName string, in io.Reader, out io.Writer) error {
	n, ep, err := newNode(devName, 1)
	if n != nil {
		defer n.close()
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(out, formatEP(ep))
	sc := bufio.NewScanner(in)
	if !sc.Scan() {
		return fmt.Errorf("no endpoint from the benchmark")
	}
	remote, err := parseEP(sc.Text())
	if err != nil {
		return err
	}
	if err := n.connect(1, remote); err != nil {
		return err
	}
	recv := n.recvWork()
	for sc.Scan() {
		var size, iters, chunk int
		switch line := sc.Text(); {
		case line == "quit":
			return nil
		case strings.HasPrefix(line, "pong "):
			var wait string
			if _, err := fmt.Sscanf(line, "pong %d %d %s %d", &size, &iters, &wait, &chunk); err != nil {
				return err
			}
			if n.wait, err = parseWait(wait); err != nil {
				return err
			}
			if err := n.pong(n.sendWork(size), recv, iters, chunk); err != nil {
				return err
			}
			fmt.Fprintln(out, "done")
		default:
			return fmt.Errorf("unknown command %q", line)
		}
	}
	return sc.Err()
}

// pong answers iters rounds of the ping-pong, waiting as n.wait says
// (paired: in chunks of chunk rounds).
func (n *node) pong(send rdma.SendWork, recv rdma.RecvWork, iters, chunk int) error {
	switch {
	case n.wait == waitSpin:
		return n.spinPingPong(send, recv, iters, false, nil)
	case pairedWait(n.wait):
		return n.pairedPingPong(send, recv, iters, chunk, false, nil)
	}
	return n.eventPingPong(send, recv, iters, false, nil)
}

// eventPingPong is iters rounds of the event-driven ping-pong: the
// initiator stamps posts[i] and posts its send, then waits (awaitRecv);
// the other side waits, then sends.
func (n *node) eventPingPong(send rdma.SendWork, recv rdma.RecvWork, iters int, initiator bool, posts []uint64) error {
	for i := range iters {
		if initiator {
			posts[i] = cycles.Now()
			if err := n.send(send); err != nil {
				return err
			}
		}
		if err := n.awaitRecv(recv); err != nil {
			return err
		}
		if !initiator {
			if err := n.send(send); err != nil {
				return err
			}
		}
	}
	return nil
}

// The ways a node waits for its completions ("pong"'s last word).
const (
	waitNetpoll  = "netpoll"  // events: CompChannel.WaitPoll
	waitBlocking = "blocking" // events: CompChannel.WaitBlockingPoll
	waitSpin     = "spin"     // no events: CQ.PollSpin
	waitPaired   = "paired"   // no events: chunks of waitSpin and of its C twin in turn
	// Events, paired: chunks of waitBlocking (waitNetpoll) and of their C
	// twin, ib_send_lat -e's loop, in turn.
	waitPairedBlocking = "pairedblocking"
	waitPairedNetpoll  = "pairednetpoll"
	// The paired ping-pong's check (BenchmarkPairCheck): the same chunks
	// and switches, each loop paired with itself.
	waitPairedC  = "pairedc"  // the C twin in every chunk
	waitPairedGo = "pairedgo" // waitSpin in every chunk
)

// pairedPingPong is iters rounds of the ping-pong in chunks of chunk
// rounds, the Go loop's and its C twin's (cPingPong, through the provider)
// in turn, the Go loop's first (or, as n.wait says, one of them in every
// chunk): busy-polled, spinPingPong's and cPingPong.run's; event-driven
// (n.wait pairedblocking or pairednetpoll), eventPingPong's and
// cPingPong.runEvents'. Both ends switch at the same rounds, each by its
// own count, and yield the processor (runtime.Gosched) at each switch: see
// pairChunkTime for why.
func (n *node) pairedPingPong(send rdma.SendWork, recv rdma.RecvWork, iters, chunk int, initiator bool, posts []uint64) error {
	if chunk < 1 {
		return fmt.Errorf("paired ping-pong: chunk of %d rounds", chunk)
	}
	c, err := newCPingPong(n.qp.Raw(), n.scq.Raw(), n.rcq.Raw(), n.cc.Raw(), send.SGEs[0], send.ID, recv.SGEs[0], recv.ID)
	if err != nil {
		return err
	}
	defer c.free()
	for start := 0; start < iters; start += chunk {
		k := min(chunk, iters-start)
		var stamps []uint64
		if initiator {
			stamps = posts[start : start+k]
		}
		runtime.Gosched()
		goChunk := n.wait == waitPairedGo || n.wait != waitPairedC && (start/chunk)%2 == 0
		var p *uint64
		if initiator {
			p = &stamps[0]
		}
		switch {
		case goChunk && (n.wait == waitPairedBlocking || n.wait == waitPairedNetpoll):
			err = n.eventPingPong(send, recv, k, initiator, stamps)
		case goChunk:
			err = n.spinPingPong(send, recv, k, initiator, stamps)
		case n.wait == waitPairedBlocking || n.wait == waitPairedNetpoll:
			err = c.runEvents(k, initiator, p, &n.sending)
			n.lastRecv = c.lastLen()
		default:
			err = c.run(k, initiator, p, &n.sending)
			n.lastRecv = c.lastLen()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pairedWait reports whether wait is the paired ping-pong or its check.
func pairedWait(wait string) bool {
	return wait == waitPaired || wait == waitPairedC || wait == waitPairedGo ||
		wait == waitPairedBlocking || wait == waitPairedNetpoll
}

// calibrationWait is how the Go loop of a paired wait waits, alone.
func calibrationWait(wait string) string {
	switch wait {
	case waitPairedBlocking:
		return waitBlocking
	case waitPairedNetpoll:
		return waitNetpoll
	}
	return waitSpin
}

// parseWait checks that wait names a way of waiting and returns it.
func parseWait(wait string) (string, error) {
	switch wait {
	case waitNetpoll, waitBlocking, waitSpin, waitPaired, waitPairedC, waitPairedGo, waitPairedBlocking, waitPairedNetpoll:
		return wait, nil
	}
	return "", fmt.Errorf("unknown wait %q", wait)
}

// peer is the benchmark's handle on a running peer process.
type peer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startPeer(dev string) (*peer, rdma.Endpoint, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peerEnv+"="+dev)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, rdma.Endpoint{}, err
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return nil, rdma.Endpoint{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, rdma.Endpoint{}, err
	}
	p := &peer{cmd: cmd, in: in, out: bufio.NewScanner(outp)}
	line, err := p.line()
	if err != nil {
		p.stop()
		return nil, rdma.Endpoint{}, err
	}
	ep, err := parseEP(line)
	if err != nil {
		p.stop()
	}
	return p, ep, err
}

func (p *peer) line() (string, error) {
	if !p.out.Scan() {
		if err := p.out.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("bench peer exited early")
	}
	return p.out.Text(), nil
}

func (p *peer) send(format string, args ...any) error {
	_, err := fmt.Fprintf(p.in, format+"\n", args...)
	return err
}

func (p *peer) stop() error {
	p.send("quit")
	p.in.Close()
	return p.cmd.Wait()
}

func ibvRecvLen(n *node) uint32 { return n.lastRecv }
