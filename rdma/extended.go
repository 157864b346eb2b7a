package rdma

import (
	"unsafe"

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

// exSendOp is the IBV_QP_EX_WITH_* flag that lets a QP post op through the
// extended API, and the builder's step.
func exSendOp(op ibv.WROpcode) ibv.QPCreateSendOpsFlags {
	switch op {
	case ibv.WROpcodeSend:
		return ibv.QPCreateSendOpsFlagsSend
	case ibv.WROpcodeSendWithImm:
		return ibv.QPCreateSendOpsFlagsSendWithImm
	case ibv.WROpcodeSendWithInv:
		return ibv.QPCreateSendOpsFlagsSendWithInv
	case ibv.WROpcodeRDMAWrite:
		return ibv.QPCreateSendOpsFlagsRDMAWrite
	case ibv.WROpcodeRDMAWriteWithImm:
		return ibv.QPCreateSendOpsFlagsRDMAWriteWithImm
	case ibv.WROpcodeRDMARead:
		return ibv.QPCreateSendOpsFlagsRDMARead
	case ibv.WROpcodeAtomicCmpAndSwp:
		return ibv.QPCreateSendOpsFlagsAtomicCmpAndSwp
	case ibv.WROpcodeAtomicFetchAndAdd:
		return ibv.QPCreateSendOpsFlagsAtomicFetchAndAdd
	case ibv.WROpcodeLocalInv:
		return ibv.QPCreateSendOpsFlagsLocalInv
	}
	return 0
}

// PostEx posts ws through the QP's extended send interface, for a QP made
// with QPConfig.SendOps: ibv_wr_start, each work request's builder
// (ibv_wr_send, ibv_wr_rdma_write, ...) with its wr_id and flags, its
// address (ibv_wr_set_ud_addr, UD) and data (ibv_wr_set_sge,
// ibv_wr_set_sge_list, or ibv_wr_set_inline_data(_list) for
// IBV_SEND_INLINE), then ibv_wr_complete, all in one cgo crossing
// (ibv.FastWRPost) where Ex's methods cross once per call. Each work
// request is checked as PostSend checks it (the same opcodes, flags and
// rules), and its opcode must be one of the QP's SendOps; SGEs of several
// entries, and an inline work request's buffers, are copied into the
// QP's own memory. No allocation. A failure is a *PostError: a check's
// (nothing posted), a builder the provider lacks (wrapping unix.EINVAL,
// ibv_wr_abort called, nothing posted) or ibv_wr_complete's (nothing
// posted: the provider discards the batch).
func (q *QP) PostEx(ws ...SendWork) error {
	const op = "rdma.QP.PostEx"
	if q == nil {
		return nilErr(op)
	}
	q.sendMu.Lock()
	defer q.sendMu.Unlock()
	if q.queuesClosed {
		return opErr(op, ErrClosed)
	}
	if q.sendOps == 0 {
		return &PostError{Err: invalid(op, "the QP was created without QPConfig.SendOps")}
	}
	if len(ws) == 0 || len(ws) > len(q.swr) {
		return &PostError{Err: invalid(op, "%d work requests: a batch holds 1 to %d", len(ws), len(q.swr))}
	}
	if q.exAddr == 0 {
		x, err := q.qp.ToQPEx()
		if err != nil {
			return &PostError{Err: err}
		}
		q.setEx(x, q.pd.dev.rxeBefore(rxeSGEListFixed))
	}
	var heldAHs [8]*AH
	held := heldAHs[:0]
	defer func() { releaseAHs(held) }()
	maxSGE := int(q.caps.MaxSendSGE)
	steps := q.exSteps
	n := 0
	for i := range ws {
		w := &ws[i]
		if err := q.checkSend(op, i, w); err != nil {
			return err
		}
		if f := exSendOp(w.Op); q.sendOps&f == 0 {
			return &PostError{Err: invalid(op, "work request %d (%s): the QP was not created with %s in QPConfig.SendOps", i, w.Op, f)}
		}
		if w.AH != nil && !slicesContains(held, w.AH) {
			if err := w.AH.use(op); err != nil {
				return &PostError{Err: err}
			}
			held = append(held, w.AH)
		}
		s := &steps[n]
		n++
		// IBV_SEND_INLINE stays in wr_flags: librxe's builders copy
		// wr_flags into the WQE, and the kernel driver takes its data
		// inline only with it (other providers ignore it there).
		s.WRID, s.WRFlags = w.ID, uint32(w.Flags)
		switch w.Op {
		case ibv.WROpcodeSend:
			s.Send()
		case ibv.WROpcodeSendWithImm:
			s.SendImm(w.Imm)
		case ibv.WROpcodeSendWithInv:
			s.SendInv(w.InvalidateRKey)
		case ibv.WROpcodeRDMAWrite:
			s.RDMAWrite(w.RKey, w.RemoteAddr)
		case ibv.WROpcodeRDMAWriteWithImm:
			s.RDMAWriteImm(w.RKey, w.RemoteAddr, w.Imm)
		case ibv.WROpcodeRDMARead:
			s.RDMARead(w.RKey, w.RemoteAddr)
		case ibv.WROpcodeAtomicCmpAndSwp:
			s.AtomicCmpSwp(w.RKey, w.RemoteAddr, w.CompareAdd, w.Swap)
		case ibv.WROpcodeAtomicFetchAndAdd:
			s.AtomicFetchAdd(w.RKey, w.RemoteAddr, w.CompareAdd)
		case ibv.WROpcodeLocalInv:
			s.LocalInv(w.InvalidateRKey)
			continue // no data
		}
		if q.typ == ibv.QPTypeUD {
			s = &steps[n]
			n++
			s.SetUDAddr(uintptr(unsafe.Pointer(w.AH.ah)), w.RemoteQPN, w.RemoteQKey)
		}
		s = &steps[n]
		n++
		switch k := len(w.SGEs); {
		case w.Flags&ibv.SendFlagsInline != 0:
			total := 0
			for _, sg := range w.SGEs {
				total += int(sg.Length)
			}
			if total > int(q.actual.MaxInlineData) {
				return &PostError{Err: invalid(op, "work request %d: %d bytes of inline data, the QP takes %d", i, total, q.actual.MaxInlineData)}
			}
			if k == 1 {
				s.SetInlineData(uintptr(w.SGEs[0].Addr), uint64(total))
				break
			}
			// Gathered into the QP's own memory first and set as one
			// buffer: librxe's ibv_wr_set_inline_data_list before
			// rdma-core 64 sends none of a list's bytes, and copies a
			// list longer than max_inline past its WQE (rdma-core commit
			// 1e8ed0aff).
			buf := q.exInline[i*q.exInlineLen : i*q.exInlineLen+total]
			off := 0
			for j, sg := range w.SGEs {
				src := mappedBytes(uintptr(sg.Addr), int(sg.Length))
				if src == nil && sg.Length > 0 {
					return &PostError{Err: invalid(op, "work request %d: inline SGE %d (%d bytes at %#x) is not inside a live Buffer or pinned registered memory", i, j, sg.Length, sg.Addr)}
				}
				off += copy(buf[off:], src)
			}
			s.SetInlineData(uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uint64(total))
		case k == 1:
			sg := &w.SGEs[0]
			s.SetSGE(sg.LKey, sg.Addr, sg.Length)
		case k > 1 && q.exOneSGE:
			return &PostError{Err: notSupported(op, "work request %d: %d SGEs: librxe before rdma-core %d takes one SGE per work request through the extended API (its ibv_wr_set_sge_list sets a wrong length): post it with PostSend", i, k, rxeSGEListFixed)}
		default:
			sgs := q.ssge[i*maxSGE : i*maxSGE+k]
			copy(sgs, w.SGEs)
			s.SetSGEList(uint64(k), uintptr(unsafe.Pointer(unsafe.SliceData(sgs))))
		}
	}
	rc := ibv.FastWRPost(&q.exOps, q.exAddr, int32(n), &steps[0])
	switch {
	case rc == 0:
		return nil
	case rc < 0:
		// A step the provider has no op for: the work request it builds
		// or completes.
		wr := -1
		for _, s := range steps[:max(q.exOps.Bad+1, 1)] {
			if s.Op < ibv.WRStepSetSGE {
				wr++
			}
		}
		return &PostError{Err: invalid(op, "work request %d: the provider has no builder or setter for it (ibv_wr_abort called)", max(wr, 0))}
	}
	return &PostError{Err: cerr.ZeroOrErrno("ibv_wr_complete", rc)}
}

// setEx makes x, the QP's struct ibv_qp_ex, PostEx's, with its memory:
// three steps per work request (a builder, an address, data), and room
// for each work request's inline data gathered from several SGEs; oneSGE
// refuses a work request of several SGEs (rxeSGEListFixed).
func (q *QP) setEx(x *ibv.QPEx, oneSGE bool) {
	q.exAddr, q.exOps, q.exOneSGE = uintptr(unsafe.Pointer(x)), ibv.FastWRPostOps(x), oneSGE
	q.exSteps = make([]ibv.WRStep, 3*len(q.swr))
	if q.exInlineLen = int(q.actual.MaxInlineData); q.exInlineLen > 0 && q.caps.MaxSendSGE > 1 {
		n := len(q.swr) * q.exInlineLen
		q.exMem = cAlloc(uintptr(n))
		q.exInline = unsafe.Slice((*byte)(q.exMem), n)
	}
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
func (d *Device) singleExPoll() bool { return d.rxeBefore(rxeNextPollFixed) }

// rxeBefore reports whether d is an rxe device whose librxe is older than
// rdma-core release (or of a release unknown).
func (d *Device) rxeBefore(release int) bool {
	attr, err := d.ctx.QueryDevice()
	if err != nil || attr.VendorID != rxeVendorID {
		return false
	}
	r, err := ibv.Release()
	return err != nil || r < release
}

// rxeSGEListFixed is the first rdma-core release whose librxe sets a
// work request's length in ibv_wr_set_sge_list to the sum of its SGEs'
// (before it, the number of SGEs times the first one's length: the
// kernel then fails the work request, IBV_WC_LOC_QP_OP_ERR; rdma-core
// commit 406cd2ad0, seen on 44 by TestPostExRC).
const rxeSGEListFixed = 64

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
