//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"time"

	"github.com/goverbs/goverbs/ibv"
)

// The fixtures of extended CQs and QPs (see fixtures.go).
var (
	fxXQP   *ibv.QP   // RC on cqx (send) and cq (recv), in RTS, one send completed on cqx
	fxXPoll bool      // CallStartPoll succeeded on cqx and no CallEndPoll yet
	fxWQP   *ibv.QP   // RC created with CreateQPEx and the extended send ops, in RTS
	fxQPX   *ibv.QPEx // QPToQPEx(wqp)
)

func xqp() *ibv.QP {
	if fxXQP == nil {
		x, c := cqx(), cq()
		mr()
		q, err := pd().CreateQP(rcAttr(ibv.CQExToCQ(x), c))
		must("xqp", err)
		fxXQP = q
		onExit(func() error { return closeIf(&fxXQP, (*ibv.QP).Destroy) })
		must("xqp rts", toRTS(q, q.QPNum))
		sendSelf(q)
	}
	return fxXQP
}

// xpoll opens a poll on cqx, which holds xqp's completion; it returns cqx.
func xpoll() *ibv.CQEx {
	if !fxXPoll {
		xqp()
		must("xpoll", cqx().CallStartPoll(&ibv.PollCQAttr{}))
		fxXPoll = true
		onExit(func() error {
			if !fxXPoll {
				return nil
			}
			fxXPoll = false
			return cqx().CallEndPoll()
		})
	}
	return fxCQX
}

func wqp() *ibv.QP {
	if fxWQP == nil {
		p, c := pd(), cq()
		mr()
		q, err := ctx().CreateQPEx(&ibv.QPInitAttrEx{SendCQ: c, RecvCQ: c, QPType: ibv.QPTypeRC, PD: p,
			Cap:      ibv.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 2, MaxRecvSGE: 1, MaxInlineData: 64},
			CompMask: uint32(ibv.QPInitAttrMaskPD | ibv.QPInitAttrMaskSendOpsFlags),
			SendOpsFlags: uint64(ibv.QPCreateSendOpsFlagsRDMAWrite | ibv.QPCreateSendOpsFlagsRDMAWriteWithImm | ibv.QPCreateSendOpsFlagsSend |
				ibv.QPCreateSendOpsFlagsSendWithImm | ibv.QPCreateSendOpsFlagsRDMARead | ibv.QPCreateSendOpsFlagsAtomicCmpAndSwp |
				ibv.QPCreateSendOpsFlagsAtomicFetchAndAdd | ibv.QPCreateSendOpsFlagsLocalInv | ibv.QPCreateSendOpsFlagsBindMW | ibv.QPCreateSendOpsFlagsSendWithInv)})
		must("wqp", err)
		fxWQP = q
		onExit(func() error { return closeIf(&fxWQP, (*ibv.QP).Destroy) })
		must("wqp rts", toRTS(q, q.QPNum))
		x, err := q.ToQPEx()
		must("qpx", err)
		fxQPX = x
	}
	return fxWQP
}

// qpx is the extended view of wqp.
func qpx() *ibv.QPEx { wqp(); return fxQPX }

// wrBegin posts a receive (for a send to self) and opens a work-request batch on qpx; it
// returns qpx.
func wrBegin() *ibv.QPEx {
	x := qpx()
	must("wr_begin", errOf(fxWQP.PostRecv(recvWR(sge(2048, 256), 1))))
	must("wr_start", x.Start())
	x.WRID, x.WRFlags = 7, uint32(ibv.SendFlagsSignaled)
	return x
}

// wrEnd completes the batch and waits for its completions.
func wrEnd() error {
	err := qpx().Complete()
	time.Sleep(200 * time.Millisecond)
	return err
}
