package rdma

import (
	"sort"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Buffer is memory outside the Go heap (an anonymous private mmap), for
// registration: C may keep pointers into it for as long as it likes, and
// the garbage collector never moves or frees it. Free it after the MRs
// registered on it are closed.
type Buffer struct {
	life
	b []byte
}

// AllocBuffer maps n bytes (rounded up to whole pages), zeroed.
func AllocBuffer(n int) (*Buffer, error) {
	if n <= 0 {
		return nil, invalid("rdma.AllocBuffer", "size %d: a buffer needs at least one byte", n)
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, opErr("rdma.AllocBuffer: mmap", err)
	}
	buf := &Buffer{b: b[:n:n]}
	buf.kind = "Buffer"
	buffers.add(buf)
	return buf, nil
}

// Bytes is the buffer's memory; do not use it after Free.
func (b *Buffer) Bytes() []byte { return b.b }

// Len is the buffer's size.
func (b *Buffer) Len() int { return len(b.b) }

// Free unmaps the buffer. It fails with a *BusyError while an MR is
// registered on it; a second Free does nothing.
func (b *Buffer) Free() error {
	if b == nil {
		return nilErr("rdma.Buffer.Free")
	}
	return b.close(func() error {
		buffers.remove(b)
		if err := unix.Munmap(b.b[:cap(b.b)]); err != nil {
			buffers.add(b)
			return opErr("rdma.Buffer.Free: munmap", err)
		}
		return nil
	})
}

func (b *Buffer) start() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b.b))) }
func (b *Buffer) size() int      { return len(b.b) }

func (m *MR) start() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(m.mem))) }
func (m *MR) size() int      { return len(m.mem) }

// region is memory known to be mapped while it is listed: a live Buffer,
// or the pinned Go memory of a live MR.
type region interface {
	*Buffer | *MR
	start() uintptr
	size() int
}

// regionSet finds the listed region holding a range of memory.
type regionSet[T region] struct {
	mu   sync.RWMutex
	list []T // sorted by start
}

var (
	buffers   regionSet[*Buffer]
	pinnedMRs regionSet[*MR]
)

func (s *regionSet[T]) add(r T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].start() >= r.start() })
	s.list = append(s.list, r)
	copy(s.list[i+1:], s.list[i:])
	s.list[i] = r
}

func (s *regionSet[T]) remove(r T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.list {
		if x == r {
			s.list = append(s.list[:i], s.list[i+1:]...)
			return
		}
	}
}

// holding is a listed region containing [p, p+n), or nil. Regions may
// overlap (two MRs of the same pinned memory): any holding one does.
func (s *regionSet[T]) holding(p uintptr, n int) T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].start() > p })
	for j := i - 1; j >= 0; j-- {
		r := s.list[j]
		if p+uintptr(n) <= r.start()+uintptr(r.size()) {
			return r
		}
	}
	return nil
}

// mappedMemory reports whether [p, p+n) lies in memory this package knows
// to be mapped: a live Buffer, or pinned memory of a live MR.
func mappedMemory(p uintptr, n int) bool {
	return p+uintptr(n) >= p && (buffers.holding(p, n) != nil || pinnedMRs.holding(p, n) != nil)
}

// mappedBytes is [p, p+n) as a slice of the memory holding it, a live
// Buffer or pinned memory of a live MR, or nil when this package knows
// no such memory.
func mappedBytes(p uintptr, n int) []byte {
	if p+uintptr(n) < p {
		return nil
	}
	if b := buffers.holding(p, n); b != nil {
		o := p - b.start()
		return b.b[o : o+uintptr(n)]
	}
	if m := pinnedMRs.holding(p, n); m != nil {
		o := p - m.start()
		return m.mem[o : o+uintptr(n)]
	}
	return nil
}
