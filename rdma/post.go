package rdma

import (
	"fmt"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// SendWork is one send-queue work request. Which fields count depends on
// Op and on the QP's type (see PostSend); a field an operation does not
// use must be zero.
type SendWork struct {
	ID    uint64
	Op    ibv.WROpcode // ibv.WROpcodeSend, WRSendWithImm, WRRDMAWrite, WRRDMAWriteWithImm, WRRDMARead, ...
	Flags ibv.SendFlags
	SGEs  []ibv.SGE
	// RemoteAddr and RKey address the peer's memory for RDMA writes, reads
	// and atomics.
	RemoteAddr uint64
	RKey       uint32
	Imm        uint32 // immediate data of the ...WithImm operations (network byte order, as C has it)
	// InvalidateRKey is the rkey that ibv.WROpcodeSendWithInv invalidates at the
	// peer, or ibv.WROpcodeLocalInv here.
	InvalidateRKey uint32
	// CompareAdd is what ibv.WROpcodeAtomicCmpAndSwp compares with, or what
	// ibv.WROpcodeAtomicFetchAndAdd adds; Swap what ibv.WROpcodeAtomicCmpAndSwp
	// writes when the comparison holds.
	CompareAdd, Swap uint64
	// AH, RemoteQPN and RemoteQKey address a UD send: the path to the
	// peer, its QP number and its Q_Key. Required on a UD QP, refused on
	// any other.
	AH         *AH
	RemoteQPN  uint32
	RemoteQKey uint32
}

// RecvWork is one receive-queue work request.
type RecvWork struct {
	ID   uint64
	SGEs []ibv.SGE
}

// PostError is a failed post: the first Posted work requests of the batch
// were posted (they will complete), the rest were not. Err is the C
// function's error (naming ibv_post_send, ibv_post_recv or
// ibv_post_srq_recv, wrapping the errno) or this package's check, made
// before any C call (then Posted is 0).
type PostError struct {
	Posted int
	Err    error
}

func (e *PostError) Error() string {
	return fmt.Sprintf("%v (%d work requests of the batch posted before it)", e.Err, e.Posted)
}

func (e *PostError) Unwrap() error { return e.Err }

// PostSend posts ws as one chain with a single call of the provider's
// post_send (ibv_post_send): no allocation, one cgo crossing. The work
// requests and SGEs are copied into the QP's own memory, so ws may be
// reused at once. At most Caps().MaxSendWR work requests of at most
// MaxSendSGE SGEs each.
//
// Each work request is checked before C is called, and a batch with one
// the provider could not take is refused whole (a *PostError wrapping
// unix.EINVAL, or unix.EMSGSIZE for a UD message longer than the path
// MTU):
//   - Op must be one the QP's type has: on RC, sends (with immediate or
//     invalidate), RDMA writes (with immediate) and reads, the two 64-bit
//     atomics and ibv.WROpcodeLocalInv; on UC, sends and RDMA writes (each with
//     immediate) and ibv.WROpcodeLocalInv; on UD, sends (with immediate). The
//     others (memory-window binds, TSO, flush, atomic write) are posted
//     through the extended API (QP.Ex) or Raw.
//   - Flags must be ibv.SendFlagsFence, SendSignaled, SendSolicited,
//     SendInline, or SendIPCsum (UD only).
//   - IBV_SEND_INLINE is for sends and RDMA writes, and an inline work
//     request's SGEs must lie in memory this package knows to be mapped (a live Buffer, or memory registered with RegisterPinned):
//     the provider copies it during the call, by address, without a key.
//   - An atomic takes one SGE of 8 bytes and an 8-byte aligned RemoteAddr.
//   - A UD send needs AH (of this QP's PD, not closed), and its SGEs
//     together at most the port's active MTU (known once the QP has moved
//     to INIT with a port: ActivateUD, or Modify with ibv.QPAttrMaskPort); any
//     other QP refuses AH, RemoteQPN and RemoteQKey.
func (q *QP) PostSend(ws ...SendWork) error {
	const op = "rdma.QP.PostSend"
	if q == nil {
		return nilErr(op)
	}
	// The queue's lock alone, which Close takes too (see queuesClosed).
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	if q.queuesClosed {
		return opErr(op, ErrClosed)
	}
	var heldAHs [8]*AH
	held, err := q.fillSend(op, ws, heldAHs[:0])
	defer releaseAHs(held)
	if err != nil {
		return err
	}
	var bad uintptr
	rc := ibv.FastPostSend(q.postSend, q.addr, &q.swr[0], &bad)
	return postErr("ibv_post_send", rc, bad, uintptr(unsafe.Pointer(&q.swr[0])), unsafe.Sizeof(ibv.SendWR{}))
}

// sendOps are the opcodes PostSend takes, by QP type.
var sendOps = map[ibv.QPType][]ibv.WROpcode{
	ibv.QPTypeRC: {ibv.WROpcodeSend, ibv.WROpcodeSendWithImm, ibv.WROpcodeSendWithInv, ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm,
		ibv.WROpcodeRDMARead, ibv.WROpcodeAtomicCmpAndSwp, ibv.WROpcodeAtomicFetchAndAdd, ibv.WROpcodeLocalInv},
	ibv.QPTypeUC: {ibv.WROpcodeSend, ibv.WROpcodeSendWithImm, ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeLocalInv},
	ibv.QPTypeUD: {ibv.WROpcodeSend, ibv.WROpcodeSendWithImm},
}

// sendOpAllowed reports whether PostSend takes op on a QP of type t.
func sendOpAllowed(t ibv.QPType, op ibv.WROpcode) bool {
	for _, o := range sendOps[t] {
		if o == op {
			return true
		}
	}
	return false
}

const knownSendFlags = ibv.SendFlagsFence | ibv.SendFlagsSignaled | ibv.SendFlagsSolicited | ibv.SendFlagsInline | ibv.SendFlagsIPCsum

// plainSendOps are the opcodes of a plain work request (one whose
// checks are the QP's opcodes, its SGE count and its flags alone), as bits.
const plainSendOps = 1<<ibv.WROpcodeSend | 1<<ibv.WROpcodeSendWithImm | 1<<ibv.WROpcodeSendWithInv |
	1<<ibv.WROpcodeRDMAWrite | 1<<ibv.WROpcodeRDMAWriteWithImm | 1<<ibv.WROpcodeRDMARead | 1<<ibv.WROpcodeLocalInv

// sendOpBits are the opcodes PostSend takes on a QP of type t, as bits.
func sendOpBits(t ibv.QPType) uint32 {
	var bits uint32
	for _, o := range sendOps[t] {
		bits |= 1 << o
	}
	return bits
}

// checkSend refuses a work request PostSend must not hand the provider
// (see PostSend): its opcode, flags, SGEs and addressing against the QP.
// A plain work request on an RC or UC QP (an opcode the QP takes, no
// atomic, no inline data, no UD addressing) is checked here at once, the
// data path's common case; any other takes checkSendAll.
func (q *QP) checkSend(op string, i int, w *SendWork) error {
	if uint(w.Op) < 32 && q.opBits&plainSendOps&(1<<w.Op) != 0 && len(w.SGEs) <= int(q.caps.MaxSendSGE) &&
		w.Flags&^(ibv.SendFlagsFence|ibv.SendFlagsSignaled|ibv.SendFlagsSolicited) == 0 &&
		q.typ != ibv.QPTypeUD && w.AH == nil && w.RemoteQPN == 0 && w.RemoteQKey == 0 {
		return nil
	}
	return q.checkSendAll(op, i, w)
}

// checkSendAll is checkSend's every check, in order.
func (q *QP) checkSendAll(op string, i int, w *SendWork) error {
	bad := func(format string, args ...any) error {
		return &PostError{Err: invalid(op, "work request %d (%s): "+format, append([]any{i, w.Op}, args...)...)}
	}
	if len(w.SGEs) > int(q.caps.MaxSendSGE) {
		return bad("%d SGEs, the QP takes %d", len(w.SGEs), q.caps.MaxSendSGE)
	}
	if !sendOpAllowed(q.typ, w.Op) {
		return bad("not an operation PostSend posts on a %s QP", q.typ)
	}
	if f := w.Flags &^ knownSendFlags; f != 0 {
		return bad("unknown send flags %s", f)
	}
	if w.Flags&ibv.SendFlagsIPCsum != 0 && q.typ != ibv.QPTypeUD {
		return bad("IBV_SEND_IP_CSUM is for UD QPs")
	}
	if w.Flags&ibv.SendFlagsInline != 0 {
		switch w.Op {
		case ibv.WROpcodeSend, ibv.WROpcodeSendWithImm, ibv.WROpcodeSendWithInv, ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm:
		default:
			return bad("IBV_SEND_INLINE is for sends and RDMA writes, which carry data")
		}
		for j, sg := range w.SGEs {
			if sg.Length > 0 && !mappedMemory(uintptr(sg.Addr), int(sg.Length)) {
				return bad("inline SGE %d (%d bytes at %#x) is not inside a live Buffer or pinned registered memory", j, sg.Length, sg.Addr)
			}
		}
	}
	switch w.Op {
	case ibv.WROpcodeAtomicCmpAndSwp, ibv.WROpcodeAtomicFetchAndAdd:
		if len(w.SGEs) != 1 || w.SGEs[0].Length != 8 {
			return bad("an atomic takes one SGE of 8 bytes")
		}
		if w.RemoteAddr%8 != 0 {
			return bad("remote address %#x is not 8-byte aligned", w.RemoteAddr)
		}
	}
	if q.typ != ibv.QPTypeUD {
		if w.AH != nil || w.RemoteQPN != 0 || w.RemoteQKey != 0 {
			return bad("AH, RemoteQPN and RemoteQKey address UD sends; this is a %s QP", q.typ)
		}
		return nil
	}
	if w.AH == nil {
		return bad("a UD send needs an address handle (AH)")
	}
	if w.AH.pd != q.pd {
		return bad("the address handle belongs to another PD")
	}
	if w.RemoteQPN > 0xffffff {
		return bad("remote QP number %#x does not fit 24 bits", w.RemoteQPN)
	}
	if mtu := int(q.udMTU.Load()); mtu > 0 {
		n := 0
		for _, sg := range w.SGEs {
			n += int(sg.Length)
		}
		if n > mtu {
			return &PostError{Err: tooLong(op, "work request %d: a UD message of %d bytes is longer than the path MTU (%d bytes)", i, n, mtu)}
		}
	}
	return nil
}

// fillSend checks ws and builds their chain in the arena, one work
// request at a time (a refused one leaves the arena half built, which
// nothing reads: the chain is posted only whole). Each distinct address
// handle is held (use) from its check until the post's end, so that no
// Close frees it while the provider reads it; held, grown from the
// caller's array, lists them for releaseAHs.
func (q *QP) fillSend(op string, ws []SendWork, held []*AH) ([]*AH, error) {
	if len(ws) == 0 || len(ws) > len(q.swr) {
		return held, &PostError{Err: invalid(op, "%d work requests: a batch holds 1 to %d", len(ws), len(q.swr))}
	}
	maxSGE := int(q.caps.MaxSendSGE)
	swr := q.swr[:len(ws)]
	for i := range ws {
		w := &ws[i]
		if err := q.checkSend(op, i, w); err != nil {
			return held, err
		}
		if w.AH != nil && !slicesContains(held, w.AH) {
			if err := w.AH.use(op); err != nil {
				return held, &PostError{Err: err}
			}
			held = append(held, w.AH)
		}
		// Every member the provider reads for the opcodes PostSend takes
		// is written; qp_type and the bind_mw/tso union, which only other
		// opcodes use, stay as mmap made them (zero).
		wr := &swr[i]
		wr.WRID, wr.Next, wr.SgList, wr.NumSGE = w.ID, nil, nil, int32(len(w.SGEs))
		wr.Opcode, wr.SendFlags, wr.WR = w.Op, uint32(w.Flags), ibv.SendWRWR{}
		switch n := len(w.SGEs); n {
		case 0:
		case 1:
			sg := &q.ssge[i*maxSGE]
			*sg = w.SGEs[0]
			wr.SgList = sg
		default:
			sg := q.ssge[i*maxSGE : i*maxSGE+n]
			copy(sg, w.SGEs)
			wr.SgList = &sg[0]
		}
		switch w.Op {
		case ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeRDMARead:
			r := wr.WR.RDMA()
			r.RemoteAddr, r.RKey = w.RemoteAddr, w.RKey
		case ibv.WROpcodeAtomicCmpAndSwp, ibv.WROpcodeAtomicFetchAndAdd:
			a := wr.WR.Atomic()
			a.RemoteAddr, a.RKey, a.CompareAdd, a.Swap = w.RemoteAddr, w.RKey, w.CompareAdd, w.Swap
		}
		switch w.Op {
		case ibv.WROpcodeSendWithInv, ibv.WROpcodeLocalInv:
			*wr.InvalidateRKey() = w.InvalidateRKey
		default:
			*wr.ImmData() = w.Imm
		}
		if q.typ == ibv.QPTypeUD {
			ud := wr.WR.UD()
			ud.AH, ud.RemoteQPN, ud.RemoteQKey = w.AH.ah, w.RemoteQPN, w.RemoteQKey
		}
		if i > 0 {
			swr[i-1].Next = wr
		}
	}
	return held, nil
}

func slicesContains(s []*AH, a *AH) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}

