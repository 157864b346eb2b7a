package rdma

// Sends of an rxe (soft-RoCE) QP, posted in Go with no cgo crossing.
//
// rxe's post_send writes each work request into the send queue, a ring
// that the kernel shares with the process (mmap'd from the uverbs device),
// under the queue's pthread spinlock, advances the producer index, and then
// rings the kernel: a write(2) on the context's command fd of an empty
// IB_USER_VERBS_CMD_POST_SEND for the QP, in which the kernel runs the QP's
// requester over what the ring holds. So for an rxe RC or UC QP, PostSend
// does the same in Go: the same ring writes under the same lock (so it
// interleaves with ibv_post_send and the ibv_wr_* API on QP.Raw from C),
// the same doorbell as a raw system call, the same errors. It is the send
// side of rxerq.go.
//
// The ring's entry (struct rxe_send_wqe), the doorbell command (struct
// ib_uverbs_cmd_hdr and struct ib_uverbs_post_send) and its response are
// kernel ABI (<rdma/rdma_user_rxe.h>, <rdma/ib_user_verbs.h>). What librxe
// writes into an entry is not, and was read from its post_send (rdma-core
// 44 and 65): the work request's header (the rest of struct rxe_send_wr
// zeroed), the remote address as iova, the DMA state, and the SGEs or, for
// an inline send, the data. librxe 44 also numbers each entry (ssn, a
// counter after its send queue); the kernel does not read the number for
// user QPs and librxe 65 no longer writes it, and nor does this.

/*
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

// librxe's doorbell: an IB_USER_VERBS_CMD_POST_SEND with no work requests,
// and room for its response.
struct gv_rxe_db {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send cmd;
	struct ib_uverbs_post_send_resp resp;
};

enum {
	gv_rxe_db_len = offsetof(struct gv_rxe_db, resp),
	gv_rxe_db_cmd = IB_USER_VERBS_CMD_POST_SEND,
	gv_rxe_db_in_words = offsetof(struct gv_rxe_db, resp) / 4,
	gv_rxe_db_out_words = sizeof(struct ib_uverbs_post_send_resp) / 4,
	gv_ibv_send_wr_size = sizeof(struct ibv_send_wr),

	gv_rxe_swr_size = sizeof(struct rxe_send_wr),
	gv_rxe_swr_opcode = offsetof(struct rxe_send_wr, opcode),
	gv_rxe_swr_flags = offsetof(struct rxe_send_wr, send_flags),
	gv_rxe_swr_imm = offsetof(struct rxe_send_wr, ex.imm_data),
	gv_rxe_swr_raddr = offsetof(struct rxe_send_wr, wr.rdma.remote_addr),
	gv_rxe_swr_rkey = offsetof(struct rxe_send_wr, wr.rdma.rkey),
	gv_rxe_swqe_state = offsetof(struct rxe_send_wqe, state),
	gv_rxe_swqe_iova = offsetof(struct rxe_send_wqe, iova),
	gv_rxe_swqe_dma = offsetof(struct rxe_send_wqe, dma),
	gv_rxe_swqe_data = offsetof(struct rxe_send_wqe, dma) + offsetof(struct rxe_dma_info, sge),
};
*/
import "C"

