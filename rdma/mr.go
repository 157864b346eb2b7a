package rdma

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// MR is a memory registration (struct ibv_mr). The memory stays valid (a
// Buffer cannot be freed, pinned Go memory stays pinned) until Close.
type MR struct {
	life
	mr     *ibv.MR
	pd     *PD
	buf    *Buffer
	pinner runtime.Pinner
	mem    []byte
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
	m := &MR{pd: p, mem: b}
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
	p.adopt("MR")
	return m, nil
}

// Raw is the generated handle, valid until Close.
func (m *MR) Raw() *ibv.MR { return m.mr }

// LKey is the local key, for SGEs.
func (m *MR) LKey() uint32 { return m.mr.LKey }

// RKey is the remote key, for the peer's RDMA reads and writes.
func (m *MR) RKey() uint32 { return m.mr.RKey }

// Addr is the registered range's start address.
func (m *MR) Addr() uint64 { return uint64(uintptr(m.mr.Addr)) }

// Bytes is the registered memory.
func (m *MR) Bytes() []byte { return m.mem }

// SGE describes n bytes of the registered memory at offset off, or fails
// with an error wrapping unix.EINVAL when the range is outside it.
func (m *MR) SGE(off, n int) (ibv.SGE, error) {
	if err := m.use("rdma.MR.SGE"); err != nil {
		return ibv.SGE{}, err
	}
	defer m.done()
	if off < 0 || n < 0 || off+n > len(m.mem) {
		return ibv.SGE{}, invalid("rdma.MR.SGE", "range [%d, %d) outside the %d registered bytes", off, off+n, len(m.mem))
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
		m.pinner.Unpin()
		m.pd.disown("MR")
		if m.buf != nil {
			m.buf.disown("MR")
		}
		return nil
	})
}
