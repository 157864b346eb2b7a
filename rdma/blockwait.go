//go:build linux && cgo

package rdma

/*
#cgo noescape gv_block_wait
#cgo nocallback gv_block_wait
#include <errno.h>
#include <poll.h>
#include <stdint.h>

// A struct ibv_wc, as far as the C wait is concerned: it only passes its
// address on. Without pointers, so that cgo need not check a Go pointer
// to one.
struct gv_wc { unsigned char opaque; };

// The provider's poll_cq (ibv_context.ops.poll_cq), as ibv_poll_cq calls it.
typedef int (*gv_poll_fn)(void *cq, int n, struct gv_wc *wc);

// What CompChannel.WaitBlocking hands its C wait (C memory, one per
// channel): the functions, the channel, the fds, the event taken, what
// polling its CQ returned, and which call failed.
struct gv_block_wait {
	void *get_event; // ibv_get_cq_event
	void *ack;       // ibv_ack_cq_events
	void *notify;    // the device's context->ops.req_notify_cq
	void *poll;      // the device's context->ops.poll_cq
	void *ours;      // the cq_context of the package's CQs on this channel
	void *channel;   // struct ibv_comp_channel *
	int fd;          // the channel's fd
	int cancel_fd;   // an eventfd: readable means stop waiting
	void *cq;        // the event's CQ and its context
	void *cq_context;
	void *waker;     // the cq_context of the channel's waker CQ (see waker.go), or NULL
	uint64_t waker_wc[8]; // room for one struct ibv_wc of the waker CQ
	int polled;      // what poll_cq returned (0 when not called)
	int step;        // after a failure: GV_BW_STEP_*
	int err;         // errno (poll) or the result (notify)
};

enum {
	GV_BW_STEP_POLL = 1,      // poll(2) failed, or reported the channel's fd broken (EBADF)
	GV_BW_STEP_GET_EVENT = 2, // ibv_get_cq_event returned -1 with the fd readable
	GV_BW_STEP_NOTIFY = 3,    // req_notify_cq returned err (the event is acknowledged)
};
#define GV_BW_CANCELLED 1

typedef int (*gv_bw_get_event_fn)(void *channel, void **cq, void **cq_context);
typedef void (*gv_bw_ack_fn)(void *cq, unsigned int n);
typedef int (*gv_bw_notify_fn)(void *cq, int solicited_only);

// Waits for the channel's next event, takes it (ibv_get_cq_event),
// re-arms its CQ, polls it once into wc (up to n completions, when n > 0
// and the CQ is one of the package's) and acknowledges the event. The
// re-arm and the poll come first: until the acknowledgement
// ibv_destroy_cq waits, so the CQ outlives them even when its Close has
// begun. With a waker (a->waker) the channel's fd is blocking and the wait
// is ibv_get_cq_event's own read(2), as a C program waits; an event of the
// waker's CQ means "stop waiting": it is acknowledged, its CQ drained, and
// GV_BW_CANCELLED returned. Without one, or should the fd be found
// non-blocking, it blocks in poll(2) on the fd and the cancel fd first.
// Returns 0 with the event's CQ in a->cq and the poll's result in
// a->polled, GV_BW_CANCELLED when woken, or -1 with a->step and a->err.
// args is the struct gv_block_wait, in C memory, as an integer, and wc a
// pointer-free type: cgo checks no argument (as ibv's fast-path
// trampolines, ibv/zfast.go).
static int gv_block_wait(uintptr_t args, int n, struct gv_wc *wc) {
	struct gv_block_wait *a = (struct gv_block_wait *)args;
	struct pollfd p[2] = {{.fd = a->fd, .events = POLLIN}, {.fd = a->cancel_fd, .events = POLLIN}};
	int use_poll = a->waker == NULL;
	for (;;) {
		if (!use_poll)
			goto take;
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			a->step = GV_BW_STEP_POLL;
			a->err = errno;
			return -1;
		}
		if (p[1].revents)
			return GV_BW_CANCELLED;
		if (!(p[0].revents & POLLIN)) {
			if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				a->step = GV_BW_STEP_POLL;
				a->err = EBADF;
				return -1;
			}
			continue;
		}
	take:
		errno = 0;
		if (((gv_bw_get_event_fn)a->get_event)(a->channel, &a->cq, &a->cq_context)) {
			// A non-blocking fd (it is on Go's netpoller too) had
			// nothing, or the event went to another reader since
			// poll(2): wait in poll(2).
			if (errno == EAGAIN) {
				use_poll = 1;
				continue;
			}
			if (errno == EINTR)
				continue;
			a->step = GV_BW_STEP_GET_EVENT; // reported as its page promises: -1, no errno
			return -1;
		}
		if (a->waker && a->cq_context == a->waker) {
			((gv_bw_ack_fn)a->ack)(a->cq, 1);
			while (((gv_poll_fn)a->poll)(a->cq, 1, (struct gv_wc *)a->waker_wc) > 0)
				;
			return GV_BW_CANCELLED;
		}
		int r = ((gv_bw_notify_fn)a->notify)(a->cq, 0);
		a->polled = 0;
		if (!r && n > 0 && a->cq_context == a->ours)
			a->polled = ((gv_poll_fn)a->poll)(a->cq, n, wc);
		((gv_bw_ack_fn)a->ack)(a->cq, 1);
		if (r) {
			a->step = GV_BW_STEP_NOTIFY;
			a->err = r;
			return -1;
		}
		return 0;
	}
}
*/
import "C"

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// WaitBlocking is Wait done in C, on the calling goroutine's OS thread:
// one cgo call blocks in ibv_get_cq_event until an event comes, re-arms
// the event's CQ (ibv_req_notify_cq) and acknowledges the event
// (ibv_ack_cq_events), as a C program such as ib_send_lat -e waits. It
// returns the CQ the event is for; drain it with Poll before waiting
// again, as after Wait. WaitBlockingPoll does the first Poll in the same
// cgo call.
//
// The wait is ibv_get_cq_event's own read(2) on the channel's fd, which
// WaitBlocking makes blocking (and Wait non-blocking again). Only an event
// wakes such a read, so for cancellation and Close the channel gets a
// waker on its first WaitBlocking: a protection domain, a CQ on the
// channel and an RC QP of its own, on the channel's device, which raise
// an event on demand (see waker.go) and which Close destroys. Where they
// cannot be made, or the device does not flush the waker's receive,
// WaitBlocking blocks in poll(2) on the fd and an eventfd instead, and
// each wake costs a read(2) more.
//
// It trades Wait's freedom from OS threads for latency: the goroutine holds
// its thread for the whole wait, and neither the netpoller nor the
// scheduler takes part in it. A wait parked on the netpoller leaves the
// process idle, and Go's runtime then wakes its monitor thread (sysmon) at
// the next cgo call and has it tick every 20 µs for a while; a wait held in
// C keeps the process busy and the monitor asleep. Use it in a few
// latency-critical loops, each on a goroutine of its own; use Wait where
// many goroutines wait. At most one wait, of either kind, runs on a
// channel at a time; others queue.
//
// So that the runtime does not take a goroutine that loops on
// WaitBlocking for a long-running one (and take its processor away in the
// middle of a wait), WaitBlocking yields the processor (runtime.Gosched)
// once every few milliseconds before it blocks.
//
// Errors are Wait's: ctx.Err() (cancellation wakes the wait), ErrClosed
// (Close of the channel wakes it), or the failing C function's error. With
// a context that cannot be cancelled it allocates nothing.
func (c *CompChannel) WaitBlocking(ctx context.Context) (*CQ, error) {
	cq, _, err := c.waitBlocking(ctx, "rdma.CompChannel.WaitBlocking", nil)
	return cq, named("rdma.CompChannel.WaitBlocking", err)
}

