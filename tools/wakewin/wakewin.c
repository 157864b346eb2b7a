// wakewin: an LD_PRELOAD library that times, in any process, how long the
// process stays awake between two blocking waits for a completion event,
// the same way for ib_send_lat -e and for goverbs. A wait is an 8-byte
// read(2) through the C library (a completion event is 8 bytes; this is
// how ibv_get_cq_event waits on a blocking fd, in perftest and in
// rdma.CompChannel.WaitBlocking with its waker), or a poll(2) on two fds
// with no timeout (how WaitBlocking waits without a waker), whose
// following 8-byte read, which does not block, is then no wait. A
// ping-pong that signals its sends takes two events per iteration, so the
// windows alternate between two kinds; they are reported apart, as parity
// 0 and 1: one holds the post of the next send (and the kernel's work for
// it), the other only the event's handling.
//
// Each process appends its figures to the file named by WAKEWIN_OUT every
// WAKEWIN_N windows (default 4000) and when it exits through exit(3).
// Used by `make bench-wakes`; see docs/notes/2026-12-02-rxe-ring-path.md, "Where the rest of a round trip goes".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAXW 100000

static ssize_t (*real_read)(int, void *, size_t);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int after_poll;             // the next 8-byte read follows a poll(2) wait
static int64_t woke, entered;      // when the last wait returned, when this one began
static int64_t awake[MAXW], asleep[MAXW];
static int n, every = 4000;

static int64_t now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

// Writes the medians of each parity's windows and starts over.
static void report(void) {
	const char *path = getenv("WAKEWIN_OUT");
	char comm[64] = "?";
	FILE *f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fscanf(f, "%63s", comm) != 1)
			comm[0] = '?', comm[1] = 0;
		fclose(f);
	}
	FILE *o = path ? fopen(path, "a") : NULL;
	if (o) {
		static int64_t a[MAXW], s[MAXW];
		for (int par = 0; par < 2; par++) {
			int k = 0;
			for (int i = par; i < n; i += 2)
				a[k] = awake[i], s[k] = asleep[i], k++;
			if (k < 10)
				continue;
			qsort(a, k, sizeof a[0], cmp);
			qsort(s, k, sizeof s[0], cmp);
			fprintf(o, "%s pid=%d parity=%d windows=%d awake_us p25=%.1f median=%.1f p75=%.1f then_asleep_us median=%.1f\n",
				comm, (int)getpid(), par, k, a[k / 4] / 1e3, a[k / 2] / 1e3, a[3 * k / 4] / 1e3, s[k / 2] / 1e3);
		}
		fclose(o);
	}
	n = 0;
	woke = 0;
}

static void begin(void) { entered = now(); }

static void end(void) {
	int64_t t = now();
	if (woke && n < MAXW) {
		awake[n] = entered - woke;
		asleep[n] = t - entered;
		if (++n >= every)
			report();
	}
	woke = t;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout) {
	if (!real_poll)
		real_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	if (nfds != 2 || timeout != -1)
		return real_poll(fds, nfds, timeout);
	begin();
	int r = real_poll(fds, nfds, timeout);
	end();
	after_poll = 1;
	return r;
}

ssize_t read(int fd, void *buf, size_t count) {
	if (!real_read)
		real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (count != 8)
		return real_read(fd, buf, count);
	if (after_poll) {
		after_poll = 0;
		return real_read(fd, buf, count);
	}
	begin();
	ssize_t r = real_read(fd, buf, count);
	end();
	return r;
}

__attribute__((constructor)) static void start(void) {
	const char *e = getenv("WAKEWIN_N");
	if (e && atoi(e) >= 20 && atoi(e) <= MAXW)
		every = atoi(e);
}

__attribute__((destructor)) static void finish(void) { report(); }
