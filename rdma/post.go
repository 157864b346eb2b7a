package rdma

import (
	"fmt"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
)

// SendWork is one send-queue work request.
type SendWork struct {
	ID    uint64
	Op    ibv.WROpcode // ibv.WROpcodeSend, WRSendWithImm, WRRDMAWrite, WRRDMAWriteWithImm, WRRDMARead, ...
	Flags ibv.SendFlags
	SGEs  []ibv.SGE
	// RemoteAddr and RKey address the peer's memory for RDMA writes, reads
	// and atomics.
	RemoteAddr uint64
	RKey       uint32
	Imm        uint32 // immediate data (network byte order, as C has it)
}

// RecvWork is one receive-queue work request.
type RecvWork struct {
	ID   uint64
	SGEs []ibv.SGE
}

// PostError is a failed post: the first Posted work requests of the batch
// were posted (they will complete), the rest were not. Err is the C
// function's error (naming ibv_post_send or ibv_post_recv, wrapping the
// errno) or this package's check.
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
// MaxSendSGE SGEs each. On rxe it writes them into the send queue in Go
// and rings the kernel with one system call, with no cgo crossing (see
// SetDirect), and fails as the provider does.
func (q *QP) PostSend(ws ...SendWork) error {
	// Small enough to be inlined: the caller calls postSendRing itself.
	return q.postSendRing(ws)
}

// postSendProvider is PostSend through the provider's post_send, one cgo
// crossing.
func (q *QP) postSendProvider(ws []SendWork) error {
	if err := q.use("rdma.QP.PostSend"); err != nil {
		return err
	}
	defer q.done()
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	if err := q.fillSend(ws); err != nil {
		return err
	}
	first := uintptr(unsafe.Pointer(&q.swr[0]))
	rc, bad := cPost(q.postSend, q.addr, first)
	return q.postErr("ibv_post_send", rc, bad, first, unsafe.Sizeof(ibv.SendWR{}))
}

// checkSend refuses a batch that does not fit the QP: the arena's count of
// work requests, the QP's SGEs each.
func (q *QP) checkSend(ws []SendWork) error {
	maxSGE := int(q.caps.MaxSendSGE)
	if len(ws) == 0 || len(ws) > len(q.swr) {
		return &PostError{Err: invalid("rdma.QP.PostSend", "%d work requests: a batch holds 1 to %d", len(ws), len(q.swr))}
	}
	for i := range ws {
		if len(ws[i].SGEs) > maxSGE {
			return &PostError{Err: invalid("rdma.QP.PostSend", "work request %d has %d SGEs, the QP takes %d", i, len(ws[i].SGEs), maxSGE)}
		}
	}
	return nil
}

// fillSend builds the chain of ws in the arena.
func (q *QP) fillSend(ws []SendWork) error {
	if err := q.checkSend(ws); err != nil {
		return err
	}
	maxSGE := int(q.caps.MaxSendSGE)
	for i := range ws {
		w := &ws[i]
		wr := &q.swr[i]
		*wr = ibv.SendWR{WRID: w.ID, Opcode: w.Op, SendFlags: uint32(w.Flags), NumSGE: int32(len(w.SGEs))}
		if len(w.SGEs) > 0 {
			sg := q.ssge[i*maxSGE : i*maxSGE+len(w.SGEs)]
			copy(sg, w.SGEs)
			wr.SgList = &sg[0]
		}
		switch w.Op {
		case ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeRDMARead:
			r := wr.WR.RDMA()
			r.RemoteAddr, r.RKey = w.RemoteAddr, w.RKey
		}
		*wr.ImmData() = w.Imm
		if i+1 < len(ws) {
			wr.Next = &q.swr[i+1]
		}
	}
	return nil
}

// PostRecv posts ws as one chain (ibv_post_recv), as PostSend does. On
// rxe it writes them into the receive queue in Go, with no cgo crossing
// (see SetDirect), and fails as the provider does.
func (q *QP) PostRecv(ws ...RecvWork) error {
	// Small enough to be inlined: the caller calls postRecvRing itself.
	return q.postRecvRing(ws)
}