// WaitBlockingPoll is WaitBlocking and then Poll of the event's CQ into
// wcs, in one cgo call: it returns the CQ and the number of completions
// in wcs[:n]. As after Poll, when n == len(wcs) more may be waiting: keep
// polling the CQ until it returns fewer, before the next wait.
//
// Each cgo crossing saved counts where waits are short: under qemu TCG a
// return to Go after a wake costs several microseconds (see
// docs/notes/2026-12-02-rxe-ring-path.md, "Where the rest of a round trip goes").
// The poll runs before the event is acknowledged, so a CQ that is being
// closed still exists for it.
//
// Errors are WaitBlocking's, and Poll's: when the poll fails, the CQ is
// returned with the error (its event is taken and its CQ re-armed, so the
// caller knows which CQ to drain). An event for a CQ this package did not
// create is an error and its CQ is not polled: nothing is taken from it.
// With an empty wcs it is WaitBlocking.
func (c *CompChannel) WaitBlockingPoll(ctx context.Context, wcs []ibv.WC) (*CQ, int, error) {
	cq, n, err := c.waitBlocking(ctx, "rdma.CompChannel.WaitBlockingPoll", wcs)
	return cq, n, named("rdma.CompChannel.WaitBlockingPoll", err)
}

// waitBlocking is WaitBlocking, polling the event's CQ into wcs when it
// is not empty (WaitBlockingPoll).
func (c *CompChannel) waitBlocking(ctx context.Context, op string, wcs []ibv.WC) (*CQ, int, error) {
	if c == nil {
		return nil, 0, nilErr(op)
	}
	if err := c.use(op); err != nil {
		return nil, 0, err
	}
	b, err := c.blockerFor(op)
	// The wait does not hold the channel: Close must be able to take it,
	// to refuse (CQs remain) or to wake this wait and then wait, through
	// the waiter lock, until it has left C (see Close).
	c.done()
	if err != nil {
		return nil, 0, err
	}
	if err := c.w.lock(ctx); err != nil {
		return nil, 0, err
	}
	defer c.w.unlock()
	if err := c.setFDBlocking(op, b.args.waker != nil); err != nil {
		return nil, 0, err
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, b.wake)
		defer stop()
	}
	var wc *C.struct_gv_wc
	if len(wcs) > 0 {
		wc = (*C.struct_gv_wc)(unsafe.Pointer(&wcs[0]))
	}
	for {
		// Once Close has begun, closing stays set (and b.args may be
		// freed): this is checked before every C call.
		if b.closing.Load() {
			return nil, 0, opErr(op, ErrClosed)
		}
		// Armed before the checks below: a wake after them raises the
		// waker's event, and one before them is seen by them. Should it
		// fail, the waker goes, and the wait is in poll(2) from then on.
		if b.args.waker != nil {
			if err := b.waker.arm(); err != nil {
				if err := c.destroyWaker(); err != nil {
					return nil, 0, opErr(op+": re-arm the waker", err)
				}
			}
		}
		if b.closing.Load() {
			return nil, 0, opErr(op, ErrClosed)
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		b.yieldIfDue()
		switch r := C.gv_block_wait(C.uintptr_t(uintptr(unsafe.Pointer(b.args))), C.int(len(wcs)), wc); r {
		case 0:
			cq, err := c.eventCQ(op, (*ibv.CQ)(b.args.cq))
			if err != nil {
				return nil, 0, err
			}
			n := int(b.args.polled)
			if n < 0 {
				return cq, 0, cerr.CountOrNegative("ibv_poll_cq", int64(n))
			}
			return cq, n, nil
		case C.GV_BW_CANCELLED:
			// Woken: by this context, by Close (checked above; the wake
			// stays for any later waiter), or late by the context of an
			// earlier call, which was already over: then wait again.
			if b.waker != nil {
				b.waker.taken(false)
			}
			b.drain()
			if b.closing.Load() {
				b.wake()
			}
		default:
			return nil, 0, b.failure(op)
		}
	}
}

