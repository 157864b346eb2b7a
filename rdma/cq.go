package rdma

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// CQ is a completion queue (struct ibv_cq).
type CQ struct {
	life
	cq  *ibv.CQ
	ex  *ibv.CQEx // for CQs from NewCQEx
	dev *Device
	ch  *CompChannel
	// poll is the provider's poll_cq, read once: the hot path does not
	// chase context->ops on every call. poll and addr (the struct ibv_cq)
	// are C addresses, kept as the trampolines take them (fastpath.go).
	poll, addr uintptr
	// rxe reads the completion ring of an rxe CQ in Go (rxering.go); nil
	// for other providers. ring is rxe while polls use it (SetDirect).
	rxe  *rxeRing
	ring atomic.Pointer[rxeRing]
	// wcs is the CQ's own completion array for PollBatch, in C memory
	// (made on first use, freed by Close).
	wcs     []ibv.WC
	wcsOnce sync.Once
	wcsMade atomic.Bool // wcs is made (PollBatch's fast check)
	wcsMu   sync.Mutex
	wcsMem  unsafe.Pointer
}

// NewCQ creates a CQ of at least n entries (ibv_create_cq). With a channel
// ch (may be nil) the CQ is armed at once (ibv_req_notify_cq), ready for
// Wait/Await.
func (d *Device) NewCQ(n int, ch *CompChannel) (*CQ, error) {
	return d.newCQ("rdma.Device.NewCQ", n, ch, func(rawch *ibv.CompChannel) (*ibv.CQ, *ibv.CQEx, error) {
		raw, err := d.ctx.CreateCQ(n, ch.cqContext(), rawch, 0)
		return raw, nil, err
	})
}

// newCQ checks the arguments, creates the CQ with create and wraps it.
func (d *Device) newCQ(op string, n int, ch *CompChannel, create func(*ibv.CompChannel) (*ibv.CQ, *ibv.CQEx, error)) (*CQ, error) {
	if err := d.use(op); err != nil {
		return nil, err
	}
	defer d.done()
	var rawch *ibv.CompChannel
	if ch != nil {
		if ch.dev != d {
			return nil, invalid(op, "completion channel belongs to device %s, not %s", ch.dev.name, d.name)
		}
		if err := ch.use(op); err != nil {
			return nil, err
		}
		defer ch.done()
		rawch = ch.ch
	}
	if n <= 0 || n > int(^uint32(0)>>1) {
		return nil, invalid(op, "CQ size %d: must be positive and fit a C int", n)
	}
	raw, ex, err := create(rawch)
	if err != nil {
		return nil, err
	}
	cq := &CQ{cq: raw, ex: ex, dev: d, ch: ch, poll: uintptr(raw.Context.Ops.PollCQ), addr: uintptr(unsafe.Pointer(raw))}
	cq.kind = "CQ"
	if cq.poll == 0 {
		raw.Destroy()
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_poll_cq", Op: "context->ops.poll_cq"})
	}
	cq.rxe = rxeRingOf(raw, cq.poll)
	cq.ring.Store(cq.rxe)
	if ch != nil {
		if err := raw.ReqNotify(false); err != nil {
			raw.Destroy()
			return nil, err
		}
		ch.mu.Lock()
		ch.cqs[raw] = cq
		ch.mu.Unlock()
		ch.adopt("CQ")
	}
	d.adopt("CQ")
	return cq, nil
}

// Raw is the generated handle, valid until Close.
func (cq *CQ) Raw() *ibv.CQ { return cq.cq }

// Len is the CQ's actual number of entries (at least what was asked).
func (cq *CQ) Len() int { return int(cq.cq.CQE) }

// Poll moves up to len(wcs) completions into wcs with one call of the
// provider's poll_cq (ibv_poll_cq), or on rxe by reading the CQ's ring in
// Go (see SetDirect), and returns how many; 0 means the CQ was empty. It
// does not allocate.
//
// wcs may be any memory: a slice of its own, an array field of a struct,
// a Buffer's. ibv.WC holds no pointers, so cgo need not check wcs at each
// call, and does not (see fastpath.go).
func (cq *CQ) Poll(wcs []ibv.WC) (int, error) {
	// Small enough to be inlined: the caller calls pollRing itself.
	done, err := cq.pollRing("rdma.CQ.Poll", wcs, 0)
	return len(done), err
}

