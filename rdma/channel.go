package rdma

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// CompChannel is a completion channel (struct ibv_comp_channel) whose fd is
// parked on Go's netpoller: waiting on it holds no OS thread.
type CompChannel struct {
	life
	blockState
	ch  *ibv.CompChannel
	dev *Device
	w   *fdWaiter

	mu  sync.Mutex
	cqs map[*ibv.CQ]*CQ // the CQs on this channel

	// out is C memory: the functions tryEvent's C step calls, and its
	// results (takeCQEvent); its address is the cq_context of the
	// package's CQs on the channel.
	out unsafe.Pointer
	// fdBlocking: the fd is in blocking mode, for WaitBlocking's waker
	// (see setFDBlocking); under the waiter's lock.
	fdBlocking bool
	// tryEvent's argument and results, under the waiter's lock: how many
	// completions to poll after the event (WaitPoll), the CQ and the
	// poll's count. The poll goes to wcs, C memory of the channel's
	// (grown to the largest count asked), and WaitPoll copies it to the
	// caller's array: holding the caller's slice here, in the heap, would
	// make every caller's array escape to the heap.
	nPoll  int
	wcs    []ibv.WC
	wcsMem unsafe.Pointer
	got    *CQ
	polled int
	// tryFn is tryEvent bound once (a method value made per Wait would
	// allocate).
	tryFn    func() error
	getEvent unsafe.Pointer // ibv_get_cq_event
}

// NewCompChannel creates a completion channel (ibv_create_comp_channel).
func (d *Device) NewCompChannel() (*CompChannel, error) {
	if err := d.use("rdma.Device.NewCompChannel"); err != nil {
		return nil, err
	}
	defer d.done()
	// ibv_get_cq_event, called by tryEvent through its own trampoline
	// (gv_get_cq_event) to read errno.
	getEvent, err := ibv.GetCQEventAddr()
	if err != nil {
		return nil, opErr("rdma.Device.NewCompChannel", err)
	}
	out, err := newCQEventOut(getEvent, d.ctx)
	if err != nil {
		return nil, opErr("rdma.Device.NewCompChannel", err)
	}
	ch, err := d.ctx.CreateCompChannel()
	if err != nil {
		cFree(out)
		return nil, err
	}
	w, err := newFDWaiter(ch.FD, "completion channel")
	if err != nil {
		ch.Destroy()
		cFree(out)
		return nil, err
	}
	d.adopt("CompChannel")
	c := &CompChannel{ch: ch, dev: d, w: w, cqs: map[*ibv.CQ]*CQ{}, getEvent: getEvent, out: out}
	c.kind = "CompChannel"
	c.tryFn = c.tryEvent
	return c, nil
}

// Raw is the generated handle, valid until Close.
func (c *CompChannel) Raw() *ibv.CompChannel { return c.ch }

// Wait waits for the next completion event of any CQ on the channel
// (ibv_get_cq_event), re-arms that CQ (ibv_req_notify_cq, one-shot),
// acknowledges the event (ibv_ack_cq_events) and returns the CQ. The caller
// must then drain the CQ with Poll before waiting again: one event stands
// for any number of completions. WaitPoll does the first Poll in the same
// step. Context cancellation returns an error wrapping ctx.Err()
// (errors.Is(err, context.Canceled)); Close of the channel returns
// ErrClosed. With a context that cannot be cancelled it allocates nothing.
func (c *CompChannel) Wait(ctx context.Context) (*CQ, error) {
	cq, _, err := c.wait(ctx, "rdma.CompChannel.Wait", nil)
	return cq, err
}

// WaitPoll is Wait and then Poll of the event's CQ into wcs: the event is
// taken, its CQ re-armed and polled, and the event acknowledged in one cgo
// call (a crossing of Go's into C, where Wait and Poll make four). It
// returns the CQ and the number of completions in wcs[:n]; as after Poll,
// when n == len(wcs) more may be waiting. Errors are Wait's, and Poll's:
// when the poll fails, the CQ is returned with the error. With an empty
// wcs it is Wait.
func (c *CompChannel) WaitPoll(ctx context.Context, wcs []ibv.WC) (*CQ, int, error) {
	return c.wait(ctx, "rdma.CompChannel.WaitPoll", wcs)
}

func (c *CompChannel) wait(ctx context.Context, op string, wcs []ibv.WC) (*CQ, int, error) {
	if c == nil {
		return nil, 0, nilErr(op)
	}
	if err := c.w.lock(ctx); err != nil {
		return nil, 0, named(op, err)
	}
	defer c.w.unlock()
	if err := c.setFDBlocking(op, false); err != nil {
		return nil, 0, err
	}
	if len(wcs) > len(c.wcs) {
		if c.wcsMem != nil {
			cFree(c.wcsMem)
		}
		c.wcsMem = cAlloc(uintptr(len(wcs)) * unsafe.Sizeof(ibv.WC{}))
		c.wcs = unsafe.Slice((*ibv.WC)(c.wcsMem), len(wcs))
	}
	c.nPoll = len(wcs)
	err := c.w.waitLocked(ctx, c.tryFn)
	got, n := c.got, c.polled
	c.nPoll, c.got, c.polled = 0, nil, 0
	if got == nil {
		n = 0
	}
	copy(wcs, c.wcs[:n])
	return got, n, named(op, err)
}

