package rdmacm

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
//
// Memory: buf (and the memory each SGE of a list names) must lie in memory
// registered with mr (or the SGE's lkey) — mmap'd or C memory, or pinned Go
// memory — and stay valid until the work request completes: the device
// reads or writes it after the call returns.

// sendWR allocates a zeroed ibv_send_wr followed by n SGEs in C memory,
// copies sgl there and links it; free releases both.
func sendWR(sgl []ibv.SGE) (wr *ibv.SendWR, free func()) {
	n := len(sgl)
	p := cAlloc(unsafe.Sizeof(ibv.SendWR{}) + uintptr(n)*unsafe.Sizeof(ibv.SGE{}))
	wr = (*ibv.SendWR)(p)
	if n > 0 {
		s := unsafe.Slice((*ibv.SGE)(unsafe.Add(p, unsafe.Sizeof(ibv.SendWR{}))), n)
		copy(s, sgl)
		wr.SgList, wr.NumSGE = &s[0], int32(n)
	}
	return wr, func() { cFree(p) }
}

// recvWR is sendWR for an ibv_recv_wr.
func recvWR(sgl []ibv.SGE) (wr *ibv.RecvWR, free func()) {
	n := len(sgl)
	p := cAlloc(unsafe.Sizeof(ibv.RecvWR{}) + uintptr(n)*unsafe.Sizeof(ibv.SGE{}))
	wr = (*ibv.RecvWR)(p)
	if n > 0 {
		s := unsafe.Slice((*ibv.SGE)(unsafe.Add(p, unsafe.Sizeof(ibv.RecvWR{}))), n)
		copy(s, sgl)
		wr.SgList, wr.NumSGE = &s[0], int32(n)
	}
	return wr, func() { cFree(p) }
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

// sge is the one-entry list of the non-v helpers over buf: lkey from mr,
// 0 without.
func sge(buf []byte, mr *ibv.MR) []ibv.SGE {
	s := ibv.SGE{Addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))), Length: uint32(len(buf))}
	if mr != nil {
		s.LKey = mr.LKey
	}
	return []ibv.SGE{s}
}

func (cmid *CMID) postSend(fn string, wrID uint64, sgl []ibv.SGE, op ibv.WROpcode, flags ibv.SendFlags, set func(*ibv.SendWR)) error {
	wr, free := sendWR(sgl)
	defer free()
	wr.WRID, wr.Opcode, wr.SendFlags = wrID, op, uint32(flags)
	if set != nil {
		set(wr)
	}
	_, err := cmid.QP.PostSend(wr)
	return seterrno(fn, err)
}

// PostSend is rdma_post_send (rdma/rdma_verbs.h): post one send of buf
// (registered memory, mr's lkey) on id's QP; wrID comes back
// in the completion. flags are ibv_send_flags ([ibv.SendFlagsSignaled] for a
// completion).
func (cmid *CMID) PostSend(wrID uint64, buf []byte, mr *ibv.MR, flags ibv.SendFlags) error {
	return cmid.postSend("rdma_post_send", wrID, sge(buf, mr), ibv.WROpcodeSend, flags, nil)
}

// PostSendv is rdma_post_sendv (rdma/rdma_verbs.h): [CMID.PostSend] of a
// scatter/gather list (copied to C memory for the call).
func (cmid *CMID) PostSendv(wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags) error {
	return cmid.postSend("rdma_post_sendv", wrID, sgl, ibv.WROpcodeSend, flags, nil)
}

// PostUDSend is rdma_post_ud_send (rdma/rdma_verbs.h): [CMID.PostSend] on
// an unreliable-datagram QP to remoteQPN through ah, with the rdmacm qkey
// RDMA_UDP_QKEY.
func (cmid *CMID) PostUDSend(wrID uint64, buf []byte, mr *ibv.MR, flags ibv.SendFlags, ah *ibv.AH, remoteQPN uint32) error {
	return cmid.postSend("rdma_post_ud_send", wrID, sge(buf, mr), ibv.WROpcodeSend, flags, func(wr *ibv.SendWR) {
		ud := wr.WR.UD()
		ud.AH, ud.RemoteQPN, ud.RemoteQKey = ah, remoteQPN, uint32(UDPQKey)
	})
}

// PostWrite is rdma_post_write (rdma/rdma_verbs.h): post an RDMA write of
// buf to remoteAddr of the peer's region with rkey.
func (cmid *CMID) PostWrite(wrID uint64, buf []byte, mr *ibv.MR, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return cmid.rdma("rdma_post_write", ibv.WROpcodeRDMAWrite, wrID, sge(buf, mr), flags, remoteAddr, rkey)
}

// PostWritev is rdma_post_writev (rdma/rdma_verbs.h): [CMID.PostWrite] of a
// scatter/gather list.
func (cmid *CMID) PostWritev(wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return cmid.rdma("rdma_post_writev", ibv.WROpcodeRDMAWrite, wrID, sgl, flags, remoteAddr, rkey)
}

// PostRead is rdma_post_read (rdma/rdma_verbs.h): post an RDMA read of
// len(buf) bytes from remoteAddr of the peer's region with rkey into buf.
func (cmid *CMID) PostRead(wrID uint64, buf []byte, mr *ibv.MR, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return cmid.rdma("rdma_post_read", ibv.WROpcodeRDMARead, wrID, sge(buf, mr), flags, remoteAddr, rkey)
}

// PostReadv is rdma_post_readv (rdma/rdma_verbs.h): [CMID.PostRead] into a
// scatter/gather list.
func (cmid *CMID) PostReadv(wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return cmid.rdma("rdma_post_readv", ibv.WROpcodeRDMARead, wrID, sgl, flags, remoteAddr, rkey)
}

func (cmid *CMID) rdma(fn string, op ibv.WROpcode, wrID uint64, sgl []ibv.SGE, flags ibv.SendFlags, remoteAddr uint64, rkey uint32) error {
	return cmid.postSend(fn, wrID, sgl, op, flags, func(wr *ibv.SendWR) {
		r := wr.WR.RDMA()
		r.RemoteAddr, r.RKey = remoteAddr, rkey
	})
}

// PostRecv is rdma_post_recv (rdma/rdma_verbs.h): post one receive buffer
// buf (registered memory, mr's lkey) on the id's SRQ if it
// has one, else on its QP.
func (cmid *CMID) PostRecv(wrID uint64, buf []byte, mr *ibv.MR) error {
	return cmid.postRecv("rdma_post_recv", wrID, sge(buf, mr))
}

// PostRecvv is rdma_post_recvv (rdma/rdma_verbs.h): [CMID.PostRecv] of a
// scatter/gather list.
func (cmid *CMID) PostRecvv(wrID uint64, sgl []ibv.SGE) error {
	return cmid.postRecv("rdma_post_recvv", wrID, sgl)
}

func (cmid *CMID) postRecv(fn string, wrID uint64, sgl []ibv.SGE) error {
	wr, free := recvWR(sgl)
	defer free()
	wr.WRID = wrID
	var err error
	if cmid.SRQ != nil {
		_, err = cmid.SRQ.PostRecv(wr)
	} else {
		_, err = cmid.QP.PostRecv(wr)
	}
	return seterrno(fn, err)
}
