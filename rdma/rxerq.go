package rdma

// Receives of an rxe (soft-RoCE) QP, posted in Go with no cgo crossing.
//
// rxe's post_recv does no system call: it writes each work request into a
// ring that the kernel shares with the process (the receive queue, mmap'd
// from the uverbs device) and advances the ring's producer index; the
// kernel takes receives from it as messages arrive and advances the
// consumer index. So for an rxe QP, PostRecv does the same in Go, under the
// receive queue's pthread spinlock that librxe's post_recv holds, so that
// it interleaves safely with ibv_post_recv on QP.Raw from C. This is the
// receive-side twin of rxering.go (the CQ's ring) and checks what it reads
// the same way.
//
// The ring's format and the receive's are kernel ABI (struct
// rxe_queue_buf, struct rxe_recv_wqe, <rdma/rdma_user_rxe.h>); where librxe
// keeps the ring's address, size and lock is not: struct rxe_qp is private
// to the provider. rxeRQOf reads it only from a QP whose post_recv is
// librxe's, and checks it against the process's memory map, the ring's
// header and the QP's capabilities; on any mismatch PostRecv calls the
// provider as on every other device.

/*
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

// librxe's struct rxe_qp is a struct verbs_qp (a union of struct ibv_qp
// and struct ibv_qp_ex, which grows with rdma-core: 8 bytes more in 65
// than in 44; a comp_mask; an XRC domain pointer), then, for the receive
// queue and then the send queue, its struct mminfo and a struct rxe_wq:
// the ring's address, the pthread_spinlock_t that post_recv (post_send)
// holds, the most SGEs a work request takes, the inline size. Where the
// receive queue starts depends on the library's struct ibv_qp_ex, not on
// this header's: rxeRQOf looks for it from the end of struct ibv_qp on.
struct gv_rxe_wq_head {
	struct mminfo mi;
	void *queue;
	pthread_spinlock_t lock;
	unsigned int max_sge;
	unsigned int max_inline;
};

enum {
	gv_rxe_wq_mi_size = offsetof(struct gv_rxe_wq_head, mi) + offsetof(struct mminfo, size),
	gv_rxe_wq_queue = offsetof(struct gv_rxe_wq_head, queue),
	gv_rxe_wq_lock = offsetof(struct gv_rxe_wq_head, lock),
	gv_rxe_wq_max_sge = offsetof(struct gv_rxe_wq_head, max_sge),
	gv_rxe_wq_max_inline = offsetof(struct gv_rxe_wq_head, max_inline),
	gv_rxe_wq_size = sizeof(struct gv_rxe_wq_head),
	// Where the receive queue's struct mminfo may start: after struct
	// ibv_qp at the least, and at most 64 bytes after where this header's
	// struct verbs_qp would end.
	gv_rxe_qp_scan_from = (sizeof(struct ibv_qp) + 7) / 8 * 8,
	gv_rxe_qp_scan_to = sizeof(struct ibv_qp_ex) + 2 * sizeof(void *) + 64,
	gv_rxe_rwqe_size = sizeof(struct rxe_recv_wqe),
	gv_rxe_rwqe_dma = offsetof(struct rxe_recv_wqe, dma),
	gv_rxe_dma_sge = offsetof(struct rxe_dma_info, sge),
	gv_rxe_sge_size = sizeof(struct rxe_sge),
};
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// The layout of librxe's struct mminfo and struct rxe_wq, as rxeRQOf and
// rxeSQAt read them, and of an SGE in a ring's entry.
const (
	rxeWQLock      = C.gv_rxe_wq_lock
	rxeWQMaxSGE    = C.gv_rxe_wq_max_sge
	rxeWQMaxInline = C.gv_rxe_wq_max_inline
	rxeSGESize     = C.gv_rxe_sge_size
)

// rxeRQ posts into one rxe QP's receive queue. q points into the mapping
// librxe made at ibv_create_qp and unmaps at ibv_destroy_qp (QP.Close waits
// for every post to end); lock into the provider's struct rxe_qp.
type rxeRQ struct {
	q    unsafe.Pointer // struct rxe_queue_buf
	lock *spinlock
}

// rxeDMA is the start of struct rxe_dma_info, which a receive's SGEs follow.
type rxeDMA struct {
	length, resid, curSGE, numSGE, sgeOffset uint32
}

// rxeRQOf returns the poster into raw's receive queue when raw is an rxe QP
// (postRecvFn, its post_recv, is librxe's) and what librxe's struct rxe_qp
// holds checks out: found where struct verbs_qp may end, a receive queue
// and then a send queue, each a ring that is a mapping of the uverbs device
// of the recorded size, with a free glibc spinlock; the receive ring's
// header describes a ring that fits its mapping with room for the QP's
// receives, each of up to maxSGE SGEs. Otherwise nil: post through the
// provider. With it, the send queue's description, checked as far as
// rxeWQAt checks (rxeSQAt checks the rest).
func rxeRQOf(raw *ibv.QP, postRecvFn uintptr, maxWR, maxSGE uint32) (*rxeRQ, rxeWQ) {
	if runtime.GOARCH != "amd64" { // the lock protocol is x86-64 glibc's
		return nil, rxeWQ{}
	}
	if !isLibrxe(postRecvFn) {
		return nil, rxeWQ{}
	}
	if unsafe.Sizeof(ibv.SGE{}) != C.gv_rxe_sge_size || C.gv_rxe_rwqe_dma+C.gv_rxe_dma_sge != C.gv_rxe_rwqe_size {
		return nil, rxeWQ{}
	}
	base := unsafe.Pointer(raw)
	for off := uintptr(C.gv_rxe_qp_scan_from); off <= C.gv_rxe_qp_scan_to; off += 8 {
		rq := unsafe.Add(base, off)
		q, size, ok := rxeWQAt(rq)
		if !ok {
			continue
		}
		sq := rxeWQ{at: unsafe.Add(rq, C.gv_rxe_wq_size)}
		if sq.q, sq.size, ok = rxeWQAt(sq.at); !ok {
			return nil, rxeWQ{} // a ring, but not followed by the send queue's
		}
		lock := (*spinlock)(unsafe.Add(rq, C.gv_rxe_wq_lock))
		hasSGE := *(*uint32)(unsafe.Add(rq, C.gv_rxe_wq_max_sge))
		// The header is readable: [q, q+size) is mapped.
		shift, mask := *(*uint32)(q), *(*uint32)(unsafe.Add(q, rxeQMask))
		slots := uintptr(mask) + 1
		switch {
		case hasSGE < maxSGE || hasSGE > 1<<16,
			shift > 20 || uintptr(1)<<shift < C.gv_rxe_rwqe_size+uintptr(hasSGE)*C.gv_rxe_sge_size,
			mask&(mask+1) != 0 || slots <= uintptr(maxWR),
			rxeQData+slots<<shift > size,
			*(*uint32)(unsafe.Add(q, rxeQProd)) > mask,
			*(*uint32)(unsafe.Add(q, rxeQCons)) > mask:
			return nil, rxeWQ{}
		}
		return &rxeRQ{q: q, lock: lock}, sq
	}
	return nil, rxeWQ{}
}

// rxeWQ is a queue's description in librxe's struct rxe_qp, at at, and the
// ring it names (rxeWQAt).
type rxeWQ struct {
	at, q unsafe.Pointer
	size  uintptr
}

// rxeWQAt reads a struct mminfo and struct rxe_wq of librxe at p and
// returns the ring they describe, if the ring is a mapping of the uverbs
// device of the recorded size and the lock is a free glibc spinlock.
func rxeWQAt(p unsafe.Pointer) (q unsafe.Pointer, size uintptr, ok bool) {
	size = uintptr(*(*uint32)(unsafe.Add(p, C.gv_rxe_wq_mi_size)))
	q = *(*unsafe.Pointer)(unsafe.Add(p, C.gv_rxe_wq_queue))
	lock := (*int32)(unsafe.Add(p, C.gv_rxe_wq_lock))
	if q == nil || uintptr(q)%4096 != 0 || size < rxeQData || size%4096 != 0 || atomic.LoadInt32(lock) != spinFree {
		return nil, 0, false
	}
	return q, size, uverbsMapping(uintptr(q), size)
}

// postRecvRing is PostRecv. On a Direct QP it posts through the rxe
// receive queue, as librxe's post_recv posts and with its errors: EINVAL
// for a QP in RESET, nothing posted; ENOMEM at the first receive that
// finds the queue full, those before it posted. Otherwise it calls the
// provider. It is the whole post, the QP's use and done and PostRecv's
// checks included, in one function whose callees on the way to success are
// inlined, and which PostRecv's caller calls itself (PostRecv is inlined):
// in a busy-polled ping-pong under TCG this post runs after the kernel's
// work, when each call, return and branch costs many times what it costs
// in a tight loop (see ARCHITECTURE.md, "Busy polling").
func (q *QP) postRecvRing(ws []RecvWork) error {
	r := q.directRQ()
	if r == nil {
		return q.postRecvProvider(ws)
	}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return opErr("rdma.QP.PostRecv", ErrClosed)
	}
	bad := len(ws) == 0 || len(ws) > len(q.rwr)
	for i := range ws {
		bad = bad || len(ws[i].SGEs) > int(q.caps.MaxRecvSGE)
	}
	if bad {
		err := q.checkRecv(ws)
		q.mu.RUnlock()
		return err
	}
	// librxe's post_recv refuses a QP whose ibv_qp state is RESET, the
	// state that ibv_modify_qp records there.
	if q.qp.State == ibv.QPStateReset {
		q.mu.RUnlock()
		return &PostError{Err: cerr.ZeroOrErrno("ibv_post_recv", int32(syscall.EINVAL))}
	}
	qb := r.q
	shift := *(*uint32)(qb) // log2_elem_size
	mask := *(*uint32)(unsafe.Add(qb, rxeQMask))
	prodp := (*uint32)(unsafe.Add(qb, rxeQProd))
	consp := (*uint32)(unsafe.Add(qb, rxeQCons))
	data := unsafe.Add(qb, rxeQData)
	r.lock.acquire()
	prod := *prodp // only posters, under the lock, write it
	posted := 0
	for i := range ws {
		// The kernel stores the consumer index once it has taken a
		// receive (a release); this load is the acquire that pairs
		// with it: the slot is free to write.
		if (prod+1)&mask == atomic.LoadUint32(consp) {
			break
		}
		w := &ws[i]
		wqe := unsafe.Add(data, uintptr(prod)<<shift)
		*(*uint64)(wqe) = w.ID // wr_id
		var length uint32
		sges := unsafe.Add(wqe, C.gv_rxe_rwqe_dma+C.gv_rxe_dma_sge)
		for j := range w.SGEs {
			*(*ibv.SGE)(unsafe.Add(sges, uintptr(j)*C.gv_rxe_sge_size)) = w.SGEs[j]
			length += w.SGEs[j].Length
		}
		n := uint32(len(w.SGEs))
		*(*rxeDMA)(unsafe.Add(wqe, C.gv_rxe_rwqe_dma)) = rxeDMA{length: length, resid: length, numSGE: n}
		prod = (prod + 1) & mask
		posted++
	}
	if posted > 0 {
		// Release: the kernel reads the receives once it sees this.
		atomic.StoreUint32(prodp, prod)
	}
	r.lock.release()
	q.mu.RUnlock()
	if posted < len(ws) {
		return &PostError{Posted: posted, Err: cerr.ZeroOrErrno("ibv_post_recv", int32(syscall.ENOMEM))}
	}
	return nil
}

// directRQ is the receive queue PostRecv writes, nil unless the QP is
// Direct.
func (q *QP) directRQ() *rxeRQ {
	if q == nil {
		return nil
	}
	return q.rq.Load()
}

// Direct reports whether PostRecv, and on an RC or UC QP PostSend, write
// this QP's queues in Go instead of calling the provider through cgo. Only
// rxe QPs can (see SetDirect), on x86-64 with glibc, and they do unless
// SetDirect(false).
func (q *QP) Direct() bool { return q.directRQ() != nil }

// SetDirect chooses how PostRecv and PostSend reach the queues, and returns
// Direct. rxe (soft-RoCE) keeps both queues in rings that the kernel shares
// with the process: its post_recv only writes receives into one, its
// post_send writes sends into the other and then rings the kernel with a
// write(2) on the context's command fd. On rxe PostRecv and PostSend do the
// same in Go, under the locks librxe takes, so that no cgo crossing is paid
// per post (PostSend makes the same system call, without cgo); they still
// interleave safely with ibv_post_recv, ibv_post_send and the ibv_wr_* API
// on Raw from C, and fail as the provider does: ENOMEM when a queue is
// full, EINVAL for receives in RESET, for an inline send longer than the
// QP's inline size, and, from the kernel, for sends before the QP is ready
// to send (RTS), which stay queued. PostSend still calls the provider for a
// work request whose Op is not a send, send with immediate, RDMA write
// (with immediate) or RDMA read, and on a UD QP. With SetDirect(false), or
// on any other provider, each post is one call of the provider's function.
// Safe to call at any time, also during posts.
func (q *QP) SetDirect(on bool) bool {
	if q == nil {
		return false
	}
	if on {
		q.rq.Store(q.rxe)
		q.sq.Store(q.rxeSend)
	} else {
		q.rq.Store(nil)
		q.sq.Store(nil)
	}
	return q.Direct()
}
