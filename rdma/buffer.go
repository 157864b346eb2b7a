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

// bufferSet finds the live Buffer holding a range of memory.
type bufferSet struct {
	mu   sync.Mutex
	list []*Buffer // sorted by start
}

var buffers bufferSet

func (s *bufferSet) add(b *Buffer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].start() >= b.start() })
	s.list = append(s.list, nil)
	copy(s.list[i+1:], s.list[i:])
	s.list[i] = b
}

func (s *bufferSet) remove(b *Buffer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.list {
		if x == b {
			s.list = append(s.list[:i], s.list[i+1:]...)
			return
		}
	}
}

// holding is the live Buffer containing [p, p+n), or nil.
func (s *bufferSet) holding(p uintptr, n int) *Buffer {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].start() > p })
	if i == 0 {
		return nil
	}
	b := s.list[i-1]
	if p+uintptr(n) <= b.start()+uintptr(len(b.b)) {
		return b
	}
	return nil
}
