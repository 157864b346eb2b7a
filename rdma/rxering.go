package rdma

// Completions of an rxe (soft-RoCE) CQ, read in Go with no cgo crossing.
//
// rxe's poll_cq does no system call: the kernel writes each completion into
// a ring it shares with the process (mmap'd from the uverbs device) and
// advances the ring's producer index; librxe's poll copies entries out under
// the CQ's pthread spinlock and advances the consumer index. Under qemu TCG
// the cgo crossing around that copy costs more than the copy of 16
// completions (BenchmarkDrain), so for an rxe CQ Poll, PollBatch and
// PollSpin do the same in Go, holding the same spinlock, so that they
// interleave safely with any C caller of ibv_poll_cq or ibv_start_poll on
// the CQ (CQ.Raw, WaitBlockingPoll).
//
// The ring's format is kernel ABI (struct rxe_queue_buf and struct
// ib_uverbs_wc, <rdma/rdma_user_rxe.h>); where librxe keeps the ring's
// address and lock is not: struct rxe_cq is private to the provider. So
// rxeRingOf reads it only from a CQ whose poll_cq is librxe's, and checks
// what it reads against the process's memory map and the ring's header; on
// any mismatch the CQ polls through the provider as on every other device.

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

// librxe's struct rxe_cq: a struct verbs_cq (a union of struct ibv_cq and
// struct ibv_cq_ex), then the ring's struct mminfo, the ring's address and
// the pthread_spinlock_t that its poll_cq holds (rdma-core 44 and 65 alike;
// rxeRingOf checks what it finds there).
enum {
	gv_rxe_cq_mi = sizeof(struct ibv_cq_ex),
	gv_rxe_cq_mi_size = gv_rxe_cq_mi + offsetof(struct mminfo, size),
	gv_rxe_cq_queue = gv_rxe_cq_mi + sizeof(struct mminfo),
	gv_rxe_cq_lock = gv_rxe_cq_queue + sizeof(void *),
	gv_rxe_q_mask = offsetof(struct rxe_queue_buf, index_mask),
	gv_rxe_q_prod = offsetof(struct rxe_queue_buf, producer_index),
	gv_rxe_q_cons = offsetof(struct rxe_queue_buf, consumer_index),
	gv_rxe_q_data = offsetof(struct rxe_queue_buf, data),
	gv_rxe_wc_size = sizeof(struct ib_uverbs_wc),
};

// The file of the shared object that holds fn, or NULL.
static const char *gv_dso_of(uintptr_t fn) {
	Dl_info info;
	if (!dladdr((void *)fn, &info))
		return NULL;
	return info.dli_fname;
}
*/
import "C"

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// rxeRing reads one rxe CQ's completion ring. Both fields point into the
// provider's struct rxe_cq (C memory, freed by ibv_destroy_cq: CQ.Close
// waits for every poll to end).
type rxeRing struct {
	// queue holds the ring's address. It is read afresh under the lock at
	// every poll: librxe's resize_cq unmaps the ring and maps a new one
	// while holding the lock.
	queue *unsafe.Pointer
	lock  *spinlock
}

// spinlock is glibc's x86-64 pthread_spinlock_t, as librxe holds one per
// ring: 1 when free; a locker decrements it, and owns it if it reached 0.
type spinlock int32

// The layout of a ring's header (struct rxe_queue_buf), kernel ABI.
const (
	rxeQMask = C.gv_rxe_q_mask // index_mask
	rxeQProd = C.gv_rxe_q_prod // producer_index
	rxeQCons = C.gv_rxe_q_cons // consumer_index
	rxeQData = C.gv_rxe_q_data // the entries
)

// spinFree is a glibc pthread_spinlock_t's value when no thread holds it.
const spinFree = 1

// errRingUnmapped: librxe left the CQ without a ring (its resize_cq does
// when mapping the new ring fails); its own poll_cq would crash.
var errRingUnmapped = errors.New("rxe CQ has no completion ring (ibv_resize_cq failed to map the new one)")

