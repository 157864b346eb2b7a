package rdmacm

/*
#include <stdlib.h>
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// The rdma_post_* helpers of rdma/rdma_verbs.h are static inlines that
// build one work request and post it with ibv_post_send or ibv_post_recv;
// here the request and its scatter/gather list live in C memory for the
// call (C never sees Go memory holding pointers), and a failure is an
// *Error naming the helper that unwraps to the errno, as rdma_seterrno
// moves the verbs return code into errno.

// sendWR allocates a zeroed ibv_send_wr followed by n SGEs in C memory,
// copies sgl there and links it; free releases both.
func sendWR(sgl []ibv.SGE) (wr *ibv.SendWR, free func()) {
	n := len(sgl)
	p := C.calloc(1, C.size_t(unsafe.Sizeof(ibv.SendWR{})+uintptr(n)*unsafe.Sizeof(ibv.SGE{})))
	wr = (*ibv.SendWR)(p)
	if n > 0 {
		s := unsafe.Slice((*ibv.SGE)(unsafe.Add(p, unsafe.Sizeof(ibv.SendWR{}))), n)
		copy(s, sgl)
		wr.SgList, wr.NumSGE = &s[0], int32(n)
	}
	return wr, func() { C.free(p) }
}

// recvWR is sendWR for an ibv_recv_wr.
func recvWR(sgl []ibv.SGE) (wr *ibv.RecvWR, free func()) {
	n := len(sgl)
	p := C.calloc(1, C.size_t(unsafe.Sizeof(ibv.RecvWR{})+uintptr(n)*unsafe.Sizeof(ibv.SGE{})))
	wr = (*ibv.RecvWR)(p)
	if n > 0 {
		s := unsafe.Slice((*ibv.SGE)(unsafe.Add(p, unsafe.Sizeof(ibv.RecvWR{}))), n)
		copy(s, sgl)
		wr.SgList, wr.NumSGE = &s[0], int32(n)
	}
	return wr, func() { C.free(p) }
}

// seterrno is rdma_seterrno for Go errors: the verbs failure err, reported
// as a failure of the helper fn (-1 with the same errno). Other errors (a
// provider op missing) pass through.
func seterrno(fn string, err error) error {
	var e *cerr.Error
	if errors.As(err, &e) {
		return &cerr.Error{Func: fn, Errno: e.Errno, Code: -1}
	}
	return err
}

// sge is the one-entry list of the non-v helpers: lkey from mr, 0 without.
func sge(addr unsafe.Pointer, length uint64, mr *ibv.MR) []ibv.SGE {
	s := ibv.SGE{Addr: uint64(uintptr(addr)), Length: uint32(length)}
	if mr != nil {
		s.LKey = mr.LKey
	}
	return []ibv.SGE{s}
}

func (id *CMID) postSend(fn string, wrID uint64, sgl []ibv.SGE, op ibv.WROpcode, flags ibv.SendFlags, set func(*ibv.SendWR)) error {
	wr, free := sendWR(sgl)
	defer free()
	wr.WRID, wr.Opcode, wr.SendFlags = wrID, op, uint32(flags)
	if set != nil {
		set(wr)
	}
	var bad *ibv.SendWR
	return seterrno(fn, id.QP.PostSend(wr, &bad))
}

// PostSend is rdma_post_send (rdma/rdma_verbs.h): post one send of length
// bytes at addr (registered memory, mr's lkey) on id's QP; wrID comes back
// in the completion. flags are ibv_send_flags ([ibv.SendFlagsSignaled] for a
// completion).
func (id *CMID) PostSend(wrID uint64, addr unsafe.Pointer, length uint64, mr *ibv.MR, flags ibv.SendFlags) error {
	return id.postSend("rdma_post_send", wrID, sge(addr, length, mr), ibv.WROpcodeSend, flags, nil)
}

// PostSendv is rdma_post_sendv (rdma/rdma_verbs.h): [CMID.PostSend] of a
// scatter/gather list (copied to C memory for the call).
func (id *CMID) PostSendv(wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags) error {
	return id.postSend("rdma_post_sendv", wrID, sgl, ibv.WROpcodeSend, flags, nil)
}

// PostUDSend is rdma_post_ud_send (rdma/rdma_verbs.h): [CMID.PostSend] on
// an unreliable-datagram QP to remoteQPN through ah, with the rdmacm qkey
// RDMA_UDP_QKEY.
func (id *CMID) PostUDSend(wrID uint64, addr unsafe.Pointer, length uint64, mr *ibv.MR, flags ibv.SendFlags, ah *ibv.AH, remoteQPN uint32) error {
	return id.postSend("rdma_post_ud_send", wrID, sge(addr, length, mr), ibv.WROpcodeSend, flags, func(wr *ibv.SendWR) {
		ud := wr.WR.UD()
		ud.AH, ud.RemoteQPN, ud.RemoteQKey = ah, remoteQPN, uint32(UDPQKey)
	})
}

// PostWrite is rdma_post_write (rdma/rdma_verbs.h): post an RDMA write of
// length bytes at addr to remoteAddr of the peer's region with rkey.
func (id *CMID) PostWrite(wrID uint64, addr unsafe.Pointer, length uint64, mr *ibv.MR, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return id.rdma("rdma_post_write", ibv.WROpcodeRDMAWrite, wrID, sge(addr, length, mr), flags, remoteAddr, rkey)
}

// PostWritev is rdma_post_writev (rdma/rdma_verbs.h): [CMID.PostWrite] of a
// scatter/gather list.
func (id *CMID) PostWritev(wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return id.rdma("rdma_post_writev", ibv.WROpcodeRDMAWrite, wrID, sgl, flags, remoteAddr, rkey)
}

// PostRead is rdma_post_read (rdma/rdma_verbs.h): post an RDMA read of
// length bytes from remoteAddr of the peer's region with rkey into addr.
func (id *CMID) PostRead(wrID uint64, addr unsafe.Pointer, length uint64, mr *ibv.MR, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return id.rdma("rdma_post_read", ibv.WROpcodeRDMARead, wrID, sge(addr, length, mr), flags, remoteAddr, rkey)
}

// PostReadv is rdma_post_readv (rdma/rdma_verbs.h): [CMID.PostRead] into a
// scatter/gather list.
func (id *CMID) PostReadv(wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return id.rdma("rdma_post_readv", ibv.WROpcodeRDMARead, wrID, sgl, flags, remoteAddr, rkey)
}

func (id *CMID) rdma(fn string, op ibv.WROpcode, wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return id.postSend(fn, wrID, sgl, op, flags, func(wr *ibv.SendWR) {
		r := wr.WR.RDMA()
		r.RemoteAddr, r.RKey = remoteAddr, rkey
	})
}

// PostRecv is rdma_post_recv (rdma/rdma_verbs.h): post one receive buffer
// of length bytes at addr (registered memory, mr's lkey) on id's SRQ if it
// has one, else on its QP.
func (id *CMID) PostRecv(wrID uint64, addr unsafe.Pointer, length uint64, mr *ibv.MR) error {
	return id.postRecv("rdma_post_recv", wrID, sge(addr, length, mr))
}

// PostRecvv is rdma_post_recvv (rdma/rdma_verbs.h): [CMID.PostRecv] of a
// scatter/gather list.
func (id *CMID) PostRecvv(wrID uint64, sgl []ibv.SGE) error {
	return id.postRecv("rdma_post_recvv", wrID, sgl)
}

func (id *CMID) postRecv(fn string, wrID uint64, sgl []ibv.SGE) error {
	wr, free := recvWR(sgl)
	defer free()
	wr.WRID = wrID
	var bad *ibv.RecvWR
	if id.SRQ != nil {
		return seterrno(fn, id.SRQ.PostRecv(wr, &bad))
	}
	return seterrno(fn, id.QP.PostRecv(wr, &bad))
}
