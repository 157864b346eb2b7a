package rdma

import (
	"github.com/goverbs/goverbs/ibv"
)

// The extended verbs (ibv_wr_* on a QP, ibv_start_poll on a CQ) are the
// generated ibv.QPEx and ibv.CQEx methods; this file hands them out for
// resources created here. They go around this package's locks: do not use
// them concurrently with Close, and keep the cgo rules for what they take.

// Ex is the QP's extended send interface (ibv_qp_to_qp_ex), for a QP made
// with QPConfig.SendOps: ibv_wr_start, ibv_wr_send, ibv_wr_set_sge, ...,
// ibv_wr_complete as (*ibv.QPEx).Start, Send, SetSGE, Complete. Any other
// QP is an error wrapping unix.EINVAL.
func (q *QP) Ex() (*ibv.QPEx, error) {
	const op = "rdma.QP.Ex"
	if err := q.use(op); err != nil {
		return nil, err
	}
	defer q.done()
	if q.sendOps == 0 {
		return nil, invalid(op, "the QP was created without QPConfig.SendOps")
	}
	return q.qp.ToQPEx()
}

// NewCQEx creates an extended CQ (ibv_create_cq_ex) of at least n entries
// whose completions carry the fields in wcFlags, optionally on ch. It is a
// CQ like any other (Poll, Wait, Await, Close) and also has Ex.
func (d *Device) NewCQEx(n int, ch *CompChannel, wcFlags ibv.CreateCQWCFlags) (*CQ, error) {
	return d.newCQ("rdma.Device.NewCQEx", n, ch, func(rawch *ibv.CompChannel) (*ibv.CQ, *ibv.CQEx, error) {
		ex, err := d.ctx.CreateCQEx(&ibv.CQInitAttrEx{CQE: uint32(n), CQContext: ch.cqContext(), Channel: rawch, WCFlags: uint64(wcFlags)})
		if err != nil {
			return nil, nil, err
		}
		return ibv.CQExToCQ(ex), ex, nil
	})
}

// Ex is the CQ's extended poll interface, for a CQ made by NewCQEx:
// ibv_start_poll, ibv_next_poll, ibv_end_poll and the ibv_wc_read_* as
// (*ibv.CQEx).CallStartPoll, CallNextPoll, CallEndPoll, WCRead*. Any other
// CQ is an error wrapping unix.EINVAL.
func (cq *CQ) Ex() (*ibv.CQEx, error) {
	const op = "rdma.CQ.Ex"
	if err := cq.use(op); err != nil {
		return nil, err
	}
	defer cq.done()
	if cq.ex == nil {
		return nil, invalid(op, "the CQ was not created by NewCQEx")
	}
	return cq.ex, nil
}