// pollRing is one poll: up to len(wcs) completions into wcs or, when
// batch is positive, up to batch into the CQ's own array (PollBatch, once
// it is made), and returns what it took (the slice of wcs or of that
// array filled). On a Direct CQ it reads the ring as librxe's poll_cq
// does; otherwise it calls the provider. It is the whole poll, the CQ's
// use and done included, in one function whose callees are inlined (the
// lock's fast path, the atomics), and which Poll's caller calls itself
// (Poll is inlined). Under TCG every call and return, and every branch
// the first time it runs after a system call, costs tens of nanoseconds
// (a return is an indirect jump, which the emulator looks up), as much as
// copying a few completions: with use, done and the copy in functions of
// their own a poll made four calls instead of one (BenchmarkDrain at
// batch 16), and see ARCHITECTURE.md, "Busy polling".
func (cq *CQ) pollRing(op string, wcs []ibv.WC, batch int) ([]ibv.WC, error) {
	r := cq.direct()
	if r == nil || batch <= 0 && len(wcs) == 0 {
		return cq.pollProvider(op, wcs, batch)
	}
	cq.mu.RLock()
	if cq.closed {
		cq.mu.RUnlock()
		return nil, opErr(op, ErrClosed)
	}
	if batch > 0 {
		// Made before (PollBatch: wcsMade); the ring's lock serialises
		// the polls that fill it.
		wcs = cq.wcs[:min(batch, pollBatchCap)]
	}
	r.lock.acquire()
	q := *r.queue
	if q == nil {
		r.lock.release()
		cq.mu.RUnlock()
		return nil, opErr(op, errRingUnmapped)
	}
	shift := *(*uint32)(q) // log2_elem_size
	mask := *(*uint32)(unsafe.Add(q, rxeQMask))
	cons := (*uint32)(unsafe.Add(q, rxeQCons))
	data := unsafe.Add(q, rxeQData)
	// The kernel stores the producer index after the entries it covers
	// (a release); this load is the acquire that pairs with it.
	prod := atomic.LoadUint32((*uint32)(unsafe.Add(q, rxeQProd)))
	c, n := *cons, 0
	for ; n < len(wcs) && c != prod; n++ {
		wcs[n] = *(*ibv.WC)(unsafe.Add(data, uintptr(c)<<shift))
		c = (c + 1) & mask
	}
	if n > 0 {
		// Release: the kernel may reuse the entries once it sees this.
		atomic.StoreUint32(cons, c)
	}
	r.lock.release()
	cq.mu.RUnlock()
	return wcs[:n:n], nil
}

// acquire takes the lock as pthread_spin_lock does. librxe holds a CQ's
// for one poll at a time, or from ibv_start_poll to ibv_end_poll; a receive
// queue's for one ibv_post_recv.
func (l *spinlock) acquire() {
	if !atomic.CompareAndSwapInt32((*int32)(l), spinFree, 0) {
		l.acquireSlow()
	}
}

func (l *spinlock) acquireSlow() {
	for i := 0; !atomic.CompareAndSwapInt32((*int32)(l), spinFree, 0); i++ {
		if i >= 100 {
			runtime.Gosched()
		}
	}
}

func (l *spinlock) release() { atomic.StoreInt32((*int32)(l), spinFree) }

// isLibrxe reports whether the provider function fn is librxe's.
func isLibrxe(fn uintptr) bool {
	name := C.gv_dso_of(C.uintptr_t(fn))
	return name != nil && strings.HasPrefix(filepath.Base(C.GoString(name)), "librxe-")
}

// rxeRingOf returns the reader of raw's ring when raw is an rxe CQ (pollFn,
// its poll_cq, is librxe's) and what librxe's struct rxe_cq holds checks
// out: the ring is a mapping of the uverbs device of the recorded size, its
// header describes a ring that fits it and holds raw's entries, and the
// lock is a free glibc spinlock. Otherwise nil: poll through the provider.
func rxeRingOf(raw *ibv.CQ, pollFn uintptr) *rxeRing {
	if runtime.GOARCH != "amd64" { // the lock protocol below is x86-64 glibc's
		return nil
	}
	if !isLibrxe(pollFn) {
		return nil
	}
	if unsafe.Sizeof(ibv.WC{}) != C.gv_rxe_wc_size {
		return nil
	}
	base := unsafe.Pointer(raw)
	size := uintptr(*(*uint32)(unsafe.Add(base, C.gv_rxe_cq_mi_size)))
	queue := (*unsafe.Pointer)(unsafe.Add(base, C.gv_rxe_cq_queue))
	lock := (*spinlock)(unsafe.Add(base, C.gv_rxe_cq_lock))
	q := *queue
	if q == nil || size < rxeQData || !uverbsMapping(uintptr(q), size) {
		return nil
	}
	// The header is readable now: [q, q+size) is mapped.
	shift, mask := *(*uint32)(q), *(*uint32)(unsafe.Add(q, rxeQMask))
	slots := uintptr(mask) + 1
	switch {
	case shift > 16 || uintptr(1)<<shift < C.gv_rxe_wc_size,
		mask&(mask+1) != 0 || raw.CQE < 0 || slots <= uintptr(raw.CQE),
		rxeQData+slots<<shift > size,
		*(*uint32)(unsafe.Add(q, rxeQProd)) > mask,
		*(*uint32)(unsafe.Add(q, rxeQCons)) > mask,
		atomic.LoadInt32((*int32)(lock)) != spinFree:
		return nil
	}
	return &rxeRing{queue: queue, lock: lock}
}

// uverbsMapping reports whether this process maps exactly [addr, addr+size)
// from an InfiniBand uverbs device, as librxe maps a ring.
func uverbsMapping(addr, size uintptr) bool {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return false
	}
	want := fmt.Sprintf("%x-%x ", addr, addr+size)
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, want) {
			continue
		}
		f := strings.Fields(line)
		return len(f) == 6 && strings.HasPrefix(f[5], "/dev/infiniband/uverbs")
	}
	return false
}