// releaseAHs releases what fillSend held.
func releaseAHs(held []*AH) {
	for _, a := range held {
		a.done()
	}
}

// PostRecv posts ws as one chain with a single call of the provider's
// post_recv (ibv_post_recv), as PostSend does. A QP attached to an SRQ
// takes its receives from the SRQ (SRQ.PostRecv) and refuses them here;
// a UD QP refuses a receive shorter than the 40-byte GRH that precedes
// every message it receives (see GRH).
func (q *QP) PostRecv(ws ...RecvWork) error {
	const op = "rdma.QP.PostRecv"
	if q == nil {
		return nilErr(op)
	}
	q.recvMu.Lock()
	defer q.recvMu.Unlock()
	if q.queuesClosed {
		return opErr(op, ErrClosed)
	}
	if q.srq != nil {
		return &PostError{Err: invalid(op, "the QP takes its receives from its shared receive queue: post them with SRQ.PostRecv")}
	}
	minLen := 0
	if q.typ == ibv.QPTypeUD {
		minLen = GRHLen
	}
	if err := fillRecv(op, ws, q.rwr, q.rsge, int(q.caps.MaxRecvSGE), minLen); err != nil {
		return err
	}
	var bad uintptr
	rc := ibv.FastPostRecv(q.postRecv, q.addr, &q.rwr[0], &bad)
	return postErr("ibv_post_recv", rc, bad, uintptr(unsafe.Pointer(&q.rwr[0])), unsafe.Sizeof(ibv.RecvWR{}))
}

