package bench

// The price of a wait made cancellable by poll(2): two threads of one C
// program wake each other through eventfds, either blocked in read(2), as
// ib_send_lat -e waits for a completion event (and
// rdma.CompChannel.WaitBlocking with its waker), or in poll(2) on the
// eventfd and a second one (for cancellation) before a non-blocking
// read(2), as WaitBlocking waits where it has no waker.

/*
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct bench_wake {
	int polled;          // 1: poll(2), then a non-blocking read(2)
	int64_t n;           // round trips
	int to, from, stop;  // eventfds: to the peer, from the peer, cancellation (never written)
	int err;             // errno of a failed call, 0 if none
};

static int bench_wake_wait(struct bench_wake *w, int fd) {
	uint64_t v;
	for (;;) {
		if (w->polled) {
			struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = w->stop, .events = POLLIN}};
			if (poll(p, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				return errno;
			}
		}
		if (read(fd, &v, sizeof v) == sizeof v)
			return 0;
		if (errno != EAGAIN && errno != EINTR)
			return errno;
	}
}

static int bench_wake_signal(int fd) {
	uint64_t one = 1;
	return write(fd, &one, sizeof one) == sizeof one ? 0 : errno;
}

static void *bench_wake_peer(void *arg) {
	struct bench_wake *w = arg;
	for (int64_t i = 0; i < w->n; i++) {
		int e = bench_wake_wait(w, w->to);
		if (!e)
			e = bench_wake_signal(w->from);
		if (e) {
			w->err = e;
			break;
		}
	}
	return NULL;
}

static int64_t bench_wake_now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// Runs n round trips (this thread wakes the peer, the peer wakes it back)
// and writes each one's nanoseconds to rt. Returns 0 or an errno.
static int bench_wake(int polled, int64_t n, int64_t *rt) {
	int flags = EFD_CLOEXEC | (polled ? EFD_NONBLOCK : 0);
	struct bench_wake w = {.polled = polled, .n = n};
	w.to = eventfd(0, flags);
	w.from = eventfd(0, flags);
	w.stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int err = 0;
	pthread_t peer;
	if (w.to < 0 || w.from < 0 || w.stop < 0) {
		err = errno;
		goto out;
	}
	if ((err = pthread_create(&peer, NULL, bench_wake_peer, &w)))
		goto out;
	for (int64_t i = 0; i < n && !err; i++) {
		int64_t t0 = bench_wake_now();
		err = bench_wake_signal(w.to);
		if (!err)
			err = bench_wake_wait(&w, w.from);
		rt[i] = bench_wake_now() - t0;
	}
	if (err) // the peer waits for a wake that will not come
		bench_wake_signal(w.to);
	pthread_join(peer, NULL);
	if (!err)
		err = w.err;
out:
	if (w.to >= 0)
		close(w.to);
	if (w.from >= 0)
		close(w.from);
	if (w.stop >= 0)
		close(w.stop);
	return err;
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"
)

// wakeRoundTrips runs len(rt) eventfd round trips between two C threads,
// blocked in read(2), or in poll(2) before a read(2) when polled, and
// writes each one's nanoseconds to rt.
func wakeRoundTrips(polled bool, rt []int64) error {
	if len(rt) == 0 {
		return nil
	}
	p := 0
	if polled {
		p = 1
	}
	if e := C.bench_wake(C.int(p), C.int64_t(len(rt)), (*C.int64_t)(unsafe.Pointer(&rt[0]))); e != 0 {
		return fmt.Errorf("eventfd round trips: %w", syscall.Errno(e))
	}
	return nil
}
