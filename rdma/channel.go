package rdma

import (
	"context"
	"errors"
	"sync"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// CompChannel is a completion channel (struct ibv_comp_channel) whose fd is
// parked on Go's netpoller: waiting on it holds no OS thread.
type CompChannel struct {
	life
	ch  *ibv.CompChannel
	dev *Device
	w   *fdWaiter

	mu  sync.Mutex
	cqs map[*ibv.CQ]*CQ // the CQs on this channel

	out unsafe.Pointer // C memory for ibv_get_cq_event's two out-parameters
	got *CQ            // tryEvent's result, read by Wait under the waiter's lock
	// tryFn is tryEvent bound once (a method value made per Wait would
	// allocate).
	tryFn func() error
}

// NewCompChannel creates a completion channel (ibv_create_comp_channel).
func (d *Device) NewCompChannel() (*CompChannel, error) {
	if err := d.use("rdma.Device.NewCompChannel"); err != nil {
		return nil, err
	}
	defer d.done()
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
	c := &CompChannel{ch: ch, dev: d, w: w, cqs: map[*ibv.CQ]*CQ{}, out: cAlloc(2 * unsafe.Sizeof(uintptr(0)))}
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
// any number of completions. Context cancellation returns ctx.Err();
// Close of the channel returns ErrClosed. With a context that cannot be
// cancelled it allocates nothing.
func (c *CompChannel) Wait(ctx context.Context) (*CQ, error) {
	if c == nil {
		return nil, nilErr("rdma.CompChannel.Wait")
	}
	if err := c.w.lock(ctx); err != nil {
		return nil, err
	}
	defer c.w.unlock()
	err := c.w.waitLocked(ctx, c.tryFn)
	got := c.got
	c.got = nil
	return got, err
}

// tryEvent is Wait's step once the fd may be readable (under the waiter's
// lock): take one event, ack it, re-arm its CQ and leave it in c.got. The
// event's out-parameters live in C memory (c.out), so nothing escapes.
func (c *CompChannel) tryEvent() error {
	if err := c.tryUse("rdma.CompChannel.Wait"); err != nil {
		return err
	}
	defer c.done()
	if ok, err := c.w.readable(c.ch.FD); err != nil {
		return opErr("rdma.CompChannel.Wait: poll", err)
	} else if !ok {
		return errAgain
	}
	rawp := (**ibv.CQ)(c.out)
	ctxp := (*unsafe.Pointer)(unsafe.Add(c.out, unsafe.Sizeof(uintptr(0))))
	if err := c.ch.GetCQEvent(rawp, ctxp); err != nil {
		return err
	}
	raw := *rawp
	// Ack first, always: an unacknowledged event makes ibv_destroy_cq
	// wait forever.
	raw.AckCQEvents(1)
	c.mu.Lock()
	cq := c.cqs[raw]
	c.mu.Unlock()
	if cq == nil {
		return opErr("rdma.CompChannel.Wait", errors.New("event for a CQ this package did not create"))
	}
	if err := cq.rearm(); err != nil {
		return err
	}
	c.got = cq
	return nil
}

// Close destroys the channel (ibv_destroy_comp_channel) once no CQ uses it
// (else a *BusyError). Goroutines waiting on it return ErrClosed.
func (c *CompChannel) Close() error {
	if c == nil {
		return nilErr("rdma.CompChannel.Close")
	}
	return c.close(func() error {
		if err := c.w.close(); err != nil {
			return opErr("rdma.CompChannel.Close", err)
		}
		if err := c.ch.Destroy(); err != nil {
			return err
		}
		cFree(c.out)
		c.dev.disown("CompChannel")
		return nil
	})
}
