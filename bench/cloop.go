package bench

// C twins of the Go poll loops: the same provider op, called from C, so
// the comparison measures the cost of calling it from Go.

/*
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

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
*/
import "C"

import "unsafe"

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