// yieldEvery is how often WaitBlocking yields the processor: half the
// 10 ms after which Go's runtime preempts a goroutine that has not been
// rescheduled, and, when that goroutine is in a cgo call, takes its
// processor away (sysmon's retake, which also resets sysmon to its 20 µs
// tick). Not more often: each yield wakes an idle thread to look for work
// (runtime.wakep), a futex round trip.
const yieldEvery = 5 * time.Millisecond

// blockWaiter is a channel's state for WaitBlocking, made on first use and
// freed by Close: the C wait's arguments (C memory), the waker, and the
// eventfd that stops a wait in poll(2).
type blockWaiter struct {
	args      *C.struct_gv_block_wait
	waker     *waker // nil where none could be made (set once, before the blockWaiter is shared)
	efd       int
	closing   atomic.Bool // Close is waking the waiter: fail with ErrClosed
	buf       [8]byte     // drain's read buffer
	lastYield time.Time   // when yieldIfDue last yielded (under the waiter lock)
}

// blockState is the channel's WaitBlocking state, embedded in CompChannel.
type blockState struct {
	blkMu sync.Mutex
	blk   *blockWaiter
}

// blockerFor returns the channel's blockWaiter, making it on first use.
func (c *CompChannel) blockerFor(op string) (*blockWaiter, error) {
	c.blkMu.Lock()
	defer c.blkMu.Unlock()
	if c.blk != nil {
		if c.blk.args == nil {
			return nil, opErr(op, ErrClosed)
		}
		return c.blk, nil
	}
	ack, err := ibv.AckCQEventsAddr()
	if err != nil {
		return nil, opErr(op, err)
	}
	notify, poll := c.dev.ctx.Ops.ReqNotifyCQ, c.dev.ctx.Ops.PollCQ
	if notify == nil {
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_req_notify_cq", Op: "context->ops.req_notify_cq"})
	}
	if poll == nil {
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_poll_cq", Op: "context->ops.poll_cq"})
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, opErr(op+": eventfd", err)
	}
	a := (*C.struct_gv_block_wait)(cAlloc(C.sizeof_struct_gv_block_wait))
	a.get_event, a.ack, a.notify, a.poll, a.ours = c.getEvent, ack, notify, poll, c.cqContext()
	a.channel, a.fd, a.cancel_fd = unsafe.Pointer(c.ch), C.int(c.ch.FD), C.int(efd)
	b := &blockWaiter{args: a, efd: efd, lastYield: time.Now()}
	if k, err := newWaker(c.dev.ctx, c.ch); err == nil {
		b.waker, a.waker = k, k.mem
	}
	c.blk = b
	return b, nil
}

