//go:build linux && cgo

package rdma

/*
#cgo noescape gv_take_cq_event
#cgo nocallback gv_take_cq_event
#include <errno.h>
#include <stdint.h>

typedef int (*gv_get_cq_event_fn)(void *channel, void **cq, void **cq_context);
typedef void (*gv_ack_cq_events_fn)(void *cq, unsigned int n);
typedef int (*gv_notify_cq_fn)(void *cq, int solicited_only);

// A struct ibv_wc, as far as C here is concerned: its address is passed
// on. Pointer-free, so that cgo need not check a Go pointer to one.
struct gv_take_wc { unsigned char opaque; };
typedef int (*gv_poll_cq_fn)(void *cq, int n, struct gv_take_wc *wc);

// What CompChannel.Wait hands its C step, in C memory: the functions, the
// cq_context of the package's CQs on the channel, and the results: the
// event's CQ and context, errno after a failure, and which step failed.
struct gv_cq_event {
	void *get_event; // ibv_get_cq_event
	void *ack;       // ibv_ack_cq_events
	void *notify;    // the device's context->ops.req_notify_cq
	void *poll;      // the device's context->ops.poll_cq
	void *ours;
	void *cq;
	void *cq_context;
	int err;
	int step;        // GV_TAKE_*
	int polled;      // what poll_cq returned
};

enum {
	GV_TAKE_OK = 0,
	GV_TAKE_GET_EVENT = 1, // ibv_get_cq_event returned -1, errno in err (EAGAIN: nothing yet)
	GV_TAKE_NOTIFY = 2,    // req_notify_cq returned err (the event is acknowledged)
	GV_TAKE_OTHER = 3,     // an event of a CQ not the package's (acknowledged, not re-armed)
};

// Takes one event of the channel (ibv_get_cq_event, on its non-blocking
// fd: read(2)'s EAGAIN means none yet). For a CQ of the package's, re-arms
// it (req_notify_cq), polls it once into wc when n > 0 and acknowledges
// the event (ibv_ack_cq_events), in that order: until the acknowledgement
// ibv_destroy_cq waits, so the CQ outlives the re-arm and the poll even
// when its Close has begun. Any other event is acknowledged at once.
// Returns ev->step. ev is C memory as an integer and wc pointer-free: cgo
// checks no argument (as ibv/zfast.go's trampolines).
static int gv_take_cq_event(uintptr_t out, uintptr_t channel, int n, struct gv_take_wc *wc) {
	struct gv_cq_event *ev = (struct gv_cq_event *)out;
	ev->err = 0;
	ev->polled = 0;
	errno = 0;
	if (((gv_get_cq_event_fn)ev->get_event)((void *)channel, &ev->cq, &ev->cq_context)) {
		ev->err = errno;
		return ev->step = GV_TAKE_GET_EVENT;
	}
	if (ev->cq_context != ev->ours) {
		((gv_ack_cq_events_fn)ev->ack)(ev->cq, 1);
		return ev->step = GV_TAKE_OTHER;
	}
	int r = ((gv_notify_cq_fn)ev->notify)(ev->cq, 0);
	if (!r && n > 0)
		ev->polled = ((gv_poll_cq_fn)ev->poll)(ev->cq, n, wc);
	((gv_ack_cq_events_fn)ev->ack)(ev->cq, 1);
	if (r) {
		ev->err = r;
		return ev->step = GV_TAKE_NOTIFY;
	}
	return ev->step = GV_TAKE_OK;
}
*/
import "C"

import (
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// newCQEventOut is the C memory takeCQEvent works in, with the functions
// it calls: ibv_get_cq_event (getEvent), ibv_ack_cq_events, and the
// provider's req_notify_cq and poll_cq of ctx, for the package's CQs,
// whose cq_context is the memory's own address.
func newCQEventOut(getEvent unsafe.Pointer, ctx *ibv.Context) (unsafe.Pointer, error) {
	ack, err := ibv.AckCQEventsAddr()
	if err != nil {
		return nil, err
	}
	notify, poll := ctx.Ops.ReqNotifyCQ, ctx.Ops.PollCQ
	if notify == nil {
		return nil, &ibv.NilOpError{Func: "ibv_req_notify_cq", Op: "context->ops.req_notify_cq"}
	}
	if poll == nil {
		return nil, &ibv.NilOpError{Func: "ibv_poll_cq", Op: "context->ops.poll_cq"}
	}
	out := cAlloc(C.sizeof_struct_gv_cq_event)
	ev := (*C.struct_gv_cq_event)(out)
	ev.get_event, ev.ack, ev.notify, ev.poll, ev.ours = getEvent, ack, notify, poll, out
	return out, nil
}

// takeCQEvent takes one event of ch into out (gv_take_cq_event): for one
// of the package's CQs, re-armed, polled into wcs (if any) and acknowledged.
// It returns the step (takeOK, takeGetEvent with errno, takeNotify with
// the op's result, takeOther), the event's CQ and the poll's result.
func takeCQEvent(out unsafe.Pointer, ch *ibv.CompChannel, wcs []ibv.WC) (step int, errno int32, cq unsafe.Pointer, polled int) {
	var wc *C.struct_gv_take_wc
	if len(wcs) > 0 {
		wc = (*C.struct_gv_take_wc)(unsafe.Pointer(&wcs[0]))
	}
	ev := (*C.struct_gv_cq_event)(out)
	step = int(C.gv_take_cq_event(C.uintptr_t(uintptr(out)), C.uintptr_t(uintptr(unsafe.Pointer(ch))), C.int(min(len(wcs), 1<<30)), wc))
	return step, int32(ev.err), ev.cq, int(ev.polled)
}

// The steps takeCQEvent returns.
const (
	takeOK       = C.GV_TAKE_OK
	takeGetEvent = C.GV_TAKE_GET_EVENT
	takeNotify   = C.GV_TAKE_NOTIFY
	takeOther    = C.GV_TAKE_OTHER
)
