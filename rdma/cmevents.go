package rdma

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/rdmacm"
	"golang.org/x/sys/unix"
)

// cmChannel is an rdmacm event channel (struct rdma_event_channel) parked
// on the netpoller.
type cmChannel struct {
	ch *rdmacm.EventChannel
	w  *fdWaiter
}

func newCMChannel() (*cmChannel, error) {
	ch, err := rdmacm.CreateEventChannel()
	if err != nil {
		return nil, err
	}
	w, err := newFDWaiter(ch.FD, "rdmacm event channel")
	if err != nil {
		ch.Destroy()
		return nil, err
	}
	return &cmChannel{ch: ch, w: w}, nil
}

// cmEvent is a copy of an acknowledged rdmacm event.
type cmEvent struct {
	typ    rdmacm.CMEventType
	status int32
	id     *rdmacm.CMID
	data   []byte // the private data of a connection event, copied
}

// carriesPrivateData reports whether events of type t carry connection
// private data (rdma_cm_event.param.conn).
func carriesPrivateData(t rdmacm.CMEventType) bool {
	switch t {
	case rdmacm.CMEventTypeConnectRequest, rdmacm.CMEventTypeConnectResponse, rdmacm.CMEventTypeEstablished, rdmacm.CMEventTypeRejected:
		return true
	}
	return false
}

// next waits for the channel's next event (rdma_get_cm_event), copies and
// acknowledges it (rdma_ack_cm_event).
func (c *cmChannel) next(ctx context.Context) (cmEvent, error) {
	var out cmEvent
	err := c.w.wait(ctx, func() error {
		ev, err := c.ch.GetCMEvent()
		if err != nil {
			if errors.Is(err, unix.EAGAIN) {
				return errAgain
			}
			return err
		}
		out = cmEvent{typ: ev.Event, status: ev.Status, id: ev.ID}
		if carriesPrivateData(ev.Event) {
			if p := ev.Param.Conn(); p.PrivateData != nil && p.PrivateDataLen > 0 {
				out.data = append([]byte(nil), unsafe.Slice((*byte)(p.PrivateData), p.PrivateDataLen)...)
			}
		}
		return ev.Ack()
	})
	return out, err
}

// expect waits for an event of type want; any other event is an error
// naming it, wrapping the errno that best says what happened.
func (c *cmChannel) expect(ctx context.Context, op string, want rdmacm.CMEventType) (cmEvent, error) {
	ev, err := c.next(ctx)
	if err != nil {
		return ev, opErr(op, err)
	}
	if ev.typ != want {
		return ev, opErr(op, &CMEventError{Want: want, Got: ev.typ, Status: ev.status, PrivateData: ev.data})
	}
	return ev, nil
}

func (c *cmChannel) close() {
	c.w.close()
	c.ch.Destroy()
}

// CMEventError is an rdmacm event other than the one an operation waited
// for (a rejection, an unreachable peer, an address or route error, a
// disconnect). It wraps the errno the event stands for: ECONNREFUSED for
// RDMA_CM_EVENT_REJECTED, EHOSTUNREACH for an unreachable peer or an
// address/route error, ECONNRESET for a disconnect, or the event's own
// negative status.
//
// For RDMA_CM_EVENT_REJECTED, Status is the reject reason the transport
// reports (on InfiniBand and RoCE the IB CM's: 28, consumer defined, for
// a listener's ConnRequest.Reject; 8, invalid service ID, when nobody
// listens) and PrivateData what the rejecting side sent, as the transport
// delivered it (the IB CM pads it to 148 bytes).
type CMEventError struct {
	Want, Got   rdmacm.CMEventType
	Status      int32
	PrivateData []byte
}

func (e *CMEventError) Error() string {
	return fmt.Sprintf("waiting for %s, got %s (status %d)", e.Want, e.Got, e.Status)
}

func (e *CMEventError) Unwrap() error {
	switch e.Got {
	case rdmacm.CMEventTypeRejected:
		return unix.ECONNREFUSED
	case rdmacm.CMEventTypeUnreachable, rdmacm.CMEventTypeAddrError, rdmacm.CMEventTypeRouteError:
		if e.Status < 0 {
			return syscall.Errno(-e.Status)
		}
		return unix.EHOSTUNREACH
	case rdmacm.CMEventTypeDisconnected:
		return unix.ECONNRESET
	case rdmacm.CMEventTypeDeviceRemoval:
		return unix.ENODEV
	}
	if e.Status < 0 {
		return syscall.Errno(-e.Status)
	}
	return unix.EPROTO
}
