package rdma

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"golang.org/x/sys/unix"
)

// QPConfig describes a queue pair to create. Zero sizes take the defaults.
type QPConfig struct {
	Type           ibv.QPType // ibv.QPTypeRC, QptUC or QptUD; the zero value means RC
	SendCQ, RecvCQ *CQ        // both required (may be the same CQ)
	MaxSend        int        // send queue depth (default 64)
	MaxRecv        int        // receive queue depth (default 64)
	MaxSendSGE     int        // SGEs per send work request (default 1)
	MaxRecvSGE     int        // SGEs per receive work request (default 1)
	MaxInline      int        // inline data bytes (default 0)
	SignalAll      bool       // every send completes with a CQE (sq_sig_all)
	// SRQ, when set, is the shared receive queue the QP takes its
	// receives from (ibv_qp_init_attr.srq): MaxRecv and MaxRecvSGE are
	// then unused, and QP.PostRecv refuses receives (post them with
	// SRQ.PostRecv). It must belong to the QP's PD.
	SRQ *SRQ
	// SendOps, when nonzero, creates the QP with ibv_create_qp_ex and these
	// IBV_QP_EX_WITH_* flags, for the extended post API (QP.Ex).
	SendOps ibv.QPCreateSendOpsFlags
}

// QP is a queue pair (struct ibv_qp). Its work requests and SGEs are built in
// memory it owns outside the Go heap, reused by every post.
type QP struct {
	life
	qp       *ibv.QP
	pd       *PD
	scq, rcq *CQ
	typ      ibv.QPType
	state    atomic.Int32 // ibv.QPState as last set through Modify
	caps     ibv.QPCap    // as asked: the arena's layout
	actual   ibv.QPCap    // as created
	// The provider's post_send and post_recv, and the struct ibv_qp: C
	// addresses, as ibv's fast-path trampolines take them
	// (ibv.FastPostSend).
	postSend, postRecv, addr uintptr
	destroy                  func() error
	sendOps                  ibv.QPCreateSendOpsFlags
	opBits                   uint32 // the opcodes PostSend takes on the QP's type, as bits (sendOpBits)
	srq                      *SRQ   // the QP's shared receive queue, or nil
	// udMTU is, for a UD QP moved to INIT with a port, that port's active
	// MTU in bytes: the longest message a send may carry. 0 until known.
	udMTU atomic.Int32
	// mcast are the multicast groups attached (AttachMulticast).
	mcastMu sync.Mutex
	mcast   map[mcastGroup]bool

	arena []byte // mmap'd: send WRs, send SGEs, recv WRs, recv SGEs
	// PostSend and PostRecv hold sendMu and recvMu, one each, and not the
	// QP's life: Close takes both before it destroys the QP and sets
	// queuesClosed, under them, once it has, so a post never runs on a
	// destroyed QP and the data path takes one lock, not two (each lock
	// and unlock an atomic instruction: about half an empty cgo call per
	// post on the host CPU, docs/benchmarks.md).
	sendMu, recvMu sync.Mutex
	queuesClosed   bool
	swr            []ibv.SendWR
	ssge           []ibv.SGE
	rwr            []ibv.RecvWR
	rsge           []ibv.SGE
}

// NewQP creates a queue pair (ibv_create_qp, or ibv_create_qp_ex with
// cfg.SendOps) in the RESET state.
func (p *PD) NewQP(cfg QPConfig) (*QP, error) {
	var q *QP
	return p.adoptQP(cfg, func(init *ibv.QPInitAttr) (*ibv.QP, error) {
		if cfg.SendOps == 0 {
			return p.pd.CreateQP(init)
		}
		return p.dev.ctx.CreateQPEx(&ibv.QPInitAttrEx{
			SendCQ: init.SendCQ, RecvCQ: init.RecvCQ, Cap: init.Cap, QPType: init.QPType, SQSigAll: init.SQSigAll,
			CompMask: uint32(ibv.QPInitAttrMaskPD | ibv.QPInitAttrMaskSendOpsFlags), PD: p.pd,
			SendOpsFlags: uint64(cfg.SendOps),
		})
	}, func() error { return q.qp.Destroy() }, &q)
}

