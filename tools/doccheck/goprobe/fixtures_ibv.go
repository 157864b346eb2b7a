//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"golang.org/x/sys/unix"
)

// The checks of the libibverbs probes (their check: in C, here the Go side: a snippet returns
// checkf's error where the C check would call check_fail) and the fixtures xrpoll and xinv,
// as harness.c.tmpl has them.

// checkf is a failed check of what a call did beyond its return value.
func checkf(format string, a ...any) error { return fmt.Errorf("check: "+format, a...) }

// wcKept are completions getWC polled while it waited for another, by CQ.
var wcKept = map[*ibv.CQ][]ibv.WC{}

// getWC waits (up to 5 s) for the completion of wrID on c, keeping the others it polls for a
// later getWC on the same CQ.
func getWC(c *ibv.CQ, wrID uint64) (ibv.WC, bool) {
	for t := 0; t < 250; {
		for i, wc := range wcKept[c] {
			if wc.WRID == wrID {
				wcKept[c] = append(wcKept[c][:i], wcKept[c][i+1:]...)
				return wc, true
			}
		}
		if len(wcKept[c]) == 32 {
			return ibv.WC{}, false
		}
		wc := make([]ibv.WC, 1)
		n, err := c.Poll(wc)
		if err != nil {
			return ibv.WC{}, false
		}
		if n == 1 {
			wcKept[c] = append(wcKept[c], wc[0])
			continue
		}
		time.Sleep(20 * time.Millisecond)
		t++
	}
	return ibv.WC{}, false
}

// checkWC is nil when the completion of wrID comes on c with status success and opcode op.
func checkWC(c *ibv.CQ, wrID uint64, op ibv.WCOpcode) (ibv.WC, error) {
	wc, ok := getWC(c, wrID)
	switch {
	case !ok:
		return wc, checkf("no completion of wr_id %d within 5 s", wrID)
	case wc.Status != ibv.WCStatusSuccess:
		return wc, checkf("wr_id %d completed with status %v, vendor_err %d", wrID, wc.Status, wc.VendorErr)
	case wc.Opcode != op:
		return wc, checkf("wr_id %d completed with opcode %v, not %v", wrID, wc.Opcode, op)
	}
	return wc, nil
}

