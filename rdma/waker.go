package rdma

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// waker lets CompChannel.WaitBlocking block where a C program blocks: in
// ibv_get_cq_event's read(2) on the channel's fd, with no poll(2) before
// it. Nothing but an event wakes a thread in that read (Go installs its
// signal handlers with SA_RESTART, so a signal only restarts it), so the
// waker raises one: a CQ of its own on the channel, armed, and an RC QP
// with one receive posted. Moving the QP to the error state flushes the
// receive (every verbs provider must), the flush completes on the CQ, and
// the CQ's event wakes the reader, which sees the waker's cq_context and
// returns "woken". Each wake costs a re-arm before the next wait (reset,
// init, post, ibv_req_notify_cq); a wait with nothing to wake costs
// nothing.
//
// The waker is made on a channel's first WaitBlocking, on the channel's
// device, and destroyed by the channel's Close before the channel. Where
// it cannot be made, WaitBlocking waits in poll(2) on the fd and an
// eventfd instead.
type waker struct {
	mu  sync.Mutex // serialises the QP's state changes, and every write below
	pd  *ibv.PD
	cq  *ibv.CQ
	qp  *ibv.QP
	mem unsafe.Pointer // C memory: the receive's work request; its address is the CQ's cq_context
	// armed: a receive is posted in INIT and the CQ requested its next
	// event. Read without mu by arm's fast path (once per wait).
	armed atomic.Bool
	state ibv.QPState
}

// newWaker makes a waker for channel ch of device context ctx (see waker).
func newWaker(ctx *ibv.Context, ch *ibv.CompChannel) (k *waker, err error) {
	k = &waker{mem: cAlloc(unsafe.Sizeof(ibv.RecvWR{})), state: ibv.QPStateReset}
	defer func() {
		if err != nil {
			k.destroy()
			k = nil
		}
	}()
	if k.pd, err = ctx.AllocPD(); err != nil {
		return k, err
	}
	if k.cq, err = ctx.CreateCQ(2, k.mem, ch, 0); err != nil {
		return k, err
	}
	k.qp, err = k.pd.CreateQP(&ibv.QPInitAttr{SendCQ: k.cq, RecvCQ: k.cq, QPType: ibv.QPTypeRC,
		Cap: ibv.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		return k, err
	}
	*(*ibv.RecvWR)(k.mem) = ibv.RecvWR{WRID: 1} // no SGE: it receives nothing
	return k, k.check()
}

// wakerCheckFor is how long newWaker waits for its test wake's flush.
const wakerCheckFor = 2 * time.Second

// check proves the mechanism on this device before WaitBlocking relies on
// it: armed and woken once, the waker's receive must be flushed onto its
// CQ (the CQ's event, for which it is armed, then follows: the first wait
// takes it and waits again). Without the flush, cancellation and Close
// could not wake a wait, so the caller waits in poll(2) instead.
func (k *waker) check() error {
	if err := k.arm(); err != nil {
		return err
	}
	k.wake()
	var wc [1]ibv.WC
	for deadline := time.Now().Add(wakerCheckFor); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		n, err := k.cq.Poll(wc[:])
		if err != nil {
			return err
		}
		if n == 1 {
			return nil
		}
	}
	return errors.New("rdma: the waker's receive was not flushed")
}

// arm readies the waker for a wake, unless it is ready: the QP back to
// INIT through RESET, a receive posted, the CQ's next event requested.
func (k *waker) arm() error {
	if k.armed.Load() {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.armed.Load() || k.qp == nil {
		return nil
	}
	if k.state != ibv.QPStateReset {
		if err := k.qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateReset}, ibv.QPAttrMaskState); err != nil {
			return err
		}
		k.state = ibv.QPStateReset
	}
	if err := k.qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1},
		ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags); err != nil {
		return err
	}
	k.state = ibv.QPStateInit
	if _, err := k.qp.PostRecv((*ibv.RecvWR)(k.mem)); err != nil {
		return err
	}
	if err := k.cq.ReqNotify(false); err != nil {
		return err
	}
	k.armed.Store(true)
	return nil
}

// wake raises the waker's event, if it is armed (else one is on its way
// already, or arm has yet to run, and the waiter checks for what it was
// woken for after arm).
func (k *waker) wake() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.armed.Load() || k.qp == nil {
		return
	}
	if k.qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState) == nil {
		k.state = ibv.QPStateErr
		k.armed.Store(false)
	}
}

// taken records that one of the waker's events was taken, by a wait of
// either kind: the event used up the CQ's request for the next one
// (ibv_req_notify_cq is one-shot), so the waker is no longer armed, even
// if arm ran since the wake that raised it (the flush that raises the
// event can complete after arm). The next blocking wait re-arms before it
// checks its context; no other wait needs the waker. With drain, it also
// empties the CQ (the netpoller's Wait; WaitBlocking's C side drains it
// itself).
func (k *waker) taken(drain bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.armed.Store(false)
	if !drain || k.cq == nil {
		return
	}
	var wc [1]ibv.WC
	for {
		if n, err := k.cq.Poll(wc[:]); n <= 0 || err != nil {
			break
		}
	}
}

// destroy frees what newWaker made, children first; arm and wake do
// nothing after it.
func (k *waker) destroy() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.armed.Store(false)
	if k.qp != nil {
		if err := k.qp.Destroy(); err != nil {
			return err
		}
		k.qp = nil
	}
	if k.cq != nil {
		if err := k.cq.Destroy(); err != nil {
			return err
		}
		k.cq = nil
	}
	if k.pd != nil {
		if err := k.pd.Dealloc(); err != nil {
			return err
		}
		k.pd = nil
	}
	if k.mem != nil {
		cFree(k.mem)
		k.mem = nil
	}
	return nil
}
