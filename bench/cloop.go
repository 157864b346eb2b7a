package bench

// C twins of the Go poll loops: the same provider op, called from C, so
// the comparison measures the cost of calling it from Go.

/*
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <infiniband/verbs.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#cgo noescape bench_poll_once
#cgo nocallback bench_poll_once
#cgo noescape bench_c_noop_ptrs
#cgo nocallback bench_c_noop_ptrs

typedef int (*bench_poll_fn)(void *cq, int n, void *wc);

// Polls an empty CQ n times; returns the nanoseconds taken.
static int64_t bench_c_poll_empty(void *fn, void *cq, void *wc, int64_t n) {
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int64_t i = 0; i < n; i++)
		((bench_poll_fn)fn)(cq, 1, wc);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}

// Drains total completions in batches of batch, at most maxcalls polls:
// got[i] is poll i's completions, *ns the whole loop's nanoseconds.
// Returns the number of polls, or -1 on a poll error.
static int64_t bench_c_drain(void *fn, void *cq, int batch, void *wc, int64_t total,
		int32_t *got, int64_t maxcalls, int64_t *ns) {
	struct timespec a, b;
	int64_t done = 0, n = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	while (done < total && n < maxcalls) {
		int r = ((bench_poll_fn)fn)(cq, batch, wc);
		if (r < 0)
			return -1;
		got[n++] = r;
		done += r;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	return n;
}

static void bench_c_noop(void) {}
static void bench_c_noop_ptrs(void *a, void *b, void *c) {}

// A struct ibv_wc to bench_poll_once: pointer-free, so cgo does not check
// a Go pointer to one (rdma's trampolines do the same).
struct bench_wc { unsigned char opaque; };

static int bench_poll_once(uintptr_t fn, uintptr_t cq, int n, struct bench_wc *wc) {
	return ((bench_poll_fn)fn)((void *)cq, n, wc);
}

// A stamp in cycles.Now's unit: the TSC on x86-64, monotonic ns elsewhere.
static inline uint64_t bench_now(void) {
#if defined(__x86_64__)
	return __rdtsc();
#else
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

// One end of the C ping-pong: its QP and CQs, its send and receive work
// requests (each one SGE), and the loop's state between calls.
struct bench_pp {
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	struct ibv_comp_channel *ch; // both CQs' channel
	// ibv_get_cq_event and ibv_ack_cq_events, resolved by ibv (this
	// package does not link libibverbs: the inline verbs need no symbol).
	int (*get_cq_event)(struct ibv_comp_channel *, struct ibv_cq **, void **);
	void (*ack_cq_events)(struct ibv_cq *, unsigned int);
	struct ibv_wc wcs[16];       // the event loop's polls
	struct ibv_send_wr swr;
	struct ibv_sge ssge;
	struct ibv_recv_wr rwr;
	struct ibv_sge rsge;
	int sending;       // a signaled send has not completed yet
	uint32_t last_len; // byte length of the last receive
	int err;           // what the step that failed returned
	struct ibv_wc wc;  // the completion that failed, if one did
};

enum {
	bench_pp_ok = 0,
	bench_pp_post_send = 1,
	bench_pp_poll_send = 2,
	bench_pp_send_wc = 3,
	bench_pp_poll_recv = 4,
	bench_pp_recv_wc = 5,
	bench_pp_post_recv = 6,
	bench_pp_get_event = 7,
	bench_pp_notify = 8,
	bench_pp_fcntl = 9,
};

static struct bench_pp *bench_pp_new(uintptr_t qp, uintptr_t scq, uintptr_t rcq, uintptr_t ch, uintptr_t get_event, uintptr_t ack,
		uint64_t saddr, uint32_t slen, uint32_t slkey, uint64_t send_id,
		uint64_t raddr, uint32_t rlen, uint32_t rlkey, uint64_t recv_id) {
	struct bench_pp *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->qp = (struct ibv_qp *)qp;
	p->scq = (struct ibv_cq *)scq;
	p->rcq = (struct ibv_cq *)rcq;
	p->ch = (struct ibv_comp_channel *)ch;
	p->get_cq_event = (void *)get_event;
	p->ack_cq_events = (void *)ack;
	p->ssge = (struct ibv_sge){.addr = saddr, .length = slen, .lkey = slkey};
	p->swr = (struct ibv_send_wr){.wr_id = send_id, .sg_list = &p->ssge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
	p->rsge = (struct ibv_sge){.addr = raddr, .length = rlen, .lkey = rlkey};
	p->rwr = (struct ibv_recv_wr){.wr_id = recv_id, .sg_list = &p->rsge, .num_sge = 1};
	return p;
}

// The C twin of the Go ping-pong loop (node.spinPingPong in the tests),
// statement for statement, through the provider as ib_send_lat calls it
// (ibv_post_send, ibv_poll_cq, ibv_post_recv): iters rounds; the initiator
// stamps each post into posts[i]. Returns bench_pp_ok, or which step
// failed (p->err is what it returned, p->wc a failed completion).
static int bench_c_spin_pingpong(struct bench_pp *p, int64_t iters, int initiator, uint64_t *posts) {
	struct ibv_send_wr *bad_s;
	struct ibv_recv_wr *bad_r;
	int r;
	for (int64_t i = 0; i < iters; i++) {
		if (initiator) {
			posts[i] = bench_now();
			if ((r = ibv_post_send(p->qp, &p->swr, &bad_s))) {
				p->err = r;
				return bench_pp_post_send;
			}
			p->sending = 1;
		}
		while (p->sending) {
			int k = ibv_poll_cq(p->scq, 1, &p->wc);
			if (k < 0) {
				p->err = k;
				return bench_pp_poll_send;
			}
			if (k > 0) {
				if (p->wc.status != IBV_WC_SUCCESS || p->wc.wr_id != p->swr.wr_id)
					return bench_pp_send_wc;
				p->sending = 0;
			}
		}
		for (;;) {
			int k = ibv_poll_cq(p->rcq, 1, &p->wc);
			if (k < 0) {
				p->err = k;
				return bench_pp_poll_recv;
			}
			if (k > 0) {
				if (p->wc.status != IBV_WC_SUCCESS || p->wc.wr_id != p->rwr.wr_id)
					return bench_pp_recv_wc;
				p->last_len = p->wc.byte_len;
				if ((r = ibv_post_recv(p->qp, &p->rwr, &bad_r))) {
					p->err = r;
					return bench_pp_post_recv;
				}
				break;
			}
		}
		if (!initiator) {
			if ((r = ibv_post_send(p->qp, &p->swr, &bad_s))) {
				p->err = r;
				return bench_pp_post_send;
			}
			p->sending = 1;
		}
	}
	return bench_pp_ok;
}

// Handles k completions of p->wcs: a receive sets *got and is re-posted,
// a send clears p->sending. Returns bench_pp_ok or the step that failed.
static int bench_pp_handle(struct bench_pp *p, int k, int *got) {
	struct ibv_recv_wr *bad_r;
	int r;
	for (int j = 0; j < k; j++) {
		struct ibv_wc *wc = &p->wcs[j];
		if (wc->status != IBV_WC_SUCCESS) {
			p->wc = *wc;
			return wc->wr_id == p->rwr.wr_id ? bench_pp_recv_wc : bench_pp_send_wc;
		}
		if (wc->wr_id == p->rwr.wr_id) {
			p->last_len = wc->byte_len;
			*got = 1;
			if ((r = ibv_post_recv(p->qp, &p->rwr, &bad_r))) {
				p->err = r;
				return bench_pp_post_recv;
			}
		} else if (wc->wr_id == p->swr.wr_id) {
			p->sending = 0;
		}
	}
	return bench_pp_ok;
}

// The C twin of the event-driven ping-pong (node.eventPingPong in the
// tests), as ib_send_lat -e waits: after its post (the initiator's first),
// each round takes completion events until a receive has completed and the
// last send has too; per event ibv_get_cq_event, blocking in its read(2),
// ibv_ack_cq_events, ibv_req_notify_cq, then ibv_poll_cq of the event's
// CQ until it returns fewer than 16. The channel's fd is made blocking for
// the call (the Go loop's CompChannel.Wait leaves it non-blocking) and
// its flags restored after. Returns bench_pp_ok, or which step failed.
static int bench_c_event_pingpong(struct bench_pp *p, int64_t iters, int initiator, uint64_t *posts) {
	struct ibv_send_wr *bad_s;
	int r, rc = bench_pp_ok;
	int fl = fcntl(p->ch->fd, F_GETFL);
	if (fl < 0 || ((fl & O_NONBLOCK) && fcntl(p->ch->fd, F_SETFL, fl & ~O_NONBLOCK) < 0)) {
		p->err = errno;
		return bench_pp_fcntl;
	}
	for (int64_t i = 0; i < iters && rc == bench_pp_ok; i++) {
		if (initiator) {
			posts[i] = bench_now();
			if ((r = ibv_post_send(p->qp, &p->swr, &bad_s))) {
				p->err = r;
				rc = bench_pp_post_send;
				break;
			}
			p->sending = 1;
		}
		int got = 0;
		while (rc == bench_pp_ok && (!got || p->sending)) {
			struct ibv_cq *cq;
			void *cq_context;
			if (p->get_cq_event(p->ch, &cq, &cq_context)) {
				p->err = errno;
				rc = bench_pp_get_event;
				break;
			}
			p->ack_cq_events(cq, 1);
			if ((r = ibv_req_notify_cq(cq, 0))) {
				p->err = r;
				rc = bench_pp_notify;
				break;
			}
			for (;;) {
				int k = ibv_poll_cq(cq, 16, p->wcs);
				if (k < 0) {
					p->err = k;
					rc = cq == p->scq ? bench_pp_poll_send : bench_pp_poll_recv;
					break;
				}
				if ((rc = bench_pp_handle(p, k, &got)) != bench_pp_ok || k < 16)
					break;
			}
		}
		if (rc == bench_pp_ok && !initiator) {
			if ((r = ibv_post_send(p->qp, &p->swr, &bad_s))) {
				p->err = r;
				rc = bench_pp_post_send;
				break;
			}
			p->sending = 1;
		}
	}
	if ((fl & O_NONBLOCK) && fcntl(p->ch->fd, F_SETFL, fl) < 0 && rc == bench_pp_ok) {
		p->err = errno;
		rc = bench_pp_fcntl;
	}
	return rc;
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// cPollEmpty polls an empty CQ n times from C and returns the nanoseconds.
func cPollEmpty(fn, cq, wc unsafe.Pointer, n int64) int64 {
	return int64(C.bench_c_poll_empty(fn, cq, wc, C.int64_t(n)))
}

// cDrain drains total completions in batches from C, counting each poll's
// completions into got (at most len(got) polls), and returns the number of
// polls (-1 on a poll error) and the loop's nanoseconds, timed in C.
func cDrain(fn, cq unsafe.Pointer, batch int, wc unsafe.Pointer, total int64, got []int32) (int, int64) {
	var ns C.int64_t
	n := C.bench_c_drain(fn, cq, C.int(batch), wc, C.int64_t(total),
		(*C.int32_t)(unsafe.Pointer(&got[0])), C.int64_t(len(got)), &ns)
	return int(n), int64(ns)
}

// cNoop calls a C function that does nothing.
func cNoop() { C.bench_c_noop() }

// cAllocBench returns n bytes of C memory; cFreeBench frees them.
func cAllocBench(n int) unsafe.Pointer { return C.calloc(1, C.size_t(n)) }
func cFreeBench(p unsafe.Pointer)      { C.free(p) }

// cNoopPtrs calls a C function that does nothing with three pointer
// arguments, each of which cgo checks at run time (cgocheck).
func cNoopPtrs(a, b, c unsafe.Pointer) { C.bench_c_noop_ptrs(a, b, c) }

// cPollOnce is one provider poll through a bare cgo call (no rdma layer),
// with arguments cgo does not check, as rdma passes them.
func cPollOnce(fn, cq unsafe.Pointer, n int, wc unsafe.Pointer) int {
	return int(C.bench_poll_once(C.uintptr_t(uintptr(fn)), C.uintptr_t(uintptr(cq)), C.int(n), (*C.struct_bench_wc)(wc)))
}

// cPingPong is one end of the C twin of the busy-polled ping-pong, its
// state in C memory. Free it with free.
type cPingPong struct{ p *C.struct_bench_pp }

// newCPingPong sets up the C ping-pong of QP qp with send CQ scq and
// receive CQ rcq, both on channel ch: signaled sends of send, receives into recv, each one
// SGE, with the given work-request IDs.
func newCPingPong(qp *ibv.QP, scq, rcq *ibv.CQ, ch *ibv.CompChannel, send ibv.SGE, sendID uint64, recv ibv.SGE, recvID uint64) (*cPingPong, error) {
	getEvent, err := ibv.GetCQEventAddr()
	if err != nil {
		return nil, err
	}
	ack, err := ibv.AckCQEventsAddr()
	if err != nil {
		return nil, err
	}
	p := C.bench_pp_new(C.uintptr_t(uintptr(unsafe.Pointer(qp))), C.uintptr_t(uintptr(unsafe.Pointer(scq))), C.uintptr_t(uintptr(unsafe.Pointer(rcq))),
		C.uintptr_t(uintptr(unsafe.Pointer(ch))), C.uintptr_t(uintptr(getEvent)), C.uintptr_t(uintptr(ack)),
		C.uint64_t(send.Addr), C.uint32_t(send.Length), C.uint32_t(send.LKey), C.uint64_t(sendID),
		C.uint64_t(recv.Addr), C.uint32_t(recv.Length), C.uint32_t(recv.LKey), C.uint64_t(recvID))
	if p == nil {
		return nil, fmt.Errorf("bench_pp_new: out of memory")
	}
	return &cPingPong{p}, nil
}

func (c *cPingPong) free() { C.free(unsafe.Pointer(c.p)) }

// run is iters rounds of the busy-polled C loop, in one cgo call; sending
// carries the Go loop's state in and out (a signaled send not yet
// completed); posts, the initiator's (room for iters stamps, which C does
// not keep) or nil, gets each round's stamp.
func (c *cPingPong) run(iters int, initiator bool, posts *uint64, sending *bool) error {
	return c.call("bench_c_spin_pingpong", iters, initiator, posts, sending, false)
}

// runEvents is run for the event-driven C loop (bench_c_event_pingpong).
func (c *cPingPong) runEvents(iters int, initiator bool, posts *uint64, sending *bool) error {
	return c.call("bench_c_event_pingpong", iters, initiator, posts, sending, true)
}

func (c *cPingPong) call(name string, iters int, initiator bool, posts *uint64, sending *bool, events bool) error {
	c.p.sending = 0
	if *sending {
		c.p.sending = 1
	}
	init := C.int(0)
	if initiator {
		init = 1
	}
	var rc C.int
	if events {
		rc = C.bench_c_event_pingpong(c.p, C.int64_t(iters), init, (*C.uint64_t)(unsafe.Pointer(posts)))
	} else {
		rc = C.bench_c_spin_pingpong(c.p, C.int64_t(iters), init, (*C.uint64_t)(unsafe.Pointer(posts)))
	}
	*sending = c.p.sending != 0
	switch rc {
	case C.bench_pp_ok:
		return nil
	case C.bench_pp_send_wc, C.bench_pp_recv_wc:
		return fmt.Errorf("%s: completion %d: %s", name, c.p.wc.wr_id, ibv.WCStatusStr(ibv.WCStatus(c.p.wc.status)))
	}
	if err := int(c.p.err); err > 0 { // a post's errno, or errno
		return fmt.Errorf("%s: %s: %w", name, cPingPongSteps[rc], syscall.Errno(err))
	}
	return fmt.Errorf("%s: %s returned %d", name, cPingPongSteps[rc], c.p.err)
}

// What bench_c_spin_pingpong's results say failed.
var cPingPongSteps = map[C.int]string{
	C.bench_pp_post_send: "ibv_post_send",
	C.bench_pp_poll_send: "ibv_poll_cq (send CQ)",
	C.bench_pp_poll_recv: "ibv_poll_cq (receive CQ)",
	C.bench_pp_post_recv: "ibv_post_recv",
	C.bench_pp_get_event: "ibv_get_cq_event",
	C.bench_pp_notify:    "ibv_req_notify_cq",
	C.bench_pp_fcntl:     "fcntl",
}

// lastLen is the byte length of the C loop's last receive.
func (c *cPingPong) lastLen() uint32 { return uint32(c.p.last_len) }