// adoptQP checks cfg, creates the QP with create and wraps it; destroy
// frees it at Close. *out is set before destroy can run.
func (p *PD) adoptQP(cfg QPConfig, create func(*ibv.QPInitAttr) (*ibv.QP, error), destroy func() error, out **QP) (*QP, error) {
	const op = "rdma.PD.NewQP"
	if p == nil {
		return nil, nilErr(op)
	}
	if cfg.Type == 0 {
		cfg.Type = ibv.QPTypeRC
	}
	if _, ok := sendOps[cfg.Type]; !ok {
		return nil, invalid(op, "QP type %s: rdma creates RC, UC and UD QPs (make others with ibv on PD.Raw, and adopt them: Adopt)", cfg.Type)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&cfg.MaxSend, 64)
	def(&cfg.MaxSendSGE, 1)
	if cfg.SRQ == nil {
		def(&cfg.MaxRecv, 64)
		def(&cfg.MaxRecvSGE, 1)
	} else {
		cfg.MaxRecv, cfg.MaxRecvSGE = 0, 0
	}
	if cfg.SendCQ == nil || cfg.RecvCQ == nil {
		return nil, invalid(op, "a QP needs a send CQ and a receive CQ")
	}
	for _, v := range []int{cfg.MaxSend, cfg.MaxRecv, cfg.MaxSendSGE, cfg.MaxRecvSGE, cfg.MaxInline} {
		if v < 0 || v > 1<<30 {
			return nil, invalid(op, "queue size %d out of range [0, 1<<30]", v)
		}
	}
	cqs := []*CQ{cfg.SendCQ}
	if cfg.RecvCQ != cfg.SendCQ {
		cqs = append(cqs, cfg.RecvCQ)
	}
	for _, cq := range cqs {
		if cq.dev != p.dev {
			return nil, invalid(op, "CQ of device %s used for a PD of device %s", cq.dev.name, p.dev.name)
		}
		if err := cq.use(op); err != nil {
			return nil, err
		}
		defer cq.done()
	}
	if err := p.use(op); err != nil {
		return nil, err
	}
	defer p.done()
	if cfg.SRQ != nil {
		if cfg.SRQ.pd != p {
			return nil, invalid(op, "the SRQ belongs to another PD")
		}
		if err := cfg.SRQ.use(op); err != nil {
			return nil, err
		}
		defer cfg.SRQ.done()
	}

	caps := ibv.QPCap{
		MaxSendWR: uint32(cfg.MaxSend), MaxRecvWR: uint32(cfg.MaxRecv),
		MaxSendSGE: uint32(cfg.MaxSendSGE), MaxRecvSGE: uint32(cfg.MaxRecvSGE),
		MaxInlineData: uint32(cfg.MaxInline),
	}
	init := ibv.QPInitAttr{SendCQ: cfg.SendCQ.cq, RecvCQ: cfg.RecvCQ.cq, Cap: caps, QPType: cfg.Type}
	if cfg.SRQ != nil {
		init.SRQ = cfg.SRQ.srq
	}
	if cfg.SignalAll {
		init.SQSigAll = 1
	}
	raw, err := create(&init)
	if err != nil {
		return nil, err
	}
	q := &QP{qp: raw, pd: p, scq: cfg.SendCQ, rcq: cfg.RecvCQ, typ: cfg.Type, srq: cfg.SRQ,
		caps: caps, destroy: destroy, sendOps: cfg.SendOps, opBits: sendOpBits(cfg.Type),
		postSend: ibv.FastPostSendOp(raw), postRecv: ibv.FastPostRecvOp(raw), addr: uintptr(unsafe.Pointer(raw))}
	*out = q
	q.kind = "QP"
	q.actual = init.Cap // ibv_create_qp reports the sizes it gave
	if q.postSend == 0 || q.postRecv == 0 {
		destroy()
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_post_send", Op: "context->ops.post_send or post_recv"})
	}
	if err := q.mapArena(cfg); err != nil {
		destroy()
		return nil, err
	}
	p.adopt("QP")
	for _, cq := range cqs {
		cq.adopt("QP")
	}
	if cfg.SRQ != nil {
		cfg.SRQ.adopt("QP")
	}
	p.dev.register(unsafe.Pointer(raw), q)
	return q, nil
}

// mapArena maps the QP's work-request memory: one send WR and its SGEs per
// send queue slot, likewise for receives.
func (q *QP) mapArena(cfg QPConfig) error {
	swrSz := int(unsafe.Sizeof(ibv.SendWR{}))
	rwrSz := int(unsafe.Sizeof(ibv.RecvWR{}))
	sgeSz := int(unsafe.Sizeof(ibv.SGE{}))
	sizes := []int{cfg.MaxSend * swrSz, cfg.MaxSend * cfg.MaxSendSGE * sgeSz, cfg.MaxRecv * rwrSz, cfg.MaxRecv * cfg.MaxRecvSGE * sgeSz}
	total := 0
	for _, s := range sizes {
		total += (s + 63) &^ 63
	}
	a, err := unix.Mmap(-1, 0, total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return opErr("rdma.PD.NewQP: mmap work requests", err)
	}
	q.arena = a
	off := 0
	next := func(i int) unsafe.Pointer {
		if sizes[i] == 0 {
			return nil
		}
		p := unsafe.Pointer(&a[off])
		off += (sizes[i] + 63) &^ 63
		return p
	}
	q.swr = unsafe.Slice((*ibv.SendWR)(next(0)), cfg.MaxSend)
	q.ssge = unsafe.Slice((*ibv.SGE)(next(1)), cfg.MaxSend*cfg.MaxSendSGE)
	q.rwr = unsafe.Slice((*ibv.RecvWR)(next(2)), cfg.MaxRecv)
	q.rsge = unsafe.Slice((*ibv.SGE)(next(3)), cfg.MaxRecv*cfg.MaxRecvSGE)
	return nil
}

