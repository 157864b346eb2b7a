package bench

// The C twin of the many-connection write rate (BenchmarkConns): one
// thread driving the same QPs, as ib_write_bw -q N drives its QPs from
// one thread, busy-polling each connection's CQ in turn.

/*
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <infiniband/verbs.h>

// One connection's batch of RDMA writes (chained, the last signaled) and
// its progress in batches.
struct bench_wconn {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_send_wr *wr;
	struct ibv_sge *sge;
	int posted, done;
};

struct bench_wset {
	int n, batch;
	struct bench_wconn *c;
	int err;          // what the failed step returned
	int failed;       // the connection it failed on
	int status;       // the failed completion's status
};

static void bench_wset_free(struct bench_wset *s) {
	if (!s)
		return;
	if (s->c)
		for (int i = 0; i < s->n; i++) {
			free(s->c[i].wr);
			free(s->c[i].sge);
		}
	free(s->c);
	free(s);
}

static struct bench_wset *bench_wset_new(int n, int batch) {
	struct bench_wset *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->n = n;
	s->batch = batch;
	s->c = calloc(n, sizeof(*s->c));
	if (!s->c) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		s->c[i].wr = calloc(batch, sizeof(struct ibv_send_wr));
		s->c[i].sge = calloc(batch, sizeof(struct ibv_sge));
		if (!s->c[i].wr || !s->c[i].sge) {
			bench_wset_free(s);
			return NULL;
		}
	}
	return s;
}

static void bench_wset_conn(struct bench_wset *s, int i, uintptr_t qp, uintptr_t cq,
		uint64_t laddr, uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey) {
	struct bench_wconn *c = &s->c[i];
	c->qp = (struct ibv_qp *)qp;
	c->cq = (struct ibv_cq *)cq;
	for (int k = 0; k < s->batch; k++) {
		c->sge[k] = (struct ibv_sge){.addr = laddr, .length = len, .lkey = lkey};
		c->wr[k] = (struct ibv_send_wr){.wr_id = (uint64_t)i, .sg_list = &c->sge[k], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE, .next = k + 1 < s->batch ? &c->wr[k + 1] : NULL};
		c->wr[k].wr.rdma.remote_addr = raddr;
		c->wr[k].wr.rdma.rkey = rkey;
	}
	c->wr[s->batch - 1].send_flags = IBV_SEND_SIGNALED;
}

enum { bench_w_ok = 0, bench_w_post = 1, bench_w_poll = 2, bench_w_wc = 3 };

// Writes batches batches of s->batch writes on every connection, at most
// inflight batches outstanding on each, polling each connection's CQ in
// turn; *ns is the loop's time. Returns bench_w_ok or the step that failed.
static int bench_c_write_rate(struct bench_wset *s, int batches, int inflight, int64_t *ns) {
	struct timespec a, b;
	struct ibv_send_wr *bad;
	struct ibv_wc wc[4];
	int64_t left = (int64_t)s->n * batches;
	for (int i = 0; i < s->n; i++)
		s->c[i].posted = s->c[i].done = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < s->n; i++) {
		struct bench_wconn *c = &s->c[i];
		while (c->posted < batches && c->posted - c->done < inflight) {
			if ((s->err = ibv_post_send(c->qp, c->wr, &bad))) {
				s->failed = i;
				return bench_w_post;
			}
			c->posted++;
		}
	}
	while (left > 0) {
		for (int i = 0; i < s->n; i++) {
			struct bench_wconn *c = &s->c[i];
			if (c->done == c->posted)
				continue;
			int k = ibv_poll_cq(c->cq, 4, wc);
			if (k < 0) {
				s->err = k;
				s->failed = i;
				return bench_w_poll;
			}
			for (int j = 0; j < k; j++) {
				if (wc[j].status != IBV_WC_SUCCESS) {
					s->status = wc[j].status;
					s->failed = i;
					return bench_w_wc;
				}
				c->done++;
				left--;
			}
			while (c->posted < batches && c->posted - c->done < inflight) {
				if ((s->err = ibv_post_send(c->qp, c->wr, &bad))) {
					s->failed = i;
					return bench_w_post;
				}
				c->posted++;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	return bench_w_ok;
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// cWrites is the C twin's state, in C memory: every connection's batch of
// writes. Free it with free.
type cWrites struct{ s *C.struct_bench_wset }

// newCWrites makes room for n connections' batches of batch writes.
func newCWrites(n, batch int) (*cWrites, error) {
	s := C.bench_wset_new(C.int(n), C.int(batch))
	if s == nil {
		return nil, fmt.Errorf("bench_wset_new: out of memory")
	}
	return &cWrites{s}, nil
}

// conn sets connection i's QP and CQ and its writes: from local to
// (raddr, rkey).
func (w *cWrites) conn(i int, qp *ibv.QP, cq *ibv.CQ, local ibv.SGE, raddr uint64, rkey uint32) {
	C.bench_wset_conn(w.s, C.int(i), C.uintptr_t(uintptr(unsafe.Pointer(qp))), C.uintptr_t(uintptr(unsafe.Pointer(cq))),
		C.uint64_t(local.Addr), C.uint32_t(local.Length), C.uint32_t(local.LKey), C.uint64_t(raddr), C.uint32_t(rkey))
}

func (w *cWrites) free() { C.bench_wset_free(w.s) }

// run writes batches batches on every connection, at most inflight
// outstanding on each, in one cgo call, and returns the time the C loop
// took.
func (w *cWrites) run(batches, inflight int) (time.Duration, error) {
	var ns C.int64_t
	switch rc := C.bench_c_write_rate(w.s, C.int(batches), C.int(inflight), &ns); rc {
	case C.bench_w_ok:
		return time.Duration(ns), nil
	case C.bench_w_wc:
		return 0, fmt.Errorf("bench_c_write_rate: connection %d: completion: %s", w.s.failed, ibv.WCStatusStr(ibv.WCStatus(w.s.status)))
	case C.bench_w_post:
		return 0, fmt.Errorf("bench_c_write_rate: connection %d: ibv_post_send: %w", w.s.failed, syscall.Errno(w.s.err))
	default:
		return 0, fmt.Errorf("bench_c_write_rate: connection %d: ibv_poll_cq returned %d", w.s.failed, w.s.err)
	}
}
