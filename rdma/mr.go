package rdma

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// MR is a memory registration (struct ibv_mr). The memory stays valid (a
// Buffer cannot be freed, pinned Go memory stays pinned, a DMA-BUF's fd is
// the caller's to keep open) until Close.
//
// With ibv.AccessFlagsOnDemand in the access flags the registration is on-demand
// paging (ODP): the device faults pages in as it touches them, and
// Prefetch asks for them ahead of use. The memory's rules are the same (a
// Buffer or pinned memory), since the device may touch it at any time.
// Devices without ODP (rxe on Linux 6.1 among them) refuse such a
// registration with an error wrapping unix.EOPNOTSUPP.
type MR struct {
	life
	mr     *ibv.MR
	pd     *PD
	buf    *Buffer
	pinner runtime.Pinner
	mem    []byte // nil for a DMA-BUF registration
	length int
	pinned bool // mem is pinned Go memory, listed in pinnedMRs
}

// Register registers b, which must lie inside a live Buffer
// (ibv_reg_mr). Any other memory — Go heap memory above all, which the
// garbage collector may move or free while the device still writes to it —
// is refused with an error wrapping ErrUnpinnedMemory; pin it with
// RegisterPinned instead. An empty b wraps unix.EINVAL.
func (p *PD) Register(b []byte, access ibv.AccessFlags) (*MR, error) {
	const op = "rdma.PD.Register"
	if len(b) == 0 {
		return nil, invalid(op, "empty memory range: nothing to register")
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	buf := buffers.holding(start, len(b))
	if buf == nil {
		return nil, opErr(op, fmt.Errorf("%w: %d bytes at %#x are not inside a live rdma.Buffer; allocate with AllocBuffer or use PD.RegisterPinned", ErrUnpinnedMemory, len(b), start))
	}
	if err := buf.use(op); err != nil {
		return nil, err
	}
	defer buf.done()
	mr, err := p.reg(op, b, access, nil)
	if err != nil {
		return nil, err
	}
	mr.buf = buf
	buf.adopt("MR")
	return mr, nil
}

// RegisterPinned registers Go memory b, pinning it (runtime.Pinner) until
// Close, as the cgo rules require for memory C keeps a pointer to. Prefer
// Buffer for large or long-lived memory: pinned memory is never freed or
// moved while pinned, which fragments the heap.
func (p *PD) RegisterPinned(b []byte, access ibv.AccessFlags) (*MR, error) {
	const op = "rdma.PD.RegisterPinned"
	if len(b) == 0 {
		return nil, invalid(op, "empty memory range: nothing to register")
	}
	return p.reg(op, b, access, unsafe.SliceData(b))
}

func (p *PD) reg(op string, b []byte, access ibv.AccessFlags, pin *byte) (*MR, error) {
	if err := p.use(op); err != nil {
		return nil, err
	}
	defer p.done()
	if access&ibv.AccessFlagsOnDemand != 0 {
		if err := p.dev.checkODP(op); err != nil {
			return nil, err
		}
	}
	m := &MR{pd: p, mem: b, length: len(b)}
	m.kind = "MR"
	if pin != nil {
		m.pinner.Pin(pin)
	}
	mr, err := p.pd.RegMR(b, access)
	if err != nil {
		m.pinner.Unpin()
		return nil, err
	}
	m.mr = mr
	if pin != nil {
		m.pinned = true
		pinnedMRs.add(m)
	}
	p.adopt("MR")
	return m, nil
}

// RegisterDMABuf registers length bytes at offset of the DMA-BUF fd (a
// buffer a GPU or other device driver exported) for the device, at I/O
// virtual address iova: the address SGEs and peers' RDMA operations use
// for it (ibv_reg_dmabuf_mr). The fd stays the caller's: keep it open
// until Close. MR.Bytes is nil for such a registration (the memory is not
// mapped in the process); MR.SGE works on iova. Devices without DMA-BUF
// support (rxe on Linux 6.1 among them) refuse with an error wrapping
// unix.EOPNOTSUPP, and nothing is left registered.
func (p *PD) RegisterDMABuf(fd int, offset, length, iova uint64, access ibv.AccessFlags) (*MR, error) {
	const op = "rdma.PD.RegisterDMABuf"
	if fd < 0 {
		return nil, invalid(op, "fd %d", fd)
	}
	if length == 0 || length > 1<<62 {
		return nil, invalid(op, "length %d: must be positive", length)
	}
	if err := p.use(op); err != nil {
		return nil, err
	}
	defer p.done()
	mr, err := p.pd.RegDMABufMR(offset, length, iova, fd, access)
	if err != nil {
		return nil, err
	}
	m := &MR{mr: mr, pd: p, length: int(length)}
	m.kind = "MR"
	p.adopt("MR")
	return m, nil
}

// Prefetch asks the device to fault in n bytes at offset off of an
// on-demand-paging registration ahead of use, for reading or, with write,
// for writing too (ibv_advise_mr with IBV_ADVISE_MR_ADVICE_PREFETCH or
// PREFETCH_WRITE and IBV_ADVISE_MR_FLAG_FLUSH: it returns once the pages
// are in). A device or registration without ODP refuses with an error
// wrapping unix.EOPNOTSUPP (or what the provider returns).
func (m *MR) Prefetch(off, n int, write bool) error {
	const op = "rdma.MR.Prefetch"
	sg, err := m.SGE(off, n)
	if err != nil {
		return err
	}
	if err := m.pd.use(op); err != nil {
		return err
	}
	defer m.pd.done()
	if err := m.use(op); err != nil {
		return err
	}
	defer m.done()
	advice := ibv.AdviseMRAdvicePrefetch
	if write {
		advice = ibv.AdviseMRAdvicePrefetchWrite
	}
	return m.pd.pd.AdviseMR(advice, ibv.UverbsAdviseMRFlagFlush, []ibv.SGE{sg})
}

// Raw is the generated handle, valid until Close.
func (m *MR) Raw() *ibv.MR { return m.mr }

// LKey is the local key, for SGEs.
func (m *MR) LKey() uint32 { return m.mr.LKey }

// RKey is the remote key, for the peer's RDMA reads and writes.
func (m *MR) RKey() uint32 { return m.mr.RKey }

// Addr is the registered range's start address (a DMA-BUF
// registration's iova).
func (m *MR) Addr() uint64 { return uint64(uintptr(m.mr.Addr)) }

// Len is the registered range's length in bytes.
func (m *MR) Len() int { return m.length }

// Bytes is the registered memory (nil for a DMA-BUF registration, which is
// not mapped in the process).
func (m *MR) Bytes() []byte { return m.mem }

// SGE describes n bytes of the registered memory at offset off, or fails
// with an error wrapping unix.EINVAL when the range is outside it.
func (m *MR) SGE(off, n int) (ibv.SGE, error) {
	if err := m.use("rdma.MR.SGE"); err != nil {
		return ibv.SGE{}, err
	}
	defer m.done()
	if off < 0 || n < 0 || off+n > m.length || n > int(^uint32(0)) {
		return ibv.SGE{}, invalid("rdma.MR.SGE", "range [%d, %d) outside the %d registered bytes", off, off+n, m.length)
	}
	return ibv.SGE{Addr: m.Addr() + uint64(off), Length: uint32(n), LKey: m.mr.LKey}, nil
}

// Close deregisters the memory (ibv_dereg_mr) and unpins it.
func (m *MR) Close() error {
	if m == nil {
		return nilErr("rdma.MR.Close")
	}
	return m.close(func() error {
		if err := m.mr.Dereg(); err != nil {
			return err
		}
		if m.pinned {
			pinnedMRs.remove(m)
		}
		m.pinner.Unpin()
		m.pd.disown("MR")
		if m.buf != nil {
			m.buf.disown("MR")
		}
		return nil
	})
}