// pollProvider is one poll through the provider (a CQ that is not Direct),
// or the refusal of one, as pollRing: into wcs or, for batch > 0, into the
// CQ's own array (PollBatch, once it is made), and what it took.
func (cq *CQ) pollProvider(op string, wcs []ibv.WC, batch int) ([]ibv.WC, error) {
	if err := cq.use(op); err != nil {
		return nil, err
	}
	defer cq.done()
	if batch > 0 {
		cq.wcsMu.Lock()
		defer cq.wcsMu.Unlock()
		// Sliced while the CQ is held: Close drops the array.
		wcs = cq.wcs[:min(batch, pollBatchCap)]
	}
	if len(wcs) == 0 {
		return nil, nil
	}
	n, err := cq.pollC(wcs)
	if err != nil {
		return nil, err
	}
	return wcs[:n:n], nil
}

// direct is the ring polls read, nil unless the CQ is Direct.
func (cq *CQ) direct() *rxeRing {
	if cq == nil {
		return nil
	}
	return cq.ring.Load()
}

// pollC is one poll into wcs (not empty) through the provider's poll_cq,
// one cgo crossing.
func (cq *CQ) pollC(wcs []ibv.WC) (int, error) {
	n := cPoll(cq.poll, cq.addr, wcs)
	if n < 0 {
		return 0, cerr.CountOrNegative("ibv_poll_cq", int64(n))
	}
	return n, nil
}

// Direct reports whether polls of this CQ read its completion ring in Go
// instead of calling the provider's poll_cq through cgo. Only rxe CQs can
// (see SetDirect), on x86-64 with glibc, and they do unless
// SetDirect(false).
func (cq *CQ) Direct() bool { return cq.direct() != nil }

// SetDirect chooses how Poll, PollOne, PollBatch and PollSpin reach the
// completions, and returns Direct. On rxe (soft-RoCE), whose poll_cq only
// copies completions out of a ring that the kernel shares with the
// process, they read that ring in Go, under the lock librxe's poll_cq
// takes, so that no cgo crossing is paid per poll; they still interleave
// safely with ibv_poll_cq or ibv_start_poll on Raw from C. With
// SetDirect(false), or on any other provider, each poll is one call of the
// provider's poll_cq. Safe to call at any time, also during polls.
func (cq *CQ) SetDirect(on bool) bool {
	if cq == nil {
		return false
	}
	if on {
		cq.ring.Store(cq.rxe)
	} else {
		cq.ring.Store(nil)
	}
	return cq.Direct()
}

// PollSpin is Poll that keeps polling, up to spins times, until at least
// one completion arrives: inside C, one cgo crossing for a whole
// busy-wait, or in Go for a Direct CQ. It returns 0 when spins polls found
// nothing.
func (cq *CQ) PollSpin(wcs []ibv.WC, spins int) (int, error) {
	spins = max(spins, 1)
	if cq.direct() != nil && len(wcs) > 0 {
		for {
			done, err := cq.pollRing("rdma.CQ.PollSpin", wcs, 0)
			if spins--; len(done) != 0 || err != nil || spins == 0 {
				return len(done), err
			}
		}
	}
	if err := cq.use("rdma.CQ.PollSpin"); err != nil {
		return 0, err
	}
	defer cq.done()
	if len(wcs) == 0 {
		return 0, nil
	}
	n := cPollSpin(cq.poll, cq.addr, wcs, int64(spins))
	if n < 0 {
		return 0, cerr.CountOrNegative("ibv_poll_cq", int64(n))
	}
	return n, nil
}

// PollBatch polls up to max completions into the CQ's own completion
// array, which lives in C memory, and returns them: one provider call (or
// one read of a Direct CQ's ring), no allocation. The slice is valid until
// the next PollBatch on this CQ or Close; copy what must outlive it. Calls
// are serialised per CQ. max is capped at 1024.
func (cq *CQ) PollBatch(max int) ([]ibv.WC, error) {
	if cq != nil && max > 0 && !cq.wcsMade.Load() {
		if err := cq.makeWCs("rdma.CQ.PollBatch"); err != nil {
			return nil, err
		}
	}
	// max <= 0: pollRing only checks the CQ (pollProvider, with no array).
	return cq.pollRing("rdma.CQ.PollBatch", nil, max)
}

const pollBatchCap = 1024

// allocWCs makes the array PollBatch polls into.
func (cq *CQ) allocWCs() {
	cq.wcsMem = cAlloc(pollBatchCap * unsafe.Sizeof(ibv.WC{}))
	cq.wcs = unsafe.Slice((*ibv.WC)(cq.wcsMem), pollBatchCap)
	cq.wcsMade.Store(true)
}