// postRecvProvider is PostRecv through the provider's post_recv, one cgo
// crossing.
func (q *QP) postRecvProvider(ws []RecvWork) error {
	if err := q.use("rdma.QP.PostRecv"); err != nil {
		return err
	}
	defer q.done()
	if err := q.checkRecv(ws); err != nil {
		return err
	}
	maxSGE := int(q.caps.MaxRecvSGE)
	q.recvMu.Lock()
	defer q.recvMu.Unlock()
	for i := range ws {
		w := &ws[i]
		wr := &q.rwr[i]
		*wr = ibv.RecvWR{WRID: w.ID, NumSGE: int32(len(w.SGEs))}
		if len(w.SGEs) > 0 {
			sg := q.rsge[i*maxSGE : i*maxSGE+len(w.SGEs)]
			copy(sg, w.SGEs)
			wr.SgList = &sg[0]
		}
		if i+1 < len(ws) {
			wr.Next = &q.rwr[i+1]
		}
	}
	first := uintptr(unsafe.Pointer(&q.rwr[0]))
	rc, bad := cPost(q.postRecv, q.addr, first)
	return q.postErr("ibv_post_recv", rc, bad, first, unsafe.Sizeof(ibv.RecvWR{}))
}

// checkRecv refuses a batch that does not fit the QP: the arena's count of
// work requests, the QP's SGEs each.
func (q *QP) checkRecv(ws []RecvWork) error {
	maxSGE := int(q.caps.MaxRecvSGE)
	if len(ws) == 0 || len(ws) > len(q.rwr) {
		return &PostError{Err: invalid("rdma.QP.PostRecv", "%d work requests: a batch holds 1 to %d", len(ws), len(q.rwr))}
	}
	for i := range ws {
		if len(ws[i].SGEs) > maxSGE {
			return &PostError{Err: invalid("rdma.QP.PostRecv", "work request %d has %d SGEs, the QP takes %d", i, len(ws[i].SGEs), maxSGE)}
		}
	}
	return nil
}

// postErr turns a post's return into a *PostError counting the work
// requests before bad, the first one not posted.
func (q *QP) postErr(fn string, rc int, bad, first, size uintptr) error {
	if rc == 0 {
		return nil
	}
	posted := 0
	if bad != 0 && bad >= first {
		posted = int((bad - first) / size)
	}
	return &PostError{Posted: posted, Err: cerr.ZeroOrErrno(fn, int32(rc))}
}

// SendPoll posts w (one work request, which should be signaled) and then
// polls the send CQ inside C, up to spins times, until a completion
// arrives: post and busy-poll fused into one cgo crossing, for latency. It
// returns the number of completions in wcs (0 when spins ran out; poll
// again later).
func (q *QP) SendPoll(w SendWork, wcs []ibv.WC, spins int) (int, error) {
	if err := q.use("rdma.QP.SendPoll"); err != nil {
		return 0, err
	}
	defer q.done()
	if len(wcs) == 0 {
		return 0, &PostError{Err: invalid("rdma.QP.SendPoll", "no room for completions")}
	}
	if err := q.scq.use("rdma.QP.SendPoll"); err != nil {
		return 0, err
	}
	defer q.scq.done()
	if spins < 1 {
		spins = 1
	}
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	ws := [1]SendWork{w}
	if err := q.fillSend(ws[:]); err != nil {
		return 0, err
	}
	first := uintptr(unsafe.Pointer(&q.swr[0]))
	n, postRC, bad := cPostSendPoll(q.postSend, q.addr, first, q.scq.poll, q.scq.addr, wcs, int64(spins))
	if postRC != 0 {
		return 0, q.postErr("ibv_post_send", postRC, bad, first, unsafe.Sizeof(ibv.SendWR{}))
	}
	if n < 0 {
		return 0, cerr.CountOrNegative("ibv_poll_cq", int64(n))
	}
	return n, nil
}