// tryEvent is Wait's step once the fd may be readable (under the waiter's
// lock): take one event, re-arm its CQ, poll it into c.wcs[:c.nPoll] and
// acknowledge the event, all in one C call (takeCQEvent), and leave the
// CQ in c.got and the poll's count in c.polled. The C side works in C
// memory (c.out), so nothing escapes.
//
// ibv_get_cq_event's page promises only -1 on failure. On the non-blocking
// fd an empty channel is read(2)'s EAGAIN, which the function leaves in
// errno (doccheck's "no-event" probe holds it on rdma-core 44 and 65):
// that is "nothing yet", and the goroutine parks; any other failure is the
// function's error. One system call per try, where a poll(2) first would
// take two.
func (c *CompChannel) tryEvent() error {
	if err := c.tryUse("rdma.CompChannel.Wait"); err != nil {
		return err
	}
	defer c.done()
	for {
		step, errno, rawCQ, polled := takeCQEvent(c.out, c.ch, c.wcs[:c.nPoll])
		raw := (*ibv.CQ)(rawCQ)
		switch step {
		case takeGetEvent:
			if syscall.Errno(errno) == syscall.EAGAIN {
				return errAgain
			}
			return cerr.ZeroOrMinusOne("ibv_get_cq_event", -1)
		case takeOther:
			// A late wake of WaitBlocking's waker is dropped, and the
			// next event read at once: the netpoller reports an fd only
			// when it becomes readable, and it may be readable still.
			if c.dropWakerEvent(raw) {
				continue
			}
			return opErr("rdma.CompChannel.Wait", errForeignEvent)
		}
		if step == takeNotify {
			// The re-arm of a CQ whose Close has begun fails (its kernel
			// object goes before ibv_destroy_cq waits for the ack): the
			// wait then fails with ErrClosed, as when Go re-armed the CQ
			// under its use.
			cq, _ := c.eventCQ("rdma.CompChannel.Wait", raw)
			if cq == nil || cq.tryUse("rdma.CompChannel.Wait") != nil {
				return opErr("rdma.CompChannel.Wait", ErrClosed)
			}
			cq.done()
			return cerr.ZeroOrErrno("ibv_req_notify_cq", errno)
		}
		cq, err := c.eventCQ("rdma.CompChannel.Wait", raw)
		if err != nil {
			return err
		}
		// With a failed poll too: the caller learns which CQ to drain.
		c.got = cq
		if polled < 0 {
			return cerr.CountOrNegative("ibv_poll_cq", int64(polled))
		}
		c.polled = polled
		return nil
	}
}

// eventCQ is the package's CQ for an event's raw CQ.
func (c *CompChannel) eventCQ(op string, raw *ibv.CQ) (*CQ, error) {
	c.mu.Lock()
	cq := c.cqs[raw]
	c.mu.Unlock()
	if cq == nil {
		return nil, opErr(op, errForeignEvent)
	}
	return cq, nil
}

// cqContext is the cq_context of the package's CQs on the channel (nil
// for none): an address of the channel's own C memory, by which
// WaitBlockingPoll's C side tells them from CQs made through the
// generated layer, which it must not poll.
func (c *CompChannel) cqContext() unsafe.Pointer {
	if c == nil {
		return nil
	}
	return unsafe.Pointer(c.out)
}

// Close destroys the channel (ibv_destroy_comp_channel) once no CQ uses it
// (else a *BusyError), after WaitBlocking's waker, if it made one.
// Goroutines waiting on it (Wait, WaitBlocking) return ErrClosed.
func (c *CompChannel) Close() error {
	if c == nil {
		return nilErr("rdma.CompChannel.Close")
	}
	return c.close(func() error {
		if err := c.w.close(); err != nil {
			return opErr("rdma.CompChannel.Close", err)
		}
		// Wake a WaitBlocking and take the waiter lock: once it is ours,
		// no wait is in C, and none enters it.
		resume := c.stopBlocked()
		c.w.sem <- struct{}{}
		defer c.w.unlock()
		if err := c.destroyWaker(); err != nil {
			resume()
			return err
		}
		if err := c.ch.Destroy(); err != nil {
			resume()
			return err
		}
		c.freeBlocker()
		cFree(unsafe.Pointer(c.out))
		if c.wcsMem != nil {
			cFree(c.wcsMem)
			c.wcs, c.wcsMem = nil, nil
		}
		c.dev.disown("CompChannel")
		return nil
	})
}

// errForeignEvent: the channel delivered an event for a CQ that is not
// one of this package's CQs on it (one made through the generated layer).
var errForeignEvent = errors.New("event for a CQ this package did not create")
