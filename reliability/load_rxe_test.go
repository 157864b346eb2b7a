//go:build rxe

package reliability

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// The load: how many messages. CI runs ciMessages (sized to fit the
// TCG guest with -race in about a minute per root); GOVERBS_LOAD_FULL=1
// (`make load`) runs fullMessages; GOVERBS_LOAD_MESSAGES=N runs N.
const (
	ciMessages   = 60_000
	fullMessages = 1_000_000
)

func loadMessages(t *testing.T) int {
	if s := os.Getenv("GOVERBS_LOAD_MESSAGES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "GOVERBS_LOAD_MESSAGES")
		return n
	}
	if os.Getenv("GOVERBS_LOAD_FULL") == "1" {
		return fullMessages
	}
	return ciMessages
}

const (
	nFlows   = 4    // QP pairs; even flows go A -> B, odd ones B -> A
	window   = 16   // messages in flight per flow (send queue, receive queue, slots)
	slotSize = 8192 // the largest message
	hdrSize  = 8    // crc32c (4) | sequence number (4)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pattern is the bytes messages are cut from; each message starts at its
// own offset, so that a message landing in the wrong place or carrying
// another's bytes fails its checksum.
var pattern = func() []byte {
	r := rand.New(rand.NewPCG(7, 11))
	b := make([]byte, 2*slotSize)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// shape is what message seq of flow f is: its size (8 B to 8 KiB, each power
// of two equally likely), its operation (a send, or an RDMA write with
// immediate into the receiver's slot, which consumes a receive to notify
// it) and where its payload starts in pattern. Both sides compute it.
func shape(f int, seq uint32) (size int, write bool, off int) {
	h := uint64(seq)*0x9e3779b97f4a7c15 ^ uint64(f)<<56
	h ^= h >> 29
	size = 8 << (h % 11)
	write = (h>>8)&1 == 1
	off = int(h>>16) % slotSize
	return
}

// flow is one QP pair carrying count messages one way. The sender's
// handler owns the send fields, the receiver's the receive fields (each
// under its node's lock).
type flow struct {
	idx      int
	count    int
	src, dst *node
	sq, rq   *rdma.QP
	base     int // offset of the flow's slots in both nodes' buffers
	// A message may reuse slot seq%window once the send seq-window has
	// completed at the sender and the message seq-window has been verified
	// (and its receive reposted) at the receiver.
	sendCredits, recvCredits chan struct{}

	// Sender side.
	posted, batches, sendNext, sendErrs int
	// Receiver side.
	recvNext, recvPosted         int    // receive work requests completed, posted
	nextSeq                      uint32 // the sequence number expected next
	verified, lost, dup, corrupt int
	recvErrs, outOfOrder         int
	bytes                        int64
}

func (f *flow) slot(n *node, i int) []byte {
	return n.buf.Bytes()[f.base+(i%window)*slotSize:][:slotSize]
}

// side is one node's completion handling: every completion of the node's
// CQ, from the QPs of all flows, goes through handle under mu, so that the
// order checked is the CQ's order.
type side struct {
	t     *testing.T
	abort context.CancelFunc // ends the test early on a failure
	n     *node
	mu    sync.Mutex
	send  map[uint32]*flow // by sending QP number
	recv  map[uint32]*flow // by receiving QP number
	left  int              // completions still expected
	done  chan struct{}
	wcs   []ibv.WC
	polls int
}

func (s *side) handle(wcs []ibv.WC) {
	for i := range wcs {
		wc := &wcs[i]
		if f := s.send[wc.QPNum]; f != nil {
			s.sendDone(f, wc)
		} else if f := s.recv[wc.QPNum]; f != nil {
			s.recvDone(f, wc)
		} else {
			s.t.Errorf("completion for unknown QP %d", wc.QPNum)
			s.abort()
			continue
		}
		if s.left--; s.left == 0 {
			close(s.done)
		}
	}
}

func (s *side) sendDone(f *flow, wc *ibv.WC) {
	if wc.Status != ibv.WCStatusSuccess {
		f.sendErrs++
		s.t.Errorf("flow %d: send %d: %s", f.idx, wc.WRID, ibv.WCStatusStr(wc.Status))
		s.abort()
	}
	if wc.WRID != uint64(f.sendNext) {
		f.outOfOrder++
	}
	_, write, _ := shape(f.idx, uint32(wc.WRID))
	if want := map[bool]ibv.WCOpcode{false: ibv.WCOpcodeSend, true: ibv.WCOpcodeRDMAWrite}[write]; wc.Status == ibv.WCStatusSuccess && wc.Opcode != want {
		s.t.Errorf("flow %d: send %d completed as opcode %d, want %d", f.idx, wc.WRID, wc.Opcode, want)
	}
	f.sendNext++
	s.release(f, f.sendCredits)
}

// release frees a slot of f for its poster; more releases than slots is
// more completions than work requests.
func (s *side) release(f *flow, credits chan struct{}) {
	select {
	case credits <- struct{}{}:
	default:
		f.dup++
		s.t.Errorf("flow %d: more completions than work requests posted", f.idx)
		s.abort()
	}
}

func (s *side) recvDone(f *flow, wc *ibv.WC) {
	if wc.Status != ibv.WCStatusSuccess {
		f.recvErrs++
		s.t.Errorf("flow %d: receive %d: %s", f.idx, wc.WRID, ibv.WCStatusStr(wc.Status))
		s.abort()
		return
	}
	if wc.WRID != uint64(f.recvNext) {
		f.outOfOrder++
	}
	f.recvNext++
	var msg []byte
	switch wc.Opcode {
	case ibv.WCOpcodeRecv:
		msg = f.slot(f.dst, int(wc.WRID))
	case ibv.WCOpcodeRecvRDMAWithImm:
		msg = f.slot(f.dst, int(*wc.ImmData()))
	default:
		s.t.Errorf("flow %d: receive completed as opcode %d", f.idx, wc.Opcode)
		f.corrupt++
		return
	}
	seq := binary.LittleEndian.Uint32(msg[4:])
	size, write, _ := shape(f.idx, seq)
	switch {
	case write != (wc.Opcode == ibv.WCOpcodeRecvRDMAWithImm),
		write && *wc.ImmData() != seq,
		!write && int(wc.ByteLen) != size,
		crc32.Checksum(msg[4:size], castagnoli) != binary.LittleEndian.Uint32(msg):
		f.corrupt++
	case seq == f.nextSeq:
		f.verified++
		f.bytes += int64(size)
		f.nextSeq++
	case seq < f.nextSeq:
		f.dup++
	default:
		f.lost += int(seq - f.nextSeq)
		f.verified++
		f.nextSeq = seq + 1
	}
	// Repost the receive into the slot just read, then let the sender
	// reuse it.
	if f.recvPosted < f.count {
		s.postRecv(f)
	}
	s.release(f, f.recvCredits)
}

func (s *side) postRecv(f *flow) {
	i := f.recvPosted
	sg, err := f.dst.mr.SGE(f.base+(i%window)*slotSize, slotSize)
	if err == nil {
		err = f.rq.PostRecv(rdma.RecvWork{ID: uint64(i), SGEs: []ibv.SGE{sg}})
	}
	if err != nil {
		s.t.Errorf("flow %d: post receive %d: %v", f.idx, i, err)
		s.abort()
		return
	}
	f.recvPosted++
}

// post sends the flow's messages, each when its slot is free on both
// sides: it waits for one free slot, takes every other one free at that
// moment, and posts them as one chain (one ibv_post_send, one doorbell).
func (f *flow) post(ctx context.Context, t *testing.T, abort context.CancelFunc) {
	rkey := f.dst.mr.RKey()
	raddr := f.dst.mr.Addr() + uint64(f.base)
	batch := make([]rdma.SendWork, 0, window)
	sges := make([]ibv.SGE, window)
	take := func(c chan struct{}, block bool) bool {
		if block {
			select {
			case <-c:
				return true
			case <-ctx.Done():
				return false
			}
		}
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	for i := 0; i < f.count; {
		batch = batch[:0]
		for len(batch) < window && i+len(batch) < f.count {
			block := len(batch) == 0
			if !take(f.sendCredits, block) {
				break
			}
			if !take(f.recvCredits, block) {
				f.sendCredits <- struct{}{} // not used after all
				break
			}
			n := i + len(batch)
			seq := uint32(n)
			size, write, off := shape(f.idx, seq)
			msg := f.slot(f.src, n)
			binary.LittleEndian.PutUint32(msg[4:], seq)
			copy(msg[hdrSize:size], pattern[off:])
			binary.LittleEndian.PutUint32(msg, crc32.Checksum(msg[4:size], castagnoli))
			sg, err := f.src.mr.SGE(f.base+(n%window)*slotSize, size)
			if err != nil {
				t.Error(err)
				abort()
				return
			}
			sges[n%window] = sg
			w := rdma.SendWork{ID: uint64(n), Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sges[n%window : n%window+1]}
			if write {
				w.Op, w.Imm = ibv.WROpcodeRDMAWriteWithImm, seq
				w.RemoteAddr, w.RKey = raddr+uint64((n%window)*slotSize), rkey
			}
			batch = append(batch, w)
		}
		if len(batch) == 0 {
			return // cancelled
		}
		if err := f.sq.PostSend(batch...); err != nil {
			t.Errorf("flow %d: post %d..%d: %v", f.idx, i, i+len(batch)-1, err)
			abort()
			return
		}
		i += len(batch)
		f.posted += len(batch)
		f.batches++
	}
}

// TestLoad carries messages (GOVERBS_LOAD_MESSAGES, default ciMessages)
// between the two nodes on nFlows RC QP pairs — sends and RDMA writes with
// immediate, 8 B to 8 KiB — each with its sequence number and a CRC-32C of
// sequence number and payload. Each node's QPs share one CQ and one
// completion channel; one poster goroutine per flow; node A's completions
// are taken by one goroutine in CQ.Await, node B's by two goroutines in
// CompChannel.Wait. It requires every message verified exactly once, in
// order: none lost, corrupted or duplicated, every completion successful
// and in order per QP.
func TestLoad(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	total := loadMessages(t)
	bufSize := nFlows * window * slotSize
	cqSize := nFlows * window * 2
	a, b := newNode(t, na.Dev, bufSize, cqSize), newNode(t, nb.Dev, bufSize, cqSize)
	// The overall limit only turns a hang into a failure (several times
	// what the load takes on a busy TCG guest, and within go test's default
	// 10 minutes for the CI count); it is not a performance assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute+time.Duration(total)*2*time.Millisecond)
	defer cancel()
	sides := map[*node]*side{}
	for _, n := range []*node{a, b} {
		sides[n] = &side{t: t, abort: cancel, n: n, send: map[uint32]*flow{}, recv: map[uint32]*flow{}, done: make(chan struct{}), wcs: make([]ibv.WC, 32)}
	}
	var flows []*flow
	for i := range nFlows {
		f := &flow{idx: i, count: total / nFlows, src: a, dst: b, base: i * window * slotSize,
			sendCredits: make(chan struct{}, window), recvCredits: make(chan struct{}, window)}
		if i < total%nFlows {
			f.count++
		}
		if i%2 == 1 {
			f.src, f.dst = b, a
		}
		f.sq, f.rq = f.src.qp(t, window), f.dst.qp(t, window)
		if f.src == a {
			connect(t, env, rdma.Path{}, f.sq, f.rq)
		} else {
			connect(t, env, rdma.Path{}, f.rq, f.sq)
		}
		for range window {
			f.sendCredits <- struct{}{}
		}
		sides[f.src].send[f.sq.Num()] = f
		sides[f.src].left += f.count
		sides[f.dst].recv[f.rq.Num()] = f
		sides[f.dst].left += f.count
		for f.recvPosted < min(window, f.count) {
			sides[f.dst].postRecv(f)
			f.recvCredits <- struct{}{}
		}
		flows = append(flows, f)
	}
	for _, s := range sides {
		if s.left == 0 {
			close(s.done)
		}
	}

	wctx, stopWaiters := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start := time.Now()
	waitErr := func(who string, err error) {
		if err != nil && wctx.Err() == nil {
			cancel()
			t.Errorf("%s: %v", who, err)
		}
	}
	// Node A: one goroutine in CQ.Await.
	sa := sides[a]
	wg.Add(1)
	go func() {
		defer wg.Done()
		wcs := make([]ibv.WC, 32)
		for {
			n, err := a.cq.Await(wctx, wcs)
			if err != nil {
				waitErr("node A: CQ.Await", err)
				return
			}
			sa.mu.Lock()
			sa.polls++
			sa.handle(wcs[:n])
			sa.mu.Unlock()
		}
	}()
	// Node B: two goroutines in CompChannel.Wait, polling under the lock.
	sb := sides[b]
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				sb.mu.Lock()
				n, err := b.cq.Poll(sb.wcs)
				if err == nil && n > 0 {
					sb.polls++
					sb.handle(sb.wcs[:n])
				}
				sb.mu.Unlock()
				if err != nil {
					waitErr("node B: CQ.Poll", err)
					return
				}
				if n > 0 {
					continue
				}
				cq, err := b.cc.Wait(wctx)
				if err != nil {
					waitErr("node B: CompChannel.Wait", err)
					return
				}
				if cq != b.cq {
					t.Errorf("node B: CompChannel.Wait returned CQ %p, want %p", cq, b.cq)
					cancel()
				}
			}
		}()
	}
	for _, f := range flows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.post(wctx, t, cancel)
		}()
	}
	for _, s := range sides {
		select {
		case <-s.done:
		case <-ctx.Done():
			t.Errorf("%v: completions still expected: A %d, B %d", ctx.Err(), sa.left, sb.left)
		}
	}
	elapsed := time.Since(start)
	stopWaiters()
	wg.Wait()

	var sum flow
	for _, f := range flows {
		sum.count += f.count
		sum.posted += f.posted
		sum.batches += f.batches
		sum.sendNext += f.sendNext
		sum.verified += f.verified
		sum.bytes += f.bytes
		for _, p := range []struct{ dst, src *int }{{&sum.lost, &f.lost}, {&sum.dup, &f.dup}, {&sum.corrupt, &f.corrupt},
			{&sum.sendErrs, &f.sendErrs}, {&sum.recvErrs, &f.recvErrs}, {&sum.outOfOrder, &f.outOfOrder}} {
			*p.dst += *p.src
		}
		lost := f.count - f.verified + f.lost // never seen at all, or skipped
		assert.Equal(t, f.count, f.posted, "flow %d: posted", f.idx)
		assert.Equal(t, f.count, f.sendNext, "flow %d: send completions", f.idx)
		assert.Equal(t, f.count, f.verified, "flow %d: verified", f.idx)
		assert.Zero(t, lost, "flow %d: lost", f.idx)
		assert.Zero(t, f.dup, "flow %d: duplicated", f.idx)
		assert.Zero(t, f.corrupt, "flow %d: corrupted", f.idx)
		assert.Zero(t, f.outOfOrder, "flow %d: completions out of order", f.idx)
		assert.Zero(t, f.sendErrs+f.recvErrs, "flow %d: error completions", f.idx)
	}
	messages.Add(int64(sum.verified))
	t.Logf("load: %d messages (%d MiB) on %d QP pairs in %.1fs (%.0f msg/s): posted %d in %d batches, send completions %d, verified %d, lost %d, duplicated %d, corrupted %d, out of order %d, error completions %d; polls with completions A %d, B %d",
		sum.count, sum.bytes>>20, nFlows, elapsed.Seconds(), float64(sum.verified)/elapsed.Seconds(),
		sum.posted, sum.batches, sum.sendNext, sum.verified, sum.count-sum.verified+sum.lost, sum.dup, sum.corrupt, sum.outOfOrder,
		sum.sendErrs+sum.recvErrs, sa.polls, sb.polls)
}
