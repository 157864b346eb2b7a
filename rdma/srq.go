package rdma

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

// SRQConfig describes a shared receive queue to create. Zero sizes take
// the defaults.
type SRQConfig struct {
	MaxWR  int // receive work requests the queue holds (default 64)
	MaxSGE int // SGEs per receive work request (default 1)
	// Limit, when positive, arms the limit event at once (see
	// SRQ.SetLimit).
	Limit int
}

// SRQ is a shared receive queue (struct ibv_srq): the receives of every QP
// created with it (QPConfig.SRQ), posted once for all of them. Its work
// requests and SGEs are built in memory it owns outside the Go heap.
type SRQ struct {
	life
	srq *ibv.SRQ
	pd  *PD
	// The provider's post_srq_recv and the struct ibv_srq: C addresses, as
	// ibv.FastPostSRQRecv takes them.
	postRecv, addr uintptr
	maxWR, maxSGE  int         // as asked: the arena's layout
	actual         ibv.SRQAttr // as created

	// mu is PostRecv's lock; Close takes it too and sets closedQueue
	// under it once the SRQ is destroyed (as QP.queuesClosed).
	mu          sync.Mutex
	closedQueue bool
	arena       []byte // mmap'd: receive WRs, their SGEs
	wrs         []ibv.RecvWR
	sges        []ibv.SGE
}

// NewSRQ creates a shared receive queue (ibv_create_srq) on the PD.
func (p *PD) NewSRQ(cfg SRQConfig) (*SRQ, error) {
	return p.newSRQ(cfg, func(init *ibv.SRQInitAttr) (*ibv.SRQ, error) { return p.pd.CreateSRQ(init) })
}

// newSRQ checks cfg, creates the SRQ with create and wraps it.
func (p *PD) newSRQ(cfg SRQConfig, create func(*ibv.SRQInitAttr) (*ibv.SRQ, error)) (*SRQ, error) {
	const op = "rdma.PD.NewSRQ"
	if cfg.MaxWR == 0 {
		cfg.MaxWR = 64
	}
	if cfg.MaxSGE == 0 {
		cfg.MaxSGE = 1
	}
	for _, v := range []int{cfg.MaxWR, cfg.MaxSGE, cfg.Limit} {
		if v < 0 || v > 1<<30 {
			return nil, invalid(op, "SRQ size %d out of range [0, 1<<30]", v)
		}
	}
	if cfg.Limit >= cfg.MaxWR {
		return nil, invalid(op, "SRQ limit %d must be below its %d work requests", cfg.Limit, cfg.MaxWR)
	}
	if err := p.use(op); err != nil {
		return nil, err
	}
	defer p.done()
	init := ibv.SRQInitAttr{Attr: ibv.SRQAttr{MaxWR: uint32(cfg.MaxWR), MaxSGE: uint32(cfg.MaxSGE), SRQLimit: uint32(cfg.Limit)}}
	raw, err := create(&init)
	if err != nil {
		return nil, err
	}
	s := &SRQ{srq: raw, pd: p, postRecv: ibv.FastPostSRQRecvOp(raw), addr: uintptr(unsafe.Pointer(raw)),
		maxWR: cfg.MaxWR, maxSGE: cfg.MaxSGE, actual: init.Attr}
	s.kind = "SRQ"
	if s.postRecv == 0 {
		raw.Destroy()
		return nil, opErr(op, &ibv.NilOpError{Func: "ibv_post_srq_recv", Op: "context->ops.post_srq_recv"})
	}
	wrSz, sgeSz := int(unsafe.Sizeof(ibv.RecvWR{})), int(unsafe.Sizeof(ibv.SGE{}))
	wrBytes := (cfg.MaxWR*wrSz + 63) &^ 63
	a, err := unix.Mmap(-1, 0, wrBytes+cfg.MaxWR*cfg.MaxSGE*sgeSz, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		raw.Destroy()
		return nil, opErr(op+": mmap work requests", err)
	}
	s.arena = a
	s.wrs = unsafe.Slice((*ibv.RecvWR)(unsafe.Pointer(&a[0])), cfg.MaxWR)
	s.sges = unsafe.Slice((*ibv.SGE)(unsafe.Pointer(&a[wrBytes])), cfg.MaxWR*cfg.MaxSGE)
	p.adopt("SRQ")
	p.dev.register(unsafe.Pointer(raw), s)
	return s, nil
}

