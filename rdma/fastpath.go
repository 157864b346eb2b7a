package rdma

// The data path's C side: each function is one cgo crossing for a whole
// batch. The provider's ops (ibv_context.ops.poll_cq, post_send, post_recv)
// are read from the generated layout in Go and called through these
// trampolines, as the static inline ibv_poll_cq/ibv_post_send do in C.
// noescape: no function keeps a pointer it is given; nocallback: none
// calls back into Go. Both let cgo skip work on every call.

/*
#cgo noescape gv_poll
#cgo nocallback gv_poll
#cgo noescape gv_poll_spin
#cgo nocallback gv_poll_spin
#cgo noescape gv_post_send
#cgo nocallback gv_post_send
#cgo noescape gv_post_recv
#cgo nocallback gv_post_recv
#cgo noescape gv_post_send_poll
#cgo nocallback gv_post_send_poll
#include <stdint.h>
#include <stdlib.h>

typedef int (*gv_poll_fn)(void *cq, int n, void *wc);
typedef int (*gv_post_fn)(void *qp, void *wr, void **bad);

static int gv_poll(void *fn, void *cq, int n, void *wc) {
	return ((gv_poll_fn)fn)(cq, n, wc);
}

// Polls until a completion arrives or spins polls came back empty.
static int gv_poll_spin(void *fn, void *cq, int n, void *wc, int64_t spins) {
	int r;
	do {
		r = ((gv_poll_fn)fn)(cq, n, wc);
	} while (r == 0 && --spins > 0);
	return r;
}

static int gv_post_send(void *fn, void *qp, void *wr, void **bad) {
	return ((gv_post_fn)fn)(qp, wr, bad);
}

static int gv_post_recv(void *fn, void *qp, void *wr, void **bad) {
	return ((gv_post_fn)fn)(qp, wr, bad);
}

// Posts wr, then polls cq as gv_poll_spin does. Returns the poll's result;
// *post_rc is the post's (nonzero: nothing was polled).
static int gv_post_send_poll(void *post, void *qp, void *wr, void **bad, int *post_rc,
		void *poll, void *cq, int n, void *wc, int64_t spins) {
	int r = ((gv_post_fn)post)(qp, wr, bad);
	*post_rc = r;
	if (r)
		return 0;
	return gv_poll_spin(poll, cq, n, wc, spins);
}
*/
import "C"

import "unsafe"

func cPoll(fn, cq unsafe.Pointer, n int, wc unsafe.Pointer) int {
	return int(C.gv_poll(fn, cq, C.int(n), wc))
}

func cPollSpin(fn, cq unsafe.Pointer, n int, wc unsafe.Pointer, spins int64) int {
	return int(C.gv_poll_spin(fn, cq, C.int(n), wc, C.int64_t(spins)))
}

func cPostSend(fn, qp, wr unsafe.Pointer, bad *unsafe.Pointer) int {
	return int(C.gv_post_send(fn, qp, wr, bad))
}

func cPostRecv(fn, qp, wr unsafe.Pointer, bad *unsafe.Pointer) int {
	return int(C.gv_post_recv(fn, qp, wr, bad))
}

func cPostSendPoll(post, qp, wr unsafe.Pointer, bad *unsafe.Pointer, postRC *C.int, poll, cq unsafe.Pointer, n int, wc unsafe.Pointer, spins int64) int {
	return int(C.gv_post_send_poll(post, qp, wr, bad, postRC, poll, cq, C.int(n), wc, C.int64_t(spins)))
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