import (
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// rxeSQ posts into one rxe QP's send queue. q points into the mapping
// librxe made at ibv_create_qp and unmaps at ibv_destroy_qp (QP.Close waits
// for every post to end); lock into the provider's struct rxe_qp.
type rxeSQ struct {
	q         unsafe.Pointer // struct rxe_queue_buf
	lock      *spinlock
	maxInline uint32 // librxe's: what the kernel granted, at least as asked
	fd        uintptr
	db        *C.struct_gv_rxe_db
}

// rawDoorbellMax bounds the bytes of a batch for which PostSend rings the
// doorbell with a raw system call. The kernel runs the QP's requester
// inside the write: for a small batch that is short, and entering and
// leaving the scheduler's system-call state would cost as much as the cgo
// crossing this saves. For a larger one it may send hundreds of packets,
// and the write goes through the scheduler like any system call, so that
// the goroutine's processor can be handed to others meanwhile.
const rawDoorbellMax = 64 << 10

// rxeSQAt returns the poster into the send queue sq, found and checked by
// rxeRQOf right after the receive queue's (a ring of the uverbs device of
// the recorded size with a free lock), when the rest checks out: librxe's
// limits at least as asked, a header that fits the mapping with room for
// the QP's sends, each entry big enough for its SGEs and inline data. Only
// RC and UC QPs: a UD send needs an address handle, which SendWork does
// not carry. Otherwise nil.
func rxeSQAt(sq rxeWQ, raw *ibv.QP, typ ibv.QPType, caps ibv.QPCap) *rxeSQ {
	if typ != ibv.QPTypeRC && typ != ibv.QPTypeUC || sq.q == nil {
		return nil
	}
	p, q, size := sq.at, sq.q, sq.size
	hasSGE := *(*uint32)(unsafe.Add(p, rxeWQMaxSGE))
	hasInline := *(*uint32)(unsafe.Add(p, rxeWQMaxInline))
	shift, mask := *(*uint32)(q), *(*uint32)(unsafe.Add(q, rxeQMask))
	slots := uintptr(mask) + 1
	switch {
	case hasSGE < caps.MaxSendSGE || hasSGE > 1<<16,
		hasInline < caps.MaxInlineData || hasInline > 1<<20,
		shift > 24 || uintptr(1)<<shift < C.gv_rxe_swqe_data+max(uintptr(hasSGE)*rxeSGESize, uintptr(hasInline)),
		mask&(mask+1) != 0 || slots <= uintptr(caps.MaxSendWR),
		rxeQData+slots<<shift > size,
		*(*uint32)(unsafe.Add(q, rxeQProd)) > mask,
		*(*uint32)(unsafe.Add(q, rxeQCons)) > mask:
		return nil
	}
	s := &rxeSQ{q: q, lock: (*spinlock)(unsafe.Add(p, rxeWQLock)), maxInline: hasInline,
		fd: uintptr(raw.Context.CmdFD), db: new(C.struct_gv_rxe_db)}
	s.db.hdr.command = C.gv_rxe_db_cmd
	s.db.hdr.in_words = C.gv_rxe_db_in_words
	s.db.hdr.out_words = C.gv_rxe_db_out_words
	// The kernel writes the response here, inside the write(2): db is
	// never freed while s is reachable, and the Go heap does not move.
	s.db.cmd.response = C.__u64(uintptr(unsafe.Pointer(&s.db.resp)))
	s.db.cmd.qp_handle = C.__u32(raw.Handle)
	s.db.cmd.wqe_size = C.gv_ibv_send_wr_size
	return s
}

// rxeDirectOp reports whether op is one that PostSend writes into an rxe
// send queue itself: those SendWork describes in full. Any other goes
// through the provider.
func rxeDirectOp(op ibv.WROpcode) bool {
	switch op {
	case ibv.WROpcodeSend, ibv.WROpcodeSendWithImm, ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeRDMARead:
		return true
	}
	return false
}

// postSendRing is PostSend. On a Direct QP it posts through the rxe send
// queue, as librxe's post_send posts and with its errors: EINVAL at the
// first inline send longer than the QP's inline size, ENOMEM at the first
// send that finds the queue full, those before it posted; then the
// doorbell, whose failure (EINVAL for a QP not yet ready to send, whose
// sends stay queued) is reported instead, with those posted before a
// failed send. A batch with a work request that is not an rxeDirectOp, and
// any batch of a QP that is not Direct, goes to the provider. Like
// postRecvRing, it is the whole post, the QP's use and done and PostSend's
// checks included, in one function whose callees on the way to success are
// inlined, but for the system call, and which PostSend's caller calls
// itself (PostSend is inlined).
func (q *QP) postSendRing(ws []SendWork) error {
	s := q.directSQ()
	if s == nil {
		return q.postSendProvider(ws)
	}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return opErr("rdma.QP.PostSend", ErrClosed)
	}
	bad := len(ws) == 0 || len(ws) > len(q.swr)
	for i := range ws {
		if !rxeDirectOp(ws[i].Op) {
			q.mu.RUnlock()
			return q.postSendProvider(ws)
		}
		bad = bad || len(ws[i].SGEs) > int(q.caps.MaxSendSGE)
	}
	if bad {
		err := q.checkSend(ws)
		q.mu.RUnlock()
		return err
	}
	qb := s.q
	shift := *(*uint32)(qb) // log2_elem_size
	mask := *(*uint32)(unsafe.Add(qb, rxeQMask))
	prodp := (*uint32)(unsafe.Add(qb, rxeQProd))
	consp := (*uint32)(unsafe.Add(qb, rxeQCons))
	data := unsafe.Add(qb, rxeQData)
	var failed syscall.Errno
	var bytes uint64
	s.lock.acquire()
	prod := *prodp // only posters, under the lock, write it
	posted := 0
	for i := range ws {
		w := &ws[i]
		var length uint64
		for j := range w.SGEs {
			length += uint64(w.SGEs[j].Length)
		}
		inline := w.Flags&ibv.SendFlagsInline != 0
		if inline && length > uint64(s.maxInline) {
			failed = syscall.EINVAL
			break
		}
		// The kernel stores the consumer index once it has taken a
		// send (a release); this load is the acquire that pairs with
		// it: the slot is free to write.
		if (prod+1)&mask == atomic.LoadUint32(consp) {
			failed = syscall.ENOMEM
			break
		}
		wqe := unsafe.Add(data, uintptr(prod)<<shift)
		*(*[C.gv_rxe_swr_size]byte)(wqe) = [C.gv_rxe_swr_size]byte{}
		*(*uint64)(wqe) = w.ID // wr_id
		*(*uint32)(unsafe.Add(wqe, C.gv_rxe_swr_opcode)) = uint32(w.Op)
		*(*uint32)(unsafe.Add(wqe, C.gv_rxe_swr_flags)) = uint32(w.Flags)
		*(*uint32)(unsafe.Add(wqe, C.gv_rxe_swr_imm)) = w.Imm
		var iova uint64 // ibv_send_wr's wr.rdma.remote_addr, zeroed by fillSend for a send
		if w.Op != ibv.WROpcodeSend && w.Op != ibv.WROpcodeSendWithImm {
			iova = w.RemoteAddr
			*(*uint64)(unsafe.Add(wqe, C.gv_rxe_swr_raddr)) = w.RemoteAddr
			*(*uint32)(unsafe.Add(wqe, C.gv_rxe_swr_rkey)) = w.RKey
		}
		*(*uint32)(unsafe.Add(wqe, C.gv_rxe_swqe_state)) = 0
		*(*uint64)(unsafe.Add(wqe, C.gv_rxe_swqe_iova)) = iova
		dst := unsafe.Add(wqe, C.gv_rxe_swqe_data)
		if inline {
			for j := range w.SGEs {
				n := uintptr(w.SGEs[j].Length)
				copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(sgeAddr(&w.SGEs[j])), n))
				dst = unsafe.Add(dst, n)
			}
		} else {
			for j := range w.SGEs {
				*(*ibv.SGE)(unsafe.Add(dst, uintptr(j)*rxeSGESize)) = w.SGEs[j]
			}
		}
		*(*rxeDMA)(unsafe.Add(wqe, C.gv_rxe_swqe_dma)) = rxeDMA{length: uint32(length), resid: uint32(length), numSGE: uint32(len(w.SGEs))}
		prod = (prod + 1) & mask
		posted++
		bytes += length
	}
	if posted > 0 {
		// Release: the kernel reads the sends once it sees this.
		atomic.StoreUint32(prodp, prod)
	}
	s.lock.release()
	// librxe rings even when nothing was posted: the kernel runs the QP's
	// requester over the sends in the ring.
	var n uintptr
	var errno syscall.Errno
	if bytes <= rawDoorbellMax {
		n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, s.fd, uintptr(unsafe.Pointer(s.db)), C.gv_rxe_db_len)
	} else {
		n, errno = s.ringBlocking()
	}
	q.mu.RUnlock()
	if errno == 0 && n != C.gv_rxe_db_len {
		errno = syscall.EIO // a short write of a command: never seen
	}
	if errno != 0 {
		if failed == 0 {
			posted = 0 // librxe reports no failed work request then
		}
		return &PostError{Posted: posted, Err: cerr.ZeroOrErrno("ibv_post_send", int32(errno))}
	}
	if failed != 0 {
		return &PostError{Posted: posted, Err: cerr.ZeroOrErrno("ibv_post_send", int32(failed))}
	}
	return nil
}

// ringBlocking is the doorbell of a large batch, through the scheduler's
// system-call bookkeeping (see rawDoorbellMax).
func (s *rxeSQ) ringBlocking() (uintptr, syscall.Errno) {
	n, _, errno := syscall.Syscall(syscall.SYS_WRITE, s.fd, uintptr(unsafe.Pointer(s.db)), C.gv_rxe_db_len)
	return n, errno
}

// sgeAddr is the address an SGE holds, as a pointer: an inline send's data,
// which the caller owns (as C's post_send reads it, so does this).
func sgeAddr(sge *ibv.SGE) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&sge.Addr))
}

// directSQ is the send queue PostSend writes, nil unless the QP is Direct
// and its sends can be written (an RC or UC QP).
func (q *QP) directSQ() *rxeSQ {
	if q == nil {
		return nil
	}
	return q.sq.Load()
}