// makeWCs makes the array PollBatch polls into, unless it is made or the
// CQ closed: before the poll, and outside pollRing, which holds the CQ
// without a defer, so that a panic here (out of C memory) cannot leave it
// held.
func (cq *CQ) makeWCs(op string) error {
	if err := cq.use(op); err != nil {
		return err
	}
	defer cq.done()
	cq.wcsOnce.Do(cq.allocWCs)
	return nil
}

// PollOne returns the next completion, or ErrNoCompletion when there is
// none (rpma_cq_get_wc's semantics).
func (cq *CQ) PollOne() (ibv.WC, error) {
	var wc [1]ibv.WC
	n, err := cq.Poll(wc[:])
	if err != nil {
		return ibv.WC{}, err
	}
	if n == 0 {
		return ibv.WC{}, opErr("rdma.CQ.PollOne", ErrNoCompletion)
	}
	return wc[0], nil
}

// Wait waits for the CQ's next completion event on its channel, acks it and
// re-arms the CQ (rpma_cq_wait's semantics, parked on the netpoller). The
// caller must drain the CQ with Poll before the next Wait: completions
// that arrived before the re-arm raise no new event. Errors: ErrNoChannel
// (created without a channel), ErrSharedChannel (the channel serves other
// CQs too: use CompChannel.Wait), ctx.Err(), ErrClosed, or the failing C
// function's error.
func (cq *CQ) Wait(ctx context.Context) error {
	return cq.waitOwn(ctx, "rdma.CQ.Wait", false)
}

// WaitBlocking is Wait held in C on the calling goroutine's thread (see
// CompChannel.WaitBlocking, which it calls, for when to prefer it), with
// Wait's errors.
func (cq *CQ) WaitBlocking(ctx context.Context) error {
	return cq.waitOwn(ctx, "rdma.CQ.WaitBlocking", true)
}

// waitOwn is Wait (blocking: WaitBlocking) for a CQ alone on its channel.
func (cq *CQ) waitOwn(ctx context.Context, op string, blocking bool) error {
	if cq == nil {
		return nilErr(op)
	}
	if cq.ch == nil {
		return opErr(op, ErrNoChannel)
	}
	if cq.isClosed() {
		return opErr(op, ErrClosed)
	}
	if n := cq.ch.count("CQ"); n > 1 {
		return opErr(op, ErrSharedChannel)
	}
	var got *CQ
	var err error
	if blocking {
		got, err = cq.ch.WaitBlocking(ctx)
	} else {
		got, err = cq.ch.Wait(ctx)
	}
	if err != nil {
		return err
	}
	if got != cq {
		// Another CQ joined the channel while we waited.
		return opErr(op, ErrSharedChannel)
	}
	return nil
}

// Await returns the next completions: it polls, and while the CQ is empty
// waits (Wait, on the netpoller) and polls again. At least one completion
// is in wcs[:n] when err is nil. With a context that cannot be cancelled
// it allocates nothing, parked or not.
func (cq *CQ) Await(ctx context.Context, wcs []ibv.WC) (int, error) {
	for {
		n, err := cq.Poll(wcs)
		if n > 0 || err != nil {
			return n, err
		}
		if err := cq.Wait(ctx); err != nil {
			return 0, err
		}
	}
}

// rearm requests the next completion event (ibv_req_notify_cq), unless
// the CQ is being closed.
func (cq *CQ) rearm() error {
	if err := cq.tryUse("rdma.CQ.Wait"); err != nil {
		return err
	}
	defer cq.done()
	return cq.cq.ReqNotify(false)
}

// Close destroys the CQ (ibv_destroy_cq) once no QP uses it (else a
// *BusyError). Every completion event has been acknowledged by Wait, so the
// destroy never waits on an unacknowledged event.
func (cq *CQ) Close() error {
	if cq == nil {
		return nilErr("rdma.CQ.Close")
	}
	return cq.close(func() error {
		if err := cq.cq.Destroy(); err != nil {
			return err
		}
		if cq.wcsMem != nil {
			cq.wcs = nil
			cFree(cq.wcsMem)
		}
		if cq.ch != nil {
			cq.ch.mu.Lock()
			delete(cq.ch.cqs, cq.cq)
			cq.ch.mu.Unlock()
			cq.ch.disown("CQ")
		}
		cq.dev.disown("CQ")
		return nil
	})
}