// yieldIfDue yields the processor when yieldEvery has passed since the
// last time it did (see yieldEvery).
func (b *blockWaiter) yieldIfDue() {
	if now := time.Now(); now.Sub(b.lastYield) >= yieldEvery {
		runtime.Gosched()
		b.lastYield = now
	}
}

var eventfdOne = [8]byte{1} // eventfd counter increment 1 (little-endian uint64)

// wake stops the C wait (it returns GV_BW_CANCELLED): through the waker
// when the wait blocks in read(2), through the eventfd when it blocks in
// poll(2).
func (b *blockWaiter) wake() {
	if b.waker != nil {
		b.waker.wake()
	}
	unix.Write(b.efd, eventfdOne[:])
}

// drain resets the eventfd (it is non-blocking: nothing to read is fine).
func (b *blockWaiter) drain() { unix.Read(b.efd, b.buf[:]) }

// failure is the error of the C call that failed in the C wait.
func (b *blockWaiter) failure(op string) error {
	a := b.args
	switch a.step {
	case C.GV_BW_STEP_POLL:
		return opErr(op+": poll", syscall.Errno(a.err))
	case C.GV_BW_STEP_GET_EVENT:
		// Its page promises -1 and no errno: the convention's error, as
		// Wait reports it.
		return cerr.ZeroOrMinusOne("ibv_get_cq_event", -1)
	case C.GV_BW_STEP_NOTIFY:
		return cerr.ZeroOrErrno("ibv_req_notify_cq", int32(a.err))
	}
	return opErr(op, syscall.EINVAL)
}

// stopBlocked wakes a goroutine blocked in WaitBlocking, and fails it and
// any later one with ErrClosed: Close calls it once it is committed to
// destroying the channel (no CQ uses it). resume reverts it after a failed
// destroy.
func (c *CompChannel) stopBlocked() (resume func()) {
	c.blkMu.Lock()
	b := c.blk
	c.blkMu.Unlock()
	if b == nil {
		return func() {}
	}
	b.closing.Store(true)
	b.wake()
	return func() {
		b.closing.Store(false)
		b.drain()
	}
}

// setFDBlocking makes the channel's fd blocking (WaitBlocking with a
// waker: the wait is ibv_get_cq_event's read) or non-blocking (Wait, whose
// read must return EAGAIN, and WaitBlocking without a waker). The caller
// holds the waiter lock; the fd changes only when the mode does.
func (c *CompChannel) setFDBlocking(op string, on bool) error {
	if c.fdBlocking == on {
		return nil
	}
	if err := unix.SetNonblock(int(c.ch.FD), !on); err != nil {
		return opErr(op+": fcntl", err)
	}
	c.fdBlocking = on
	return nil
}

// destroyWaker destroys the waker, if any, before the channel (its CQ is
// on the channel), and makes the fd non-blocking again. Close calls it
// holding the waiter lock. A WaitBlocking after it (a failed Close) waits
// in poll(2).
func (c *CompChannel) destroyWaker() error {
	c.blkMu.Lock()
	b := c.blk
	c.blkMu.Unlock()
	if b == nil || b.waker == nil || b.args == nil {
		return nil
	}
	if err := c.setFDBlocking("rdma.CompChannel.Close", false); err != nil {
		return err
	}
	if err := b.waker.destroy(); err != nil {
		return err
	}
	b.args.waker = nil
	return nil
}

// dropWakerEvent reports whether raw is the waker's CQ (an event the
// netpoller's Wait took for it is a late wake, dropped) and then drains it.
func (c *CompChannel) dropWakerEvent(raw *ibv.CQ) bool {
	c.blkMu.Lock()
	b := c.blk
	c.blkMu.Unlock()
	if b == nil || b.waker == nil || b.waker.cq != raw {
		return false
	}
	b.waker.taken(true)
	return true
}

// freeBlocker releases the blockWaiter's C side (Close, holding the waiter
// lock: no wait is in C). The Go side stays, closing set, for waits still
// queued on the lock.
func (c *CompChannel) freeBlocker() {
	c.blkMu.Lock()
	defer c.blkMu.Unlock()
	if b := c.blk; b != nil {
		unix.Close(b.efd)
		cFree(unsafe.Pointer(b.args))
		b.args = nil
		b.closing.Store(true)
	}
}
