//go:build linux && cgo

package rdma

/*
#cgo noescape gv_get_cq_event
#cgo nocallback gv_get_cq_event
#include <errno.h>
#include <stdint.h>

typedef int (*gv_get_cq_event_fn)(void *channel, void **cq, void **cq_context);

// What CompChannel.Wait hands ibv_get_cq_event, in C memory: its two
// out-parameters, and errno after a failure.
struct gv_cq_event {
	void *cq;
	void *cq_context;
	int err;
};

// Calls ibv_get_cq_event (at fn) into ev; ev->err is errno after a failure
// (cleared before the call), 0 after a success. All three are C memory,
// passed as integers: cgo checks no argument (as ibv/zfast.go's
// trampolines).
static int gv_get_cq_event(uintptr_t fn, uintptr_t channel, uintptr_t out) {
	struct gv_cq_event *ev = (struct gv_cq_event *)out;
	errno = 0;
	int r = ((gv_get_cq_event_fn)fn)((void *)channel, &ev->cq, &ev->cq_context);
	ev->err = r ? errno : 0;
	return r;
}
*/
import "C"

import (
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// newCQEventOut is the C memory getCQEvent's results go to.
func newCQEventOut() unsafe.Pointer { return cAlloc(C.sizeof_struct_gv_cq_event) }

// getCQEvent calls ibv_get_cq_event (at fn) on ch: its result, errno after a
// failure, and the event's CQ.
func getCQEvent(fn unsafe.Pointer, ch *ibv.CompChannel, out unsafe.Pointer) (int, syscall.Errno, unsafe.Pointer) {
	ev := (*C.struct_gv_cq_event)(out)
	rc := C.gv_get_cq_event(C.uintptr_t(uintptr(fn)), C.uintptr_t(uintptr(unsafe.Pointer(ch))), C.uintptr_t(uintptr(out)))
	return int(rc), syscall.Errno(ev.err), ev.cq
}
