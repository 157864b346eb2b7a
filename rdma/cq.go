package rdma

import (
	"context"
	"sync"
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
	// poll and notify are the provider's poll_cq and req_notify_cq, read
	// once: the data path does not chase context->ops on every call. They
	// and addr (the struct ibv_cq) are C addresses, as ibv's fast-path
	// trampolines take them (ibv.FastPollCQ, ibv.FastReqNotifyCQ).
	poll, notify, addr uintptr
	// exOps are an extended CQ's ops for PollEx (ibv.FastPollCQExOps),
	// read at NewCQEx; exOne: PollEx takes one completion per poll
	// (Device.singleExPoll).
	exOps ibv.PollCQExOps
	exOne bool
	// wcs is the CQ's own completion array for PollBatch, in C memory
	// (made on first use, freed by Close). PollBatch holds wcsMu, not the
	// CQ's life: Close takes it before it destroys the CQ and sets
	// batchClosed under it once it has.
	wcs         []ibv.WC
	wcsMu       sync.Mutex
	wcsMem      unsafe.Pointer
	batchClosed bool
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
	cq := &CQ{cq: raw, ex: ex, dev: d, ch: ch, poll: ibv.FastPollCQOp(raw), notify: ibv.FastReqNotifyCQOp(raw), addr: uintptr(unsafe.Pointer(raw))}
	cq.kind = "CQ"
	if cq.poll == 0 {
		raw.Destroy()
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_poll_cq", Op: "context->ops.poll_cq"})
	}
	if cq.notify == 0 && ch != nil {
		raw.Destroy()
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_req_notify_cq", Op: "context->ops.req_notify_cq"})
	}
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
// provider's poll_cq (ibv_poll_cq) and returns how many; 0 means the CQ
// was empty. It does not allocate.
//
// wcs may be any memory: a slice of its own, an array field of a struct,
// a Buffer's. ibv.WC holds no pointers, so cgo need not check wcs at each
// call, and does not (ibv.FastPollCQ).
func (cq *CQ) Poll(wcs []ibv.WC) (int, error) {
	done, err := cq.pollInto("rdma.CQ.Poll", wcs)
	return len(done), err
}

// pollInto is one poll through the provider into wcs, and returns what
// it took.
func (cq *CQ) pollInto(op string, wcs []ibv.WC) ([]ibv.WC, error) {
	if err := cq.use(op); err != nil {
		return nil, err
	}
	defer cq.done()
	return cq.pollC(wcs)
}

// pollC is the provider's poll_cq into wcs, on a CQ the caller keeps open.
func (cq *CQ) pollC(wcs []ibv.WC) ([]ibv.WC, error) {
	if len(wcs) == 0 {
		return nil, nil
	}
	n := ibv.FastPollCQ(cq.poll, cq.addr, int32(len(wcs)), &wcs[0])
	if n < 0 {
		return nil, cerr.CountOrNegative("ibv_poll_cq", int64(n))
	}
	return wcs[:n:n], nil
}

// PollSpin is Poll that keeps polling, up to spins times, until at least
// one completion arrives. It returns 0 when spins polls found nothing.
func (cq *CQ) PollSpin(wcs []ibv.WC, spins int) (int, error) {
	for spins = max(spins, 1); ; spins-- {
		done, err := cq.pollInto("rdma.CQ.PollSpin", wcs)
		if len(done) != 0 || err != nil || spins == 1 || len(wcs) == 0 {
			return len(done), err
		}
	}
}

// PollBatch polls up to max completions into the CQ's own completion
// array, which lives in C memory, and returns them: one provider call, no
// allocation. The slice is valid until the next PollBatch on this CQ or
// Close; copy what must outlive it. Calls are serialised per CQ. max is
// capped at 1024.
func (cq *CQ) PollBatch(max int) ([]ibv.WC, error) {
	const op = "rdma.CQ.PollBatch"
	if cq == nil {
		return nil, nilErr(op)
	}
	// The array's lock alone, which Close takes too before it destroys
	// the CQ and sets batchClosed (as QP.PostSend's queue lock).
	cq.wcsMu.Lock()
	defer cq.wcsMu.Unlock()
	if cq.batchClosed {
		return nil, opErr(op, ErrClosed)
	}
	if max <= 0 {
		return nil, nil
	}
	if cq.wcs == nil {
		cq.wcsMem = cAlloc(pollBatchCap * unsafe.Sizeof(ibv.WC{}))
		cq.wcs = unsafe.Slice((*ibv.WC)(cq.wcsMem), pollBatchCap)
	}
	return cq.pollC(cq.wcs[:min(max, pollBatchCap)])
}

const pollBatchCap = 1024

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
	return named("rdma.CQ.Wait", cq.waitOwn(ctx, "rdma.CQ.Wait", false))
}

// WaitBlocking is Wait held in C on the calling goroutine's thread (see
// CompChannel.WaitBlocking, which it calls, for when to prefer it), with
// Wait's errors.
func (cq *CQ) WaitBlocking(ctx context.Context) error {
	return named("rdma.CQ.WaitBlocking", cq.waitOwn(ctx, "rdma.CQ.WaitBlocking", true))
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

// rearm requests the next completion event (ibv_req_notify_cq, one call
// of the provider's op), unless the CQ is being closed.
func (cq *CQ) rearm() error {
	if err := cq.tryUse("rdma.CQ.Wait"); err != nil {
		return err
	}
	defer cq.done()
	if rc := ibv.FastReqNotifyCQ(cq.notify, cq.addr, 0); rc != 0 {
		return cerr.ZeroOrErrno("ibv_req_notify_cq", rc)
	}
	return nil
}

// Close destroys the CQ (ibv_destroy_cq) once no QP uses it (else a
// *BusyError). Every completion event has been acknowledged by Wait, so the
// destroy never waits on an unacknowledged event.
func (cq *CQ) Close() error {
	if cq == nil {
		return nilErr("rdma.CQ.Close")
	}
	return cq.close(func() error {
		cq.wcsMu.Lock()
		defer cq.wcsMu.Unlock()
		if err := cq.cq.Destroy(); err != nil {
			return err
		}
		cq.batchClosed = true
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
