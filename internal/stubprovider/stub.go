//go:build linux && cgo

package stubprovider

/*
#cgo CFLAGS: -O2
#cgo noescape gvs_noop_args
#cgo nocallback gvs_noop_args
#include <stdlib.h>
#include "stub.h"
*/
import "C"

import (
	"encoding/binary"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// Context is a stub device context: a struct verbs_context in C memory,
// marked extended (abi_compat), with the data-path ops set.
type Context struct {
	c    *C.struct_gvs_context
	size uintptr // of the struct verbs_context
}

// NewContext makes a context; Free frees it after every object made on it.
func NewContext() *Context {
	size := unsafe.Sizeof(ibv.VerbsContext{})
	c := &Context{c: C.gvs_context_new(C.size_t(size)), size: size}
	v := c.Verbs()
	v.Sz = uint64(size)
	*(*uintptr)(unsafe.Pointer(&v.Context.ABICompat)) = ^uintptr(0) // __VERBS_ABI_IS_EXTENDED
	return c
}

// Raw is the struct ibv_context.
func (c *Context) Raw() *ibv.Context { return (*ibv.Context)(unsafe.Pointer(c.c)) }

// Verbs is the struct verbs_context whose last member Raw is.
func (c *Context) Verbs() *ibv.VerbsContext {
	return (*ibv.VerbsContext)(unsafe.Add(unsafe.Pointer(c.c), -int(unsafe.Offsetof(ibv.VerbsContext{}.Context))))
}

// Free frees the context.
func (c *Context) Free() { C.gvs_context_free(c.c, C.size_t(c.size)) }

// CQConfig describes a CQ to make.
type CQConfig struct {
	Entries int  // rounded up to a power of two, at least 2
	Ex      bool // an extended CQ (struct ibv_cq_ex), with getters for WCFlags
	WCFlags ibv.CreateCQWCFlags
}

// CQ is a stub CQ. Its device completes the work of the QP made with it
// (QPConfig.SendCQ or RecvCQ): by ring slot, a send, a receive, an RDMA
// write and a receive with immediate data, in turn.
type CQ struct{ c *C.struct_gvs_cq }

// NewCQ makes a CQ on the context.
func (c *Context) NewCQ(cfg CQConfig) *CQ {
	ex := 0
	if cfg.Ex {
		ex = 1
	}
	return &CQ{C.gvs_cq_new(c.c, C.uint32_t(cfg.Entries), C.int(ex), C.uint64_t(cfg.WCFlags))}
}

// Raw is the struct ibv_cq.
func (cq *CQ) Raw() *ibv.CQ { return (*ibv.CQ)(unsafe.Pointer(cq.c)) }

// RawEx is the struct ibv_cq_ex (its ops are set for an extended CQ only).
func (cq *CQ) RawEx() *ibv.CQEx { return (*ibv.CQEx)(unsafe.Pointer(cq.c)) }

// Entries is the size of the CQ's ring.
func (cq *CQ) Entries() int { return int(cq.c.ncqe) }

// SetReady sets how many completions the device hands over before each
// poll (poll_cq, start_poll); 0 leaves the CQ empty.
func (cq *CQ) SetReady(k int) { cq.c.ready = C.uint32_t(k) }

// Complete has the device hand over k completions now (besides those
// SetReady hands over before each poll).
func (cq *CQ) Complete(k int) { C.gvs_cq_complete(cq.c, C.uint32_t(k)) }

// Polled is the number of completions the CQ has handed out.
func (cq *CQ) Polled() uint64 { return uint64(cq.c.polled) }

// Calls is the number of poll_cq and start_poll calls taken.
func (cq *CQ) Calls() uint64 { return uint64(cq.c.calls) }

// Arms is the number of req_notify_cq calls taken.
func (cq *CQ) Arms() uint64 { return uint64(cq.c.arms) }

// ArmRecord is the arm doorbell record as the device reads it.
func (cq *CQ) ArmRecord() uint32 { return be32(unsafe.Add(unsafe.Pointer(cq.c.dbrec), 4)) }

// ConsumerRecord is the consumer-index doorbell record.
func (cq *CQ) ConsumerRecord() uint32 { return be32(unsafe.Pointer(cq.c.dbrec)) }

// SetError makes ring slot i, when next handed over, an error entry of a
// requester with the given status byte and vendor error (a syndrome).
func (cq *CQ) SetError(i int, status uint8, vendorErr uint32) {
	e := &unsafe.Slice(cq.c.ring, cq.c.ncqe)[i]
	unsafe.Slice(cq.c.opcodes, cq.c.ncqe)[i] = C.GVS_CQE_REQ_ERR
	binary.BigEndian.PutUint32(unsafe.Slice((*byte)(unsafe.Pointer(&e.syndrome)), 4), uint32(status)<<24|vendorErr&0xffffff)
}

// Free frees the CQ, after the QPs that use it.
func (cq *CQ) Free() { C.gvs_cq_free(cq.c) }

// SRQ is a stub shared receive queue.
type SRQ struct{ c *C.struct_gvs_srq }

// NewSRQ makes an SRQ of at least maxWR work requests of maxSGE SGEs.
func (c *Context) NewSRQ(maxWR, maxSGE int) *SRQ {
	return &SRQ{C.gvs_srq_new(c.c, C.uint32_t(maxWR), C.uint32_t(maxSGE))}
}

// Raw is the struct ibv_srq.
func (s *SRQ) Raw() *ibv.SRQ { return (*ibv.SRQ)(unsafe.Pointer(s.c)) }

// Posted is the number of work requests the SRQ has taken.
func (s *SRQ) Posted() uint64 { return uint64(s.c.posted) }

// Doorbell is the SRQ's doorbell record: its WQE counter.
func (s *SRQ) Doorbell() uint32 { return be32(unsafe.Pointer(s.c.db)) }

// WRID is the wr_id kept for WQE slot i.
func (s *SRQ) WRID(i int) uint64 { return uint64(unsafe.Slice(s.c.wrid, s.c.max)[i]) }

// Slots is the number of WQE slots.
func (s *SRQ) Slots() int { return int(s.c.max) }

// WQE is the data segments of WQE slot i as the device reads them, up to
// the terminating one.
func (s *SRQ) WQE(i int) []ibv.SGE {
	p := unsafe.Add(unsafe.Pointer(s.c.buf), uintptr(i)*uintptr(s.c.stride)+unsafe.Sizeof(C.struct_gvs_srq_next_seg{}))
	return dataSegs(p, int(s.c.max_gs))
}

// Free frees the SRQ, after the QPs that use it.
func (s *SRQ) Free() { C.gvs_srq_free(s.c) }

// QPConfig describes a QP to make (an RC QP).
type QPConfig struct {
	SendCQ, RecvCQ         *CQ
	SRQ                    *SRQ
	MaxSend, MaxRecv       int
	MaxSendSGE, MaxRecvSGE int
	MaxInline              int
	Ex                     bool // with the extended send ops (struct ibv_qp_ex, ibv_wr_*)
}

// QP is a stub QP.
type QP struct{ c *C.struct_gvs_qp }

// NewQP makes a QP on the context; its CQs' devices complete its work.
func (c *Context) NewQP(cfg QPConfig) *QP {
	var scq, rcq *C.struct_gvs_cq
	var srq *C.struct_gvs_srq
	if cfg.SendCQ != nil {
		scq = cfg.SendCQ.c
	}
	if cfg.RecvCQ != nil {
		rcq = cfg.RecvCQ.c
	}
	if cfg.SRQ != nil {
		srq = cfg.SRQ.c
	}
	ex := 0
	if cfg.Ex {
		ex = 1
	}
	return &QP{C.gvs_qp_new(c.c, scq, rcq, srq, C.uint32_t(cfg.MaxSend), C.uint32_t(cfg.MaxRecv),
		C.uint32_t(cfg.MaxSendSGE), C.uint32_t(cfg.MaxRecvSGE), C.uint32_t(cfg.MaxInline), C.int(ex))}
}

// Raw is the struct ibv_qp.
func (q *QP) Raw() *ibv.QP { return (*ibv.QP)(unsafe.Pointer(q.c)) }

// RawEx is the struct ibv_qp_ex (its ops are set for an extended QP only).
func (q *QP) RawEx() *ibv.QPEx { return (*ibv.QPEx)(unsafe.Pointer(q.c)) }

// SendPosted and RecvPosted are the numbers of work requests the queues
// have taken.
func (q *QP) SendPosted() uint64 { return uint64(q.c.sq.posted) }
func (q *QP) RecvPosted() uint64 { return uint64(q.c.rq.posted) }

// SendDoorbell is the send doorbell record (the producer's basic-block
// counter); SendRegister the last eight bytes written to the doorbell
// register (a WQE's first eight, as the device reads them).
func (q *QP) SendDoorbell() uint32 { return be32(unsafe.Pointer(q.c.sq.db)) }
func (q *QP) SendRegister() uint64 { return uint64(*q.c.bf) }

// RecvDoorbell is the receive doorbell record (the producer counter).
func (q *QP) RecvDoorbell() uint32 { return be32(unsafe.Pointer(q.c.rq.db)) }

// SendHead is the number of send WQE basic blocks posted so far: the next
// WQE starts at block SendHead() modulo the ring.
func (q *QP) SendHead() int { return int(q.c.sq.cur_post) }

// SendWRID and RecvWRID are the wr_ids kept for a send WQE starting at
// basic block i, and for receive slot i.
func (q *QP) SendWRID(i int) uint64 {
	return uint64(unsafe.Slice(q.c.sq.wrid, q.c.sq.wqe_cnt)[i&int(q.c.sq.wqe_cnt-1)])
}
func (q *QP) RecvWRID(i int) uint64 {
	return uint64(unsafe.Slice(q.c.rq.wrid, q.c.rq.wqe_cnt)[i&int(q.c.rq.wqe_cnt-1)])
}

// SendWQE is the send WQE at basic block i as the device reads it.
type SendWQE struct {
	Opcode   uint8  // the stub's WQE opcode: OpSend, OpRDMAWrite, ...
	Index    uint16 // the WQE's basic-block counter
	QPN      uint32
	Segments int // 16-byte segments, the control segment included
	Signaled bool
	Imm      uint32 // as posted (network order)
	RAddr    uint64 // RDMA operations: the remote address and key
	RKey     uint32
	SGEs     []ibv.SGE
	Inline   []byte
}

// The stub's WQE opcodes.
const (
	OpRDMAWrite    = C.GVS_OP_RDMA_WRITE
	OpRDMAWriteImm = C.GVS_OP_RDMA_WRITE_IMM
	OpSend         = C.GVS_OP_SEND
	OpSendImm      = C.GVS_OP_SEND_IMM
	OpRDMARead     = C.GVS_OP_RDMA_READ
)

// SendWQEAt decodes the send WQE starting at basic block i (modulo the
// ring).
func (q *QP) SendWQEAt(i int) SendWQE {
	ring := unsafe.Slice((*byte)(unsafe.Pointer(q.c.sq.buf)), int(q.c.sq.wqe_cnt)*64)
	off := (i & int(q.c.sq.wqe_cnt-1)) * 64
	seg := func(k int) []byte { // the k-th 16-byte segment of the WQE
		o := (off + 16*k) % len(ring)
		return ring[o : o+16]
	}
	ctrl := seg(0)
	be := binary.BigEndian
	w := SendWQE{
		Opcode:   uint8(be.Uint32(ctrl[0:]) & 0xff),
		Index:    uint16(be.Uint32(ctrl[0:]) >> 8),
		QPN:      be.Uint32(ctrl[4:]) >> 8,
		Segments: int(be.Uint32(ctrl[4:]) & 0x3f),
		Signaled: ctrl[11]&0x08 != 0,
		Imm:      binary.NativeEndian.Uint32(ctrl[12:]),
	}
	k := 1
	switch w.Opcode {
	case OpRDMAWrite, OpRDMAWriteImm, OpRDMARead:
		r := seg(1)
		w.RAddr, w.RKey = be.Uint64(r[0:]), be.Uint32(r[8:])
		k++
	}
	if k < w.Segments && seg(k)[0]&0x80 != 0 { // inline: a byte count, then the data
		n := int(be.Uint32(seg(k)) &^ 0x80000000)
		for j := 4; len(w.Inline) < n; j++ {
			w.Inline = append(w.Inline, seg(k + j/16)[j%16])
		}
		return w
	}
	for ; k < w.Segments; k++ {
		d := seg(k)
		w.SGEs = append(w.SGEs, ibv.SGE{Length: be.Uint32(d[0:]), LKey: be.Uint32(d[4:]), Addr: be.Uint64(d[8:])})
	}
	return w
}

// RecvWQE is the data segments of receive slot i as the device reads
// them, up to the terminating one.
func (q *QP) RecvWQE(i int) []ibv.SGE {
	p := unsafe.Add(unsafe.Pointer(q.c.rq.buf), uintptr(i&int(q.c.rq.wqe_cnt-1))*uintptr(q.c.rq.stride))
	return dataSegs(p, int(q.c.rq.max_gs))
}

// Free frees the QP.
func (q *QP) Free() { C.gvs_qp_free(q.c) }

// dataSegs decodes up to max data segments at p, stopping at a
// terminating one (the invalid lkey).
func dataSegs(p unsafe.Pointer, max int) []ibv.SGE {
	b := unsafe.Slice((*byte)(p), 16*max)
	var out []ibv.SGE
	for k := 0; k < max; k++ {
		d := b[16*k:]
		s := ibv.SGE{Length: binary.BigEndian.Uint32(d[0:]), LKey: binary.BigEndian.Uint32(d[4:]), Addr: binary.BigEndian.Uint64(d[8:])}
		if s.LKey == C.GVS_INVALID_LKEY && s.Length == 0 {
			break
		}
		out = append(out, s)
	}
	return out
}

func be32(p unsafe.Pointer) uint32 {
	return binary.BigEndian.Uint32(unsafe.Slice((*byte)(p), 4))
}

// Alloc returns n zeroed bytes of C memory, 64-byte aligned; Free frees
// them.
func Alloc(n uintptr) unsafe.Pointer {
	p := C.aligned_alloc(64, C.size_t((n+63)&^63))
	if p == nil {
		panic("stubprovider: out of C memory")
	}
	clear(unsafe.Slice((*byte)(p), n))
	return p
}

// Free frees what Alloc returned.
func Free(p unsafe.Pointer) { C.free(p) }

// SendChain is n linked send work requests in C memory, each an op of one
// SGE of sgeLen bytes at addr+64*i (lkey), the last signaled; RDMA
// operations address raddr+64*i with rkey. Free it with Free(&chain[0]).
func SendChain(n int, op ibv.WROpcode, lkey uint32, addr uint64, sgeLen uint32, rkey uint32, raddr uint64) []ibv.SendWR {
	wsz, ssz := unsafe.Sizeof(ibv.SendWR{}), unsafe.Sizeof(ibv.SGE{})
	mem := Alloc(uintptr(n) * (wsz + ssz))
	wrs := unsafe.Slice((*ibv.SendWR)(mem), n)
	sges := unsafe.Slice((*ibv.SGE)(unsafe.Add(mem, uintptr(n)*wsz)), n)
	for i := range wrs {
		sges[i] = ibv.SGE{Addr: addr + 64*uint64(i), Length: sgeLen, LKey: lkey}
		wrs[i] = ibv.SendWR{WRID: uint64(i), SgList: &sges[i], NumSGE: 1, Opcode: op}
		if i == n-1 {
			wrs[i].SendFlags = uint32(ibv.SendFlagsSignaled)
		} else {
			wrs[i].Next = &wrs[i+1]
		}
		switch op {
		case ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeRDMARead:
			r := wrs[i].WR.RDMA()
			r.RemoteAddr, r.RKey = raddr+64*uint64(i), rkey
		}
	}
	return wrs
}

// RecvChain is n linked receive work requests in C memory, each of one SGE
// of sgeLen bytes at addr+sgeLen*i (lkey). Free it with Free(&chain[0]).
func RecvChain(n int, lkey uint32, addr uint64, sgeLen uint32) []ibv.RecvWR {
	wsz, ssz := unsafe.Sizeof(ibv.RecvWR{}), unsafe.Sizeof(ibv.SGE{})
	mem := Alloc(uintptr(n) * (wsz + ssz))
	wrs := unsafe.Slice((*ibv.RecvWR)(mem), n)
	sges := unsafe.Slice((*ibv.SGE)(unsafe.Add(mem, uintptr(n)*wsz)), n)
	for i := range wrs {
		sges[i] = ibv.SGE{Addr: addr + uint64(sgeLen)*uint64(i), Length: sgeLen, LKey: lkey}
		wrs[i] = ibv.RecvWR{WRID: uint64(i), SgList: &sges[i], NumSGE: 1}
		if i < n-1 {
			wrs[i].Next = &wrs[i+1]
		}
	}
	return wrs
}

// The C loops. Each does, iters times in one cgo call, what the Go
// benchmark it is compared with does once per iteration, calling the op
// as libibverbs' static inline does.

// Noop is one cgo call of an empty C function: the floor of any call.
func Noop() { C.gvs_noop() }

// NoopArgs is one cgo call of an empty C function of two integers and a
// pointer, declared noescape and nocallback: the shape of ibv's fast-path
// trampolines.
func NoopArgs(a, b uintptr, p *uint64) {
	C.gvs_noop_args(C.uintptr_t(a), C.uintptr_t(b), (*C.struct_gvs_mem)(unsafe.Pointer(p)))
}

// LoopPollCQ polls (ibv_poll_cq) up to n completions into wcs (C memory
// of at least n entries) iters times, and returns the completions taken
// (-1 on a failed poll).
func LoopPollCQ(cq *CQ, n int, wcs *ibv.WC, iters int) int64 {
	return int64(C.gvs_loop_poll_cq(cq.c, C.int(n), (*C.struct_gvs_wc)(unsafe.Pointer(wcs)), C.int64_t(iters)))
}

// LoopReqNotifyCQ arms the CQ (ibv_req_notify_cq, not solicited-only)
// iters times; -1 on a failure.
func LoopReqNotifyCQ(cq *CQ, iters int) int64 {
	return int64(C.gvs_loop_req_notify_cq(cq.c, C.int64_t(iters)))
}

// LoopPostSend posts the chain wrs (C memory, linked), iters times, each
// time first setting each work request's wr_id to the next of a counter
// from 0, and returns the work requests posted (-1 on a failure).
func LoopPostSend(q *QP, wrs []ibv.SendWR, iters int) int64 {
	return int64(C.gvs_loop_post_send(q.c, (*C.struct_gvs_send_wr)(unsafe.Pointer(&wrs[0])), C.int(len(wrs)), C.int64_t(iters)))
}

// LoopPostRecv is LoopPostSend for receives (ibv_post_recv).
func LoopPostRecv(q *QP, wrs []ibv.RecvWR, iters int) int64 {
	return int64(C.gvs_loop_post_recv(q.c, (*C.struct_gvs_recv_wr)(unsafe.Pointer(&wrs[0])), C.int(len(wrs)), C.int64_t(iters)))
}

// LoopPostSRQRecv is LoopPostRecv on an SRQ (ibv_post_srq_recv).
func LoopPostSRQRecv(s *SRQ, wrs []ibv.RecvWR, iters int) int64 {
	return int64(C.gvs_loop_post_srq_recv(s.c, (*C.struct_gvs_recv_wr)(unsafe.Pointer(&wrs[0])), C.int(len(wrs)), C.int64_t(iters)))
}

// WCEx is what the C loop of the extended CQ keeps of each completion: the
// wr_id and status, and every field of a CQ created with the standard
// fields (ibv.CreateCQWCFlagsStandard... see the benchmarks) and the
// completion time stamp.
type WCEx struct {
	WRID, CompletionTS                          uint64
	Status, Opcode, VendorErr, ByteLen, ImmData uint32
	QPNum, SrcQP, WCFlags, SLID                 uint32
	SL, DLIDPathBits                            uint8
}

// LoopPollEx polls the extended CQ iters times: ibv_start_poll, then for
// each completion, up to n, the wr_id and status and the read_* getters
// of every field into out[i] (C memory of at least n), ibv_next_poll,
// and at last ibv_end_poll. It returns the completions taken (-1 on a
// failure).
func LoopPollEx(cq *CQ, n int, out *WCEx, iters int) int64 {
	return int64(C.gvs_loop_poll_ex(cq.c, C.int(n), (*C.struct_gvs_wc_ex)(unsafe.Pointer(out)), C.int64_t(iters)))
}

// LoopWR posts n RDMA writes of 64 bytes with the extended API iters
// times: ibv_wr_start, then per work request wr_id and wr_flags (the last
// signaled), ibv_wr_rdma_write and ibv_wr_set_sge, then ibv_wr_complete.
// It returns the work requests posted (-1 on a failure).
func LoopWR(q *QP, n int, lkey uint32, addr uint64, iters int) int64 {
	return int64(C.gvs_loop_wr(q.c, C.int(n), C.uint32_t(lkey), C.uint64_t(addr), C.int64_t(iters)))
}
