package rdmacm

import (
	"errors"
	"syscall"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// GetSendComp is rdma_get_send_comp (rdma/rdma_verbs.h): wait for one
// completion on id's send CQ and store it in wc, arming the CQ and
// blocking on its completion channel when none is ready; it returns the
// number of completions (1). A failure is an *Error naming
// rdma_get_send_comp that unwraps to a positive errno: the C helper stores
// a failed poll's negative return in errno, which is normalised here.
func (id *CMID) GetSendComp(wc *ibv.WC) (int, error) {
	return getComp("rdma_get_send_comp", id.SendCQ, id.SendCQChannel, wc)
}

// GetRecvComp is rdma_get_recv_comp (rdma/rdma_verbs.h): [CMID.GetSendComp]
// on id's receive CQ.
func (id *CMID) GetRecvComp(wc *ibv.WC) (int, error) {
	return getComp("rdma_get_recv_comp", id.RecvCQ, id.RecvCQChannel, wc)
}

func getComp(fn string, cq *ibv.CQ, ch *ibv.CompChannel, wc *ibv.WC) (int, error) {
	for {
		if n, err := poll(fn, cq, wc); n != 0 || err != nil {
			return n, err
		}
		if err := cq.ReqNotify(0); err != nil {
			return 0, seterrno(fn, err)
		}
		if n, err := poll(fn, cq, wc); n != 0 || err != nil {
			return n, err
		}
		var evCQ *ibv.CQ
		var evCtx unsafe.Pointer
		if err := ch.GetCQEvent(&evCQ, &evCtx); err != nil {
			return 0, seterrno(fn, err)
		}
		cq.AckEvents(1)
	}
}

// poll polls one completion; a failure's negative result becomes errno
// negated, as rdma_seterrno leaves it, and CountOrMinusOneErrno normalises
// it.
func poll(fn string, cq *ibv.CQ, wc *ibv.WC) (int, error) {
	n, err := cq.Poll(1, wc)
	var e *cerr.Error
	if errors.As(err, &e) {
		return 0, cerr.CountOrMinusOneErrno(fn, -1, syscall.Errno(uint32(int32(e.Code))))
	}
	return n, err
}
