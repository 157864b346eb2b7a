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

	out unsafe.Pointer // C memory: ibv_get_cq_event's out-parameters and errno (cqEvent)
	// fdBlocking: the fd is in blocking mode, for WaitBlocking's waker
	// (see setFDBlocking); under the waiter's lock.
	fdBlocking bool
	got        *CQ // tryEvent's result, read by Wait under the waiter's lock
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
	ch, err := d.ctx.CreateCompChannel()
	if err != nil {
		return nil, err
	}
	w, err := newFDWaiter(ch.FD, "completion channel")
	if err != nil {
		ch.Destroy()
		return nil, err
	}
	d.adopt("CompChannel")
	c := &CompChannel{ch: ch, dev: d, w: w, cqs: map[*ibv.CQ]*CQ{}, getEvent: getEvent, out: newCQEventOut()}
	c.kind = "CompChannel"
	c.tryFn = c.tryEvent
	return c, nil
}

// Raw is the generated handle, valid until Close.
func (c *CompChannel) Raw() *ibv.CompChannel { return c.ch }

// Wait waits for the next completion event of any CQ on the channel
// (ibv_get_cq_event), acknowledges it (ibv_ack_cq_events) and re-arms that
// CQ (ibv_req_notify_cq, one-shot), and returns the CQ. The caller must
// then drain the CQ with Poll before waiting again: one event stands for
// any number of completions. Context cancellation returns an error
// wrapping ctx.Err() (errors.Is(err, context.Canceled));
// Close of the channel returns ErrClosed. With a context that cannot be
// cancelled it allocates nothing.
func (c *CompChannel) Wait(ctx context.Context) (*CQ, error) {
	const op = "rdma.CompChannel.Wait"
	if c == nil {
		return nil, nilErr(op)
	}
	if err := c.w.lock(ctx); err != nil {
		return nil, named(op, err)
	}
	defer c.w.unlock()
	if err := c.setFDBlocking("rdma.CompChannel.Wait", false); err != nil {
		return nil, err
	}
	err := c.w.waitLocked(ctx, c.tryFn)
	got := c.got
	c.got = nil
	return got, named(op, err)
}

// tryEvent is Wait's step once the fd may be readable (under the waiter's
// lock): take one event, ack it, re-arm its CQ and leave it in c.got. The
// event's out-parameters live in C memory (c.out), so nothing escapes.
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
	var cq *CQ
	for cq == nil {
		rc, errno, rawCQ := getCQEvent(c.getEvent, c.ch, c.out)
		if rc != 0 {
			if errno == syscall.EAGAIN {
				return errAgain
			}
			return cerr.ZeroOrMinusOne("ibv_get_cq_event", int32(rc))
		}
		raw := (*ibv.CQ)(rawCQ)
		// Ack first, always: an unacknowledged event makes ibv_destroy_cq
		// wait forever.
		raw.AckEvents(1)
		var err error
		if cq, err = c.eventCQ("rdma.CompChannel.Wait", raw); err != nil {
			// A late wake of WaitBlocking's waker is dropped, and the
			// next event read at once: the netpoller reports an fd only
			// when it becomes readable, and it may be readable still.
			if !c.dropWakerEvent(raw) {
				return err
			}
		}
	}
	if err := cq.rearm(); err != nil {
		return err
	}
	c.got = cq
	return nil
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
		c.dev.disown("CompChannel")
		return nil
	})
}

// errForeignEvent: the channel delivered an event for a CQ that is not
// one of this package's CQs on it (one made through the generated layer).
var errForeignEvent = errors.New("event for a CQ this package did not create")