// Raw is the generated handle, valid until Close.
func (s *SRQ) Raw() *ibv.SRQ { return s.srq }

// PD is the protection domain the SRQ belongs to.
func (s *SRQ) PD() *PD { return s.pd }

// Caps are the SRQ's sizes as created (the provider may give more than
// asked; one PostRecv batch holds at most what was asked).
func (s *SRQ) Caps() ibv.SRQAttr { return s.actual }

// PostRecv posts ws to the shared receive queue as one chain with a single
// call of the provider's post_srq_recv (ibv_post_srq_recv): no allocation,
// one cgo crossing. The work requests and SGEs are copied into the SRQ's
// own memory, so ws may be reused at once. At most SRQConfig.MaxWR work
// requests of at most MaxSGE SGEs each; a failure is a *PostError.
func (s *SRQ) PostRecv(ws ...RecvWork) error {
	const op = "rdma.SRQ.PostRecv"
	if s == nil {
		return nilErr(op)
	}
	// The queue's lock alone, which Close takes too (see QP.queuesClosed).
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closedQueue {
		return opErr(op, ErrClosed)
	}
	if err := fillRecv(op, ws, s.wrs, s.sges, s.maxSGE, 0); err != nil {
		return err
	}
	var bad uintptr
	rc := ibv.FastPostSRQRecv(s.postRecv, s.addr, &s.wrs[0], &bad)
	return postErr("ibv_post_srq_recv", rc, bad, uintptr(unsafe.Pointer(&s.wrs[0])), unsafe.Sizeof(ibv.RecvWR{}))
}

// SetLimit arms the SRQ's limit (ibv_modify_srq with IBV_SRQ_LIMIT): once
// fewer than n receives are left in it, the device raises one
// IBV_EVENT_SRQ_LIMIT_REACHED, delivered by Device.AsyncEvent with this
// SRQ in AsyncEvent.SRQ, and disarms the limit; SetLimit again re-arms it.
// n must be positive and below the SRQ's size.
func (s *SRQ) SetLimit(n int) error {
	const op = "rdma.SRQ.SetLimit"
	if err := s.use(op); err != nil {
		return err
	}
	defer s.done()
	if n <= 0 || n >= int(s.actual.MaxWR) {
		return invalid(op, "limit %d: must be in [1, %d)", n, s.actual.MaxWR)
	}
	attr := ibv.SRQAttr{SRQLimit: uint32(n)}
	return s.srq.Modify(&attr, ibv.SRQAttrMaskLimit)
}

// Query returns the SRQ's attributes (ibv_query_srq): its sizes and the
// armed limit (0 once the limit event has fired).
func (s *SRQ) Query() (ibv.SRQAttr, error) {
	if err := s.use("rdma.SRQ.Query"); err != nil {
		return ibv.SRQAttr{}, err
	}
	defer s.done()
	return s.srq.Query()
}

// Close destroys the SRQ (ibv_destroy_srq) once no QP uses it (else a
// *BusyError). Receives still queued are discarded with it.
func (s *SRQ) Close() error {
	if s == nil {
		return nilErr("rdma.SRQ.Close")
	}
	return s.close(func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.srq.Destroy(); err != nil {
			return err
		}
		s.closedQueue = true
		s.pd.dev.unregister(unsafe.Pointer(s.srq))
		s.wrs, s.sges = nil, nil
		unix.Munmap(s.arena)
		s.pd.disown("SRQ")
		return nil
	})
}
