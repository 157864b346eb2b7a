package rdma

// The data path's C side: each function is one cgo crossing for a whole
// batch. The provider's ops (ibv_context.ops.poll_cq, post_send, post_recv)
// are read from the generated layout in Go and called through these
// trampolines, as the static inline ibv_poll_cq/ibv_post_send do in C.
// noescape: no function keeps a pointer it is given; nocallback: none
// calls back into Go. Both let cgo skip work on every call.
//
// No argument is one that cgo checks at run time (cgocheck): C memory (the
// ops, the CQ and QP, the QP's work-request arena) goes as uintptr_t, and
// Go memory only as a pointer to a C type without pointers (gv_wc,
// uintptr_t, int), which cgo knows cannot hold a Go pointer. Under qemu
// TCG a call with three pointer arguments cost 1.3 µs against 0.7 µs for
// the same call with none (BenchmarkCgoPointerArgs and BenchmarkCgoNoop in ./bench).

/*
#cgo noescape gv_poll
#cgo nocallback gv_poll
#cgo noescape gv_poll_spin
#cgo nocallback gv_poll_spin
#cgo noescape gv_post
#cgo nocallback gv_post
#cgo noescape gv_post_send_poll
#cgo nocallback gv_post_send_poll
#include <stdint.h>
#include <stdlib.h>
#include "trampoline.h"

typedef int (*gv_post_fn)(void *qp, void *wr, void **bad);

static int gv_poll(uintptr_t fn, uintptr_t cq, int n, struct gv_wc *wc) {
	return ((gv_poll_fn)fn)((void *)cq, n, wc);
}

// Polls until a completion arrives or spins polls came back empty.
static int gv_poll_spin(uintptr_t fn, uintptr_t cq, int n, struct gv_wc *wc, int64_t spins) {
	int r;
	do {
		r = ((gv_poll_fn)fn)((void *)cq, n, wc);
	} while (r == 0 && --spins > 0);
	return r;
}

// Posts the chain at wr (post_send or post_recv); *bad is the first work
// request not posted.
static int gv_post(uintptr_t fn, uintptr_t qp, uintptr_t wr, uintptr_t *bad) {
	void *b = NULL;
	int r = ((gv_post_fn)fn)((void *)qp, (void *)wr, &b);
	*bad = (uintptr_t)b;
	return r;
}

// Posts wr, then polls cq as gv_poll_spin does. Returns the poll's result;
// *post_rc is the post's (nonzero: nothing was polled).
static int gv_post_send_poll(uintptr_t post, uintptr_t qp, uintptr_t wr, uintptr_t *bad, int *post_rc,
		uintptr_t poll, uintptr_t cq, int n, struct gv_wc *wc, int64_t spins) {
	int r = gv_post(post, qp, wr, bad);
	*post_rc = r;
	if (r)
		return 0;
	return gv_poll_spin(poll, cq, n, wc, spins);
}
*/
import "C"

import (
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// cWC is the address of wcs[0] as the trampolines take it.
func cWC(wcs []ibv.WC) *C.struct_gv_wc { return (*C.struct_gv_wc)(unsafe.Pointer(&wcs[0])) }

func cPoll(fn, cq uintptr, wcs []ibv.WC) int {
	return int(C.gv_poll(C.uintptr_t(fn), C.uintptr_t(cq), C.int(len(wcs)), cWC(wcs)))
}

func cPollSpin(fn, cq uintptr, wcs []ibv.WC, spins int64) int {
	return int(C.gv_poll_spin(C.uintptr_t(fn), C.uintptr_t(cq), C.int(len(wcs)), cWC(wcs), C.int64_t(spins)))
}

// cPost calls a post op (post_send or post_recv) on the chain at wr, in C
// memory; bad is the first work request not posted.
func cPost(fn, qp, wr uintptr) (rc int, bad uintptr) {
	rc = int(C.gv_post(C.uintptr_t(fn), C.uintptr_t(qp), C.uintptr_t(wr), (*C.uintptr_t)(unsafe.Pointer(&bad))))
	return rc, bad
}

// cPostSendPoll posts the chain at wr and polls cq into wcs; postRC and bad
// are the post's.
func cPostSendPoll(post, qp, wr, poll, cq uintptr, wcs []ibv.WC, spins int64) (n, postRC int, bad uintptr) {
	var rc C.int
	n = int(C.gv_post_send_poll(C.uintptr_t(post), C.uintptr_t(qp), C.uintptr_t(wr), (*C.uintptr_t)(unsafe.Pointer(&bad)), &rc,
		C.uintptr_t(poll), C.uintptr_t(cq), C.int(len(wcs)), cWC(wcs), C.int64_t(spins)))
	return n, int(rc), bad
}

// cAlloc returns n zeroed bytes of C memory (never nil); cFree frees them.
func cAlloc(n uintptr) unsafe.Pointer {
	p := C.calloc(1, C.size_t(n))
	if p == nil {
		panic("rdma: out of C memory")
	}
	return p
}

func cFree(p unsafe.Pointer) { C.free(p) }
