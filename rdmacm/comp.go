package rdmacm

import (
	"errors"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// GetSendComp is rdma_get_send_comp (rdma/rdma_verbs.h): wait for one
// completion on the id's send CQ and return it, arming the CQ and blocking
// on its completion channel when none is ready (the C function stores it
// in wc and returns the count, 1). A failure is an *Error naming
// rdma_get_send_comp that unwraps to a positive errno: the C helper stores
// a failed poll's negative return in errno, which is normalised here.
func (cmid *CMID) GetSendComp() (ibv.WC, error) {
	return getComp("rdma_get_send_comp", cmid.SendCQ, cmid.SendCQChannel)
}

// GetRecvComp is rdma_get_recv_comp (rdma/rdma_verbs.h): [CMID.GetSendComp]
// on the id's receive CQ.
func (cmid *CMID) GetRecvComp() (ibv.WC, error) {
	return getComp("rdma_get_recv_comp", cmid.RecvCQ, cmid.RecvCQChannel)
}

func getComp(fn string, cq *ibv.CQ, ch *ibv.CompChannel) (ibv.WC, error) {
	var wc ibv.WC
	for {
		if n, err := poll(fn, cq, &wc); n != 0 || err != nil {
			return wc, err
		}
		if err := cq.ReqNotify(false); err != nil {
			return wc, seterrno(fn, err)
		}
		if n, err := poll(fn, cq, &wc); n != 0 || err != nil {
			return wc, err
		}
		if _, _, err := ch.GetCQEvent(); err != nil {
			return wc, seterrno(fn, err)
		}
		cq.AckEvents(1)
	}
}

// poll polls one completion into wc; a failure's negative result becomes
// errno negated, as rdma_seterrno leaves it, and CountOrMinusOneErrno
// normalises it.
func poll(fn string, cq *ibv.CQ, wc *ibv.WC) (int, error) {
	n, err := cq.Poll(unsafe.Slice(wc, 1))
	var e *cerr.Error
	if errors.As(err, &e) {
		return 0, cerr.CountOrMinusOneErrno(fn, -1, syscall.Errno(uint32(int32(e.Code))))
	}
	return n, err
}
