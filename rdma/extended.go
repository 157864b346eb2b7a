package rdma

import (
	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
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
// CQ like any other (Poll, Wait, Await, Close) and also has PollEx and Ex.
func (d *Device) NewCQEx(n int, ch *CompChannel, wcFlags ibv.CreateCQWCFlags) (*CQ, error) {
	return d.newCQEx(n, ch, wcFlags, d.singleExPoll(), func(rawch *ibv.CompChannel) (*ibv.CQEx, error) {
		return d.ctx.CreateCQEx(&ibv.CQInitAttrEx{CQE: uint32(n), CQContext: ch.cqContext(), Channel: rawch, WCFlags: uint64(wcFlags)})
	})
}

// rxeVendorID is the vendor ID of the kernel's soft-RoCE driver.
const rxeVendorID = 0xffffff

// rxeNextPollFixed is the first rdma-core release whose librxe keeps a
// poll open when ibv_next_poll finds no more completion, as
// ibv_create_cq_ex(3) says. Before it librxe ends the poll itself (it
// stores the consumer index and unlocks the CQ), so the ibv_end_poll the
// page asks for then unlocks the CQ twice, and before 55 moves the
// consumer index past the producer's: the CQ then hands out stale entries
// as completions (rdma-core#1512, #1617; seen on 44 by TestExtendedVerbs).
const rxeNextPollFixed = 59

// singleExPoll reports whether PollEx must take one completion per
// ibv_start_poll ... ibv_end_poll on d, never calling ibv_next_poll: on
// rxe before rxeNextPollFixed (or when the release is unknown).
func (d *Device) singleExPoll() bool {
	attr, err := d.ctx.QueryDevice()
	if err != nil || attr.VendorID != rxeVendorID {
		return false
	}
	r, err := ibv.Release()
	return err != nil || r < rxeNextPollFixed
}

// newCQEx creates an extended CQ with create and wraps it, its ops for
// PollEx read once; one makes PollEx take a completion per poll (see
// singleExPoll).
func (d *Device) newCQEx(n int, ch *CompChannel, wcFlags ibv.CreateCQWCFlags, one bool, create func(*ibv.CompChannel) (*ibv.CQEx, error)) (*CQ, error) {
	cq, err := d.newCQ("rdma.Device.NewCQEx", n, ch, func(rawch *ibv.CompChannel) (*ibv.CQ, *ibv.CQEx, error) {
		ex, err := create(rawch)
		if err != nil {
			return nil, nil, err
		}
		return ibv.CQExToCQ(ex), ex, nil
	})
	if err != nil {
		return nil, err
	}
	cq.exOps, cq.exOne = ibv.FastPollCQExOps(cq.ex, wcFlags), one
	return cq, nil
}

// PollEx moves up to len(wcs) completions of an extended CQ (NewCQEx) into
// wcs and returns how many; 0 means the CQ was empty. Each ibv.WCEx holds
// the completion's wr_id and status and every field the CQ was created
// with (NewCQEx's wcFlags; the opcode, vendor error and flags always), the
// rest 0. It is one cgo crossing for the whole batch (ibv.FastPollCQEx):
// ibv_start_poll, the provider's getters of each completion,
// ibv_next_poll, ..., ibv_end_poll, all in C, where the same poll through
// Ex's methods crosses once per getter and per completion. It does not
// allocate; wcs may be any memory (ibv.WCEx holds no pointers). A CQ not
// made by NewCQEx is an error wrapping unix.EINVAL. An error of
// ibv_next_poll after completions were read is returned with them. On rxe
// before rdma-core 59, whose ibv_next_poll ends the poll itself (against
// ibv_create_cq_ex(3)), it takes one completion per ibv_start_poll ...
// ibv_end_poll instead, a crossing each.
func (cq *CQ) PollEx(wcs []ibv.WCEx) (int, error) {
	const op = "rdma.CQ.PollEx"
	if err := cq.use(op); err != nil {
		return 0, err
	}
	defer cq.done()
	if cq.ex == nil {
		return 0, invalid(op, "the CQ was not created by NewCQEx")
	}
	if len(wcs) == 0 {
		return 0, nil
	}
	// A copy: the trampoline writes its Err, and calls may run at once.
	ops := cq.exOps
	if ops.StartPoll == 0 || ops.NextPoll == 0 || ops.EndPoll == 0 {
		return 0, opErr(op, &ibv.NilOpError{Func: "ibv_start_poll", Op: "start_poll, next_poll or end_poll"})
	}
	if cq.exOne {
		// One completion per poll: ibv_next_poll is never called.
		k := 0
		for ; k < len(wcs); k++ {
			n := ibv.FastPollCQEx(&ops, cq.addr, 1, &wcs[k])
			if n < 0 && k == 0 {
				return 0, cerr.ZeroOrErrno("ibv_start_poll", -n)
			}
			if n <= 0 {
				break
			}
		}
		return k, nil
	}
	n := ibv.FastPollCQEx(&ops, cq.addr, int32(min(len(wcs), 1<<30)), &wcs[0])
	if n < 0 {
		return 0, cerr.ZeroOrErrno("ibv_start_poll", -n)
	}
	if ops.Err != 0 {
		return int(n), cerr.ZeroOrErrno("ibv_next_poll", ops.Err)
	}
	return int(n), nil
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