// noWC is nil unless a completion of wrID comes on c within 300 ms (nothing was posted).
func noWC(c *ibv.CQ, wrID uint64) error {
	wc := make([]ibv.WC, 1)
	for range 15 {
		for {
			n, err := c.Poll(wc)
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
			if wc[0].WRID == wrID {
				return checkf("wr_id %d completed (status %v) though nothing was posted", wrID, wc[0].Status)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// firstErr is the first non-nil error: the call's, then its checks'.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// wrBind2 binds a type 2 window (released after the probe) to 64 bytes of mr on wqp, remote
// write, in a batch of its own (wr_id 5); it returns the window and its new rkey after the
// completion.
func wrBind2() (*ibv.MW, uint32) {
	x := qpx()
	w, err := pd().AllocMW(ibv.MWType2)
	must("mw", err)
	onExit(w.Dealloc)
	rkey := ibv.IncRKey(w.RKey)
	must("bind start", x.Start())
	x.WRID, x.WRFlags = 5, uint32(ibv.SendFlagsSignaled)
	must("bind", x.BindMW(w, rkey, &ibv.MWBindInfo{MR: mr(), Addr: addr(0), Length: 64, MWAccessFlags: uint32(ibv.AccessFlagsRemoteWrite)}))
	must("bind complete", x.Complete())
	_, err = checkWC(cq(), 5, ibv.WCOpcodeBindMW)
	must("bind", err)
	return w, rkey
}

// xrpoll constants, as the C harness has them.
const (
	xrImm  = 0x01020304
	xrQKey = 0x11111111
)

var (
	fxRCQX     *ibv.CQEx // an extended CQ with cqx's fields: xud's receive CQ
	fxXUD      *ibv.QP   // UD, in RTS; send CQ cq, receive CQ rcqx
	fxXRPoll   bool      // CallStartPoll succeeded on rcqx and no CallEndPoll yet
	fxICQX     *ibv.CQEx // xiq's receive CQ (byte length, immediate data, QP number)
	fxXIQ      *ibv.QP   // RC with the extended send ops, connected to itself
	fxXMW      *ibv.MW   // a type 2 window bound to mr, its rkey invalidated
	fxXInvRKey uint32    // xmw's rkey after the bind
	fxXIPoll   bool      // CallStartPoll succeeded on icqx and no CallEndPoll yet
)

// startPoll waits (up to 5 s) until CallStartPoll finds a completion on c.
func startPoll(c *ibv.CQEx) error {
	for range 250 {
		err := c.CallStartPoll(&ibv.PollCQAttr{})
		if !errors.Is(err, unix.ENOENT) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("no completion within 5 s")
}

// xrpoll: a UD datagram with immediate data xrImm (8 bytes from buf) that xud sent to
// itself through ah, received on rcqx into buf[1024:] (GRH and data), and CallStartPoll on
// rcqx positioned at its completion (wr_id 11); it returns rcqx.
func xrpoll() *ibv.CQEx {
	if fxXRPoll {
		return fxRCQX
	}
	c, h := cq(), ah()
	mr()
	x, err := ctx().CreateCQEx(&ibv.CQInitAttrEx{CQE: 16, WCFlags: uint64(ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsQPNum |
		ibv.CreateCQWCFlagsSrcQP | ibv.CreateCQWCFlagsSLID | ibv.CreateCQWCFlagsSL | ibv.CreateCQWCFlagsDLIDPathBits | ibv.CreateCQWCFlagsImm)})
	must("xrpoll cq", err)
	fxRCQX = x
	onExit(func() error {
		return closeIf(&fxRCQX, func(c *ibv.CQEx) error { return ibv.CQExToCQ(c).Destroy() })
	})
	u, err := pd().CreateQP(&ibv.QPInitAttr{SendCQ: c, RecvCQ: ibv.CQExToCQ(x), QPType: ibv.QPTypeUD,
		Cap: ibv.QPCap{MaxSendWR: 2, MaxRecvWR: 2, MaxSendSGE: 1, MaxRecvSGE: 1}})
	must("xrpoll qp", err)
	fxXUD = u
	onExit(func() error { return closeIf(&fxXUD, (*ibv.QP).Destroy) })
	m := ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1, QKey: xrQKey}
	must("xrpoll qp", u.Modify(&m, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskQKey))
	m.QPState = ibv.QPStateRTR
	must("xrpoll rtr", u.Modify(&m, ibv.QPAttrMaskState))
	m.QPState, m.SQPSN = ibv.QPStateRTS, 0
	must("xrpoll rts", u.Modify(&m, ibv.QPAttrMaskState|ibv.QPAttrMaskSQPSN))
	rw := recvWR(sge(1024, 128), 1)
	rw.WRID = 11
	must("xrpoll recv", errOf(u.PostRecv(rw)))
	sw := sendWR(sge(0, 8), 1, ibv.SendFlagsSignaled)
	sw.WRID, sw.Opcode = 12, ibv.WROpcodeSendWithImm
	*sw.ImmData() = htobe32(xrImm)
	*sw.WR.UD() = ibv.SendWRWRUD{AH: h, RemoteQPN: u.QPNum, RemoteQKey: xrQKey}
	must("xrpoll send", errOf(u.PostSend(sw)))
	_, err = checkWC(c, 12, ibv.WCOpcodeSend)
	must("xrpoll send", err)
	must("xrpoll poll", startPoll(x))
	fxXRPoll = true
	onExit(func() error {
		if !fxXRPoll {
			return nil
		}
		fxXRPoll = false
		return fxRCQX.CallEndPoll()
	})
	return x
}

// xinv: an RC QP xiq connected to itself with the extended send ops (send,
// send-with-invalidate, bind-MW), send CQ cq, receive CQ icqx; a type 2 window xmw bound to
// mr (64 bytes, remote write) with rkey xinvRKey, then an 8-byte send that invalidates it,
// received (wr_id 22): CallStartPoll on icqx positioned at that receive's completion. It
// returns icqx.
func xinv() *ibv.CQEx {
	if fxXIPoll {
		return fxICQX
	}
	c, p := cq(), pd()
	mr()
	ic, err := ctx().CreateCQEx(&ibv.CQInitAttrEx{CQE: 16, WCFlags: uint64(ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsImm | ibv.CreateCQWCFlagsQPNum)})
	must("xinv cq", err)
	fxICQX = ic
	onExit(func() error {
		return closeIf(&fxICQX, func(c *ibv.CQEx) error { return ibv.CQExToCQ(c).Destroy() })
	})
	q, err := ctx().CreateQPEx(&ibv.QPInitAttrEx{SendCQ: c, RecvCQ: ibv.CQExToCQ(ic), QPType: ibv.QPTypeRC, PD: p,
		Cap:          ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1},
		CompMask:     uint32(ibv.QPInitAttrMaskPD | ibv.QPInitAttrMaskSendOpsFlags),
		SendOpsFlags: uint64(ibv.QPCreateSendOpsFlagsSend | ibv.QPCreateSendOpsFlagsSendWithInv | ibv.QPCreateSendOpsFlagsBindMW)})
	must("xinv qp", err)
	fxXIQ = q
	onExit(func() error { return closeIf(&fxXIQ, (*ibv.QP).Destroy) })
	must("xinv rts", toRTS(q, q.QPNum))
	x, err := q.ToQPEx()
	must("xinv rts", err)
	w, err := p.AllocMW(ibv.MWType2)
	must("xinv mw", err)
	fxXMW = w
	onExit(func() error { return closeIf(&fxXMW, (*ibv.MW).Dealloc) })
	fxXInvRKey = ibv.IncRKey(w.RKey)
	must("xinv bind", x.Start())
	x.WRID, x.WRFlags = 21, uint32(ibv.SendFlagsSignaled)
	must("xinv bind", x.BindMW(w, fxXInvRKey, &ibv.MWBindInfo{MR: mr(), Addr: addr(0), Length: 64, MWAccessFlags: uint32(ibv.AccessFlagsRemoteWrite)}))
	must("xinv bind", x.Complete())
	_, err = checkWC(c, 21, ibv.WCOpcodeBindMW)
	must("xinv bind", err)
	rw := recvWR(sge(2048, 64), 1)
	rw.WRID = 22
	must("xinv recv", errOf(q.PostRecv(rw)))
	must("xinv send", x.Start())
	x.WRID, x.WRFlags = 23, uint32(ibv.SendFlagsSignaled)
	must("xinv send", x.SendInv(fxXInvRKey))
	must("xinv send", x.SetSGE(mr().LKey, addr(0), 8))
	must("xinv send", x.Complete())
	_, err = checkWC(c, 23, ibv.WCOpcodeSend)
	must("xinv send", err)
	must("xinv poll", startPoll(ic))
	fxXIPoll = true
	onExit(func() error {
		if !fxXIPoll {
			return nil
		}
		fxXIPoll = false
		return fxICQX.CallEndPoll()
	})
	return ic
}

// recvWRID is a receive work request of id over sg (num entries), in mmap'd memory.
func recvWRID(sg *ibv.SGE, num int, id uint64) *ibv.RecvWR {
	w := recvWR(sg, num)
	w.WRID = id
	return w
}

// recvGot checks a send to self on wqp: its send completion (wr_id 7) and the receive's
// (wr_id 1), which holds n bytes, data, at buf[2048:].
func recvGot(n int, data string) error {
	if _, err := checkWC(cq(), 7, ibv.WCOpcodeSend); err != nil {
		return err
	}
	wc, err := checkWC(cq(), 1, ibv.WCOpcodeRecv)
	if err == nil && (int(wc.ByteLen) != n || string(buf()[2048:2048+n]) != data) {
		return checkf("the receive got %d bytes, not the ones sent", wc.ByteLen)
	}
	return err
}

// srqQP is an RC QP on srq (send and receive CQ cq) connected to itself, destroyed after the
// probe.
func srqQP() *ibv.QP {
	s, c := srq(), cq()
	q, err := pd().CreateQP(&ibv.QPInitAttr{SendCQ: c, RecvCQ: c, SRQ: s, QPType: ibv.QPTypeRC, Cap: ibv.QPCap{MaxSendWR: 2, MaxSendSGE: 1}})
	must("srq qp", err)
	onExit(q.Destroy)
	must("srq qp", toRTS(q, q.QPNum))
	return q
}

// gidOf is the IPv4-mapped GID of the address in the environment variable v (RXE_A_IP).
func gidOf(v string) ibv.GID {
	a, err := netip.ParseAddr(os.Getenv(v))
	must(v, err)
	return ibv.GIDFromAddr(a)
}

// isErrno reports whether err matches the errno e.
func isErrno(err error, e unix.Errno) bool { return errors.Is(err, e) }

// The checked bindings of the posts return no bad work request with their error (the Go shape
// of bad_wr is a result of a success); the checks of *bad_wr post the failing request once
// more through the provider's op (ibv.FastPostSend and the like), which stores it as C does,
// and judge it as the C probe's check_bad: the pages say a failing post returns the failing
// request through bad_wr.

// checkBad judges *bad_wr (bad, preset to 1) of a failing post of w (rc): nil when it is w.
func checkBad(rc int32, bad, w uintptr) error {
	switch {
	case rc == 0:
		return checkf("posted again through the provider's op, it succeeded")
	case bad == w:
		return nil
	case bad == 1:
		return checkf("*bad_wr untouched, not the failing WR")
	case bad == 0:
		return checkf("*bad_wr = NULL, not the failing WR")
	}
	return checkf("*bad_wr = %#x, not the failing WR %#x", bad, w)
}

// badSend posts w on q through the provider's op and judges *bad_wr.
func badSend(q *ibv.QP, w *ibv.SendWR) error {
	bad := uintptr(1)
	rc := ibv.FastPostSend(ibv.FastPostSendOp(q), uintptr(unsafe.Pointer(q)), w, &bad)
	return checkBad(rc, bad, uintptr(unsafe.Pointer(w)))
}

// badRecv posts w on q's receive queue through the provider's op and judges *bad_wr.
func badRecv(q *ibv.QP, w *ibv.RecvWR) error {
	bad := uintptr(1)
	rc := ibv.FastPostRecv(ibv.FastPostRecvOp(q), uintptr(unsafe.Pointer(q)), w, &bad)
	return checkBad(rc, bad, uintptr(unsafe.Pointer(w)))
}

// badSRQRecv posts w on s through the provider's op and judges *bad_recv_wr.
func badSRQRecv(s *ibv.SRQ, w *ibv.RecvWR) error {
	bad := uintptr(1)
	rc := ibv.FastPostSRQRecv(ibv.FastPostSRQRecvOp(s), uintptr(unsafe.Pointer(s)), w, &bad)
	return checkBad(rc, bad, uintptr(unsafe.Pointer(w)))
}