// fillRecv checks ws against an arena of len(wrs) work requests of maxSGE
// SGEs each (and, when minLen > 0, a total length of at least minLen
// each), and builds their chain there, one work request at a time (as
// fillSend does).
func fillRecv(op string, ws []RecvWork, wrs []ibv.RecvWR, sges []ibv.SGE, maxSGE, minLen int) error {
	if len(ws) == 0 || len(ws) > len(wrs) {
		return &PostError{Err: invalid(op, "%d work requests: a batch holds 1 to %d", len(ws), len(wrs))}
	}
	wrs = wrs[:len(ws)]
	for i := range ws {
		w := &ws[i]
		n := len(w.SGEs)
		if n > maxSGE {
			return &PostError{Err: invalid(op, "work request %d has %d SGEs, the queue takes %d", i, n, maxSGE)}
		}
		if minLen > 0 {
			total := 0
			for _, sg := range w.SGEs {
				total += int(sg.Length)
			}
			if total < minLen {
				return &PostError{Err: invalid(op, "work request %d has room for %d bytes: a UD receive needs at least %d for the GRH", i, total, minLen)}
			}
		}
		wr := &wrs[i]
		*wr = ibv.RecvWR{WRID: w.ID, NumSGE: int32(n)}
		switch n {
		case 0:
		case 1:
			sg := &sges[i*maxSGE]
			*sg = w.SGEs[0]
			wr.SgList = sg
		default:
			sg := sges[i*maxSGE : i*maxSGE+n]
			copy(sg, w.SGEs)
			wr.SgList = &sg[0]
		}
		if i > 0 {
			wrs[i-1].Next = wr
		}
	}
	return nil
}

// postErr turns a post's return into a *PostError counting the work
// requests before bad, the first one not posted.
func postErr(fn string, rc int32, bad, first, size uintptr) error {
	if rc == 0 {
		return nil
	}
	posted := 0
	if bad != 0 && bad >= first {
		posted = int((bad - first) / size)
	}
	return &PostError{Posted: posted, Err: cerr.ZeroOrErrno(fn, rc)}
}

// SendPoll posts w (one work request, which should be signaled) and then
// polls the send CQ, up to spins times, until a completion arrives
// (PostSend, then the send CQ's PollSpin). It returns the number of
// completions in wcs (0 when spins ran out; poll again later).
func (q *QP) SendPoll(w SendWork, wcs []ibv.WC, spins int) (int, error) {
	if len(wcs) == 0 {
		if err := q.use("rdma.QP.SendPoll"); err != nil {
			return 0, err
		}
		q.done()
		return 0, &PostError{Err: invalid("rdma.QP.SendPoll", "no room for completions")}
	}
	if err := q.PostSend(w); err != nil {
		return 0, err
	}
	return q.scq.PollSpin(wcs, spins)
}