// Raw is the generated handle, valid until Close.
func (q *QP) Raw() *ibv.QP { return q.qp }

// Num is the QP number.
func (q *QP) Num() uint32 { return q.qp.QPNum }

// Type is the QP's transport type.
func (q *QP) Type() ibv.QPType { return q.typ }

// Caps are the queue sizes the QP was created with (the provider may give
// more than asked; one PostSend/PostRecv batch holds at most what was
// asked).
func (q *QP) Caps() ibv.QPCap { return q.actual }

// State is the state last set through Modify (the device may since have
// moved the QP to an error state; Query asks it).
func (q *QP) State() ibv.QPState { return ibv.QPState(q.state.Load()) }

// Query returns the QP's current attributes for mask (ibv_query_qp) and
// updates State.
func (q *QP) Query(mask ibv.QPAttrMask) (ibv.QPAttr, ibv.QPInitAttr, error) {
	if err := q.use("rdma.QP.Query"); err != nil {
		return ibv.QPAttr{}, ibv.QPInitAttr{}, err
	}
	defer q.done()
	attr, init, err := q.qp.Query(mask | ibv.QPAttrMaskState)
	if err != nil {
		return attr, init, err
	}
	q.state.Store(int32(attr.QPState))
	return attr, init, nil
}

// Modify changes the QP's attributes (ibv_modify_qp). The transition and
// the mask are first checked against the QP state table of the QP's type
// (see the ibv_modify_qp(3) tables): a transition that does not exist, a
// required attribute missing from mask or one the transition does not
// accept is a *StateError naming them, and C is not called. When the state
// this package tracked may be stale (the device moves a QP to an error
// state on its own), the state is queried once before refusing.
func (q *QP) Modify(attr *ibv.QPAttr, mask ibv.QPAttrMask) error {
	if attr == nil {
		return invalid("rdma.QP.Modify", "nil attributes")
	}
	if err := q.use("rdma.QP.Modify"); err != nil {
		return err
	}
	defer q.done()
	if serr := checkTransition(q.typ, q.State(), attr, mask); serr != nil {
		cur, _, err := q.qp.Query(ibv.QPAttrMaskState)
		if err != nil || cur.QPState == q.State() {
			return serr
		}
		q.state.Store(int32(cur.QPState))
		if serr := checkTransition(q.typ, cur.QPState, attr, mask); serr != nil {
			return serr
		}
	}
	if err := q.qp.Modify(attr, mask); err != nil {
		return err
	}
	if mask&ibv.QPAttrMaskState != 0 {
		q.state.Store(int32(attr.QPState))
	}
	if q.typ == ibv.QPTypeUD && mask&ibv.QPAttrMaskPort != 0 {
		q.learnUDMTU(attr.PortNum)
	}
	return nil
}

// Close detaches the QP from the multicast groups it is attached to and
// destroys it (ibv_detach_mcast, ibv_destroy_qp). Outstanding work requests are
// discarded with it: move the QP to the error state and drain the CQs
// first to have them completed with IBV_WC_WR_FLUSH_ERR. (On rxe, Linux 6.1,
// the receive queue is flushed once, when the QP enters the error state: a
// receive posted after that never completes.)
func (q *QP) Close() error {
	if q == nil {
		return nilErr("rdma.QP.Close")
	}
	return q.close(func() error {
		if err := q.detachAll(); err != nil {
			return err
		}
		// No post runs from here on (see queuesClosed).
		q.sendMu.Lock()
		defer q.sendMu.Unlock()
		q.recvMu.Lock()
		defer q.recvMu.Unlock()
		if err := q.destroy(); err != nil {
			return err
		}
		q.queuesClosed = true
		q.pd.dev.unregister(unsafe.Pointer(q.qp))
		q.swr, q.ssge, q.rwr, q.rsge = nil, nil, nil, nil
		unix.Munmap(q.arena)
		q.pd.disown("QP")
		q.scq.disown("QP")
		if q.rcq != q.scq {
			q.rcq.disown("QP")
		}
		if q.srq != nil {
			q.srq.disown("QP")
		}
		return nil
	})
}
