package rdma

import (
	"runtime"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// SendBatch is a chain of send work requests checked once and built once
// in C memory of its own (QP.PrepareSend), then posted again and again,
// whole (Post) or in part (PostRange), each post one lock and one call of
// the provider's post_send (one cgo crossing), with no check and no copy
// of the work requests: what a C program does when it reposts a list it
// prepared (ib_write_bw's post lists, a server's request per slot).
//
// Between posts a program changes what changes from one post to the
// next, each in place and cheaply, within what PrepareSend checked:
//   - SetID, a work request's wr_id;
//   - SetSGE, the address and length of an SGE, within the range the SGE
//     had when prepared (its window: a slot's buffer, or a whole pool of
//     them); the key stays (an atomic's SGE keeps 8 bytes, an inline work
//     request's SGEs cannot change);
//   - SetImm, the immediate data of the ...WithImm operations;
//   - SetRemote, the remote address and key of RDMA writes, reads and
//     atomics (an atomic's address 8-byte aligned).
//
// The opcodes, flags, SGE counts and keys, and a UD send's address
// handle, stay as prepared, so that nothing reaches the provider that
// PostSend would refuse: each post only checks again what may have changed
// since (an inline work request's memory is still mapped, a UD send's
// address handle is still open and its messages fit the path MTU once it
// is known).
//
// A SendBatch is for one goroutine at a time (like a bytes.Buffer): a
// setter and a post of the same batch at once are a race. It holds no C
// resource: its memory is freed by the garbage collector once the batch
// is unreachable, and a post after its QP's Close fails with ErrClosed.
type SendBatch struct {
	q      *QP
	wrs    []ibv.SendWR // C memory (mem): the chain, linked once
	sges   []ibv.SGE    // C memory: maxSGE per work request, as the QP's arena
	win    []ibv.SGE    // the SGEs as prepared, laid out as sges: SetSGE's bounds
	kinds  []uint8      // per work request: sendKind* bits
	maxSGE int
	// slow: some work request needs a check at each post (inline data, a
	// UD send); ahs are the batch's distinct address handles, held during
	// each post; mtu is the UD path MTU the batch was last checked against
	// (0: not yet known).
	slow bool
	ahs  []*AH
	mtu  int32
}

// The kinds of a prepared send work request, as bits: what its setters
// may change, and what a post checks again.
const (
	sendKindImm    = 1 << iota // SetImm: a ...WithImm operation
	sendKindRemote             // SetRemote: an RDMA write or read
	sendKindAtomic             // SetRemote with an aligned address; SetSGE keeps 8 bytes
	sendKindInline             // SetSGE refused; a post checks the memory is still mapped
)

// PrepareSend checks ws as PostSend does (the same rules, the same
// errors) and builds their chain once, in C memory of the batch's own,
// for posting with SendBatch.Post or PostRange. At most Caps().MaxSendWR
// work requests of at most MaxSendSGE SGEs each; ws may be reused at
// once. The batch holds ws's address handles by reference: a post after
// one's Close fails.
func (q *QP) PrepareSend(ws ...SendWork) (*SendBatch, error) {
	const op = "rdma.QP.PrepareSend"
	if q == nil {
		return nil, nilErr(op)
	}
	if err := q.use(op); err != nil {
		return nil, err
	}
	defer q.done()
	if len(ws) == 0 || len(ws) > int(q.caps.MaxSendWR) {
		return nil, &PostError{Err: invalid(op, "%d work requests: a batch holds 1 to %d", len(ws), q.caps.MaxSendWR)}
	}
	maxSGE := int(q.caps.MaxSendSGE)
	wrSz, sgeSz := unsafe.Sizeof(ibv.SendWR{}), unsafe.Sizeof(ibv.SGE{})
	mem, base := batchAlloc(uintptr(len(ws)) * (wrSz + uintptr(maxSGE)*sgeSz))
	b := &SendBatch{q: q, maxSGE: maxSGE,
		wrs:   unsafe.Slice((*ibv.SendWR)(base), len(ws)),
		sges:  unsafe.Slice((*ibv.SGE)(unsafe.Add(base, uintptr(len(ws))*wrSz)), len(ws)*maxSGE),
		win:   make([]ibv.SGE, len(ws)*maxSGE),
		kinds: make([]uint8, len(ws)),
	}
	var heldAHs [8]*AH
	held, err := q.fillSendIn(op, ws, heldAHs[:0], b.wrs, b.sges)
	releaseAHs(held)
	if err != nil {
		cFree(mem)
		return nil, err
	}
	copy(b.win, b.sges)
	b.ahs = append([]*AH(nil), held...)
	for i := range ws {
		w := &ws[i]
		var k uint8
		switch w.Op {
		case ibv.WROpcodeSendWithImm, ibv.WROpcodeRDMAWriteWithImm:
			k |= sendKindImm
		}
		switch w.Op {
		case ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeRDMARead:
			k |= sendKindRemote
		case ibv.WROpcodeAtomicCmpAndSwp, ibv.WROpcodeAtomicFetchAndAdd:
			k |= sendKindAtomic
		}
		if w.Flags&ibv.SendFlagsInline != 0 {
			k |= sendKindInline
			b.slow = true
		}
		b.kinds[i] = k
	}
	if q.typ == ibv.QPTypeUD {
		b.slow = true
		b.mtu = q.udMTU.Load() // fillSend checked the lengths against it
	}
	runtime.AddCleanup(b, cFree, mem)
	return b, nil
}

// batchAlloc is n zeroed bytes of C memory at base, 64-byte aligned as the
// QP's arena is; free mem.
func batchAlloc(n uintptr) (mem, base unsafe.Pointer) {
	mem = cAlloc(n + 63)
	return mem, unsafe.Add(mem, (64-uintptr(mem)%64)%64)
}

// Len is the number of work requests in the batch (0 for a nil batch).
func (b *SendBatch) Len() int {
	if b == nil {
		return 0
	}
	return len(b.wrs)
}

// SetID sets work request i's wr_id for the next posts. i must be in
// [0, Len()): SetID panics otherwise, as indexing a slice does.
func (b *SendBatch) SetID(i int, id uint64) {
	b.wrs[i].WRID = id
	runtime.KeepAlive(b) // its memory is freed once it is unreachable
}

// SetSGE sets the address and length of SGE j of work request i for the
// next posts, within the range [addr, addr+length) that SGE had when
// prepared (its key stays). An atomic's SGE keeps its 8 bytes, and an
// inline work request's SGEs cannot change (the provider copies from
// them by address). Anything else is an error wrapping unix.EINVAL, and
// the SGE is left as it was.
func (b *SendBatch) SetSGE(i, j int, addr uint64, length uint32) error {
	const op = "rdma.SendBatch.SetSGE"
	if b == nil {
		return nilErr(op)
	}
	if uint(i) >= uint(len(b.wrs)) || uint(j) >= uint(b.wrs[i].NumSGE) {
		return invalid(op, "no SGE %d of work request %d", j, i)
	}
	k := b.kinds[i]
	if k&sendKindInline != 0 {
		return invalid(op, "work request %d is inline: its SGEs are fixed", i)
	}
	if k&sendKindAtomic != 0 && length != 8 {
		return invalid(op, "work request %d is an atomic: its SGE is 8 bytes, not %d", i, length)
	}
	err := setSGE(op, &b.sges[i*b.maxSGE+j], b.win[i*b.maxSGE+j], addr, length)
	runtime.KeepAlive(b)
	return err
}

// setSGE sets *sg to addr and length within window w.
func setSGE(op string, sg *ibv.SGE, w ibv.SGE, addr uint64, length uint32) error {
	if addr < w.Addr || addr-w.Addr > uint64(w.Length) || uint64(length) > uint64(w.Length)-(addr-w.Addr) {
		return invalid(op, "%d bytes at %#x: outside the SGE as prepared (%d bytes at %#x)", length, addr, w.Length, w.Addr)
	}
	sg.Addr, sg.Length = addr, length
	return nil
}

// SetImm sets the immediate data of work request i, a ...WithImm
// operation, for the next posts (network byte order, as SendWork.Imm).
// Any other is an error wrapping unix.EINVAL.
func (b *SendBatch) SetImm(i int, imm uint32) error {
	const op = "rdma.SendBatch.SetImm"
	if b == nil {
		return nilErr(op)
	}
	if uint(i) >= uint(len(b.wrs)) || b.kinds[i]&sendKindImm == 0 {
		return invalid(op, "work request %d: no ...WithImm operation of the batch", i)
	}
	*b.wrs[i].ImmData() = imm
	runtime.KeepAlive(b)
	return nil
}

// SetRemote sets the remote address and key of work request i, an RDMA
// write, read or atomic, for the next posts; an atomic's address must be
// 8-byte aligned. Anything else is an error wrapping unix.EINVAL.
func (b *SendBatch) SetRemote(i int, addr uint64, rkey uint32) error {
	const op = "rdma.SendBatch.SetRemote"
	if b == nil {
		return nilErr(op)
	}
	if uint(i) >= uint(len(b.wrs)) || b.kinds[i]&(sendKindRemote|sendKindAtomic) == 0 {
		return invalid(op, "work request %d: no RDMA operation of the batch", i)
	}
	if b.kinds[i]&sendKindAtomic != 0 {
		if addr%8 != 0 {
			return invalid(op, "work request %d: remote address %#x of an atomic is not 8-byte aligned", i, addr)
		}
		a := b.wrs[i].WR.Atomic()
		a.RemoteAddr, a.RKey = addr, rkey
		runtime.KeepAlive(b)
		return nil
	}
	r := b.wrs[i].WR.RDMA()
	r.RemoteAddr, r.RKey = addr, rkey
	runtime.KeepAlive(b)
	return nil
}

// Post posts the whole batch (PostRange(0, Len())).
func (b *SendBatch) Post() error {
	if b == nil {
		return nilErr("rdma.SendBatch.Post")
	}
	return b.PostRange(0, len(b.wrs))
}

// PostRange posts work requests [from, to) of the batch as one chain with
// a single call of the provider's post_send (ibv_post_send): one lock, one
// cgo crossing, no allocation. A failure is a *PostError as PostSend's,
// whose Posted counts from from.
func (b *SendBatch) PostRange(from, to int) error {
	const op = "rdma.SendBatch.Post"
	if b == nil {
		return nilErr(op)
	}
	if from < 0 || to > len(b.wrs) || from >= to {
		return &PostError{Err: invalid(op, "work requests [%d, %d) of a batch of %d", from, to, len(b.wrs))}
	}
	q := b.q
	q.sendMu.Lock()
	if q.queuesClosed {
		q.sendMu.Unlock()
		return opErr(op, ErrClosed)
	}
	if b.slow {
		err := b.postChecked(op, from, to)
		q.sendMu.Unlock()
		return err
	}
	rc, bad := b.post(from, to)
	q.sendMu.Unlock()
	if rc != 0 {
		return postErr("ibv_post_send", rc, bad, uintptr(unsafe.Pointer(&b.wrs[from])), unsafe.Sizeof(ibv.SendWR{}))
	}
	return nil
}

// post is the provider's post_send of wrs[from:to], under the QP's send
// lock: the chain ends at to for the call.
func (b *SendBatch) post(from, to int) (int32, uintptr) {
	last := &b.wrs[to-1]
	next := last.Next
	last.Next = nil
	var bad uintptr
	rc := ibv.FastPostSend(b.q.postSend, b.q.addr, &b.wrs[from], &bad)
	last.Next = next
	runtime.KeepAlive(b) // its memory is freed once it is unreachable
	return rc, bad
}

// postChecked is PostRange for a batch with inline data or UD sends: the
// checks that may have changed since PrepareSend, then the post, under the
// QP's send lock.
func (b *SendBatch) postChecked(op string, from, to int) error {
	q := b.q
	for k, a := range b.ahs {
		if err := a.use(op); err != nil {
			releaseAHs(b.ahs[:k]) // the ones taken before it
			return &PostError{Err: err}
		}
	}
	defer releaseAHs(b.ahs)
	if mtu := q.udMTU.Load(); q.typ == ibv.QPTypeUD && mtu > 0 && mtu != b.mtu {
		// The path MTU became known (or changed) since: the windows, the
		// most the SGEs can hold, must fit it.
		for i := range b.wrs {
			n := 0
			for _, w := range b.win[i*b.maxSGE : i*b.maxSGE+int(b.wrs[i].NumSGE)] {
				n += int(w.Length)
			}
			if n > int(mtu) {
				return &PostError{Err: tooLong(op, "work request %d: a UD message of up to %d bytes is longer than the path MTU (%d bytes)", i, n, mtu)}
			}
		}
		b.mtu = mtu
	}
	for i := from; i < to; i++ {
		if b.kinds[i]&sendKindInline == 0 {
			continue
		}
		for j, sg := range b.sges[i*b.maxSGE : i*b.maxSGE+int(b.wrs[i].NumSGE)] {
			if sg.Length > 0 && !mappedMemory(uintptr(sg.Addr), int(sg.Length)) {
				return &PostError{Err: invalid(op, "work request %d: inline SGE %d (%d bytes at %#x) is no longer inside a live Buffer or pinned registered memory", i, j, sg.Length, sg.Addr)}
			}
		}
	}
	rc, bad := b.post(from, to)
	if rc != 0 {
		return postErr("ibv_post_send", rc, bad, uintptr(unsafe.Pointer(&b.wrs[from])), unsafe.Sizeof(ibv.SendWR{}))
	}
	return nil
}

// RecvBatch is a chain of receive work requests checked once and built
// once in C memory of its own (QP.PrepareRecv, SRQ.PrepareRecv), then
// posted again and again, whole or in part, each post one lock and one
// call of the provider's op, as SendBatch is for sends. Between posts a
// program sets each work request's wr_id (SetID) and the address and
// length of its SGEs within their windows (SetSGE): a ring of receive
// slots reposted as they complete. The same rules as SendBatch's hold
// (one goroutine at a time; no C resource; ErrClosed after the queue's
// Close).
type RecvBatch struct {
	q      *QP  // the QP whose receive queue it posts to, or nil
	s      *SRQ // the SRQ it posts to, or nil
	wrs    []ibv.RecvWR
	sges   []ibv.SGE
	win    []ibv.SGE
	maxSGE int
	minLen int // a UD QP's receives: the GRH's room, kept by SetSGE
}

// PrepareRecv checks ws as PostRecv does and builds their chain once, in
// C memory of the batch's own, for posting with RecvBatch.Post or
// PostRange. At most Caps().MaxRecvWR work requests of at most MaxRecvSGE
// SGEs each; ws may be reused at once.
func (q *QP) PrepareRecv(ws ...RecvWork) (*RecvBatch, error) {
	const op = "rdma.QP.PrepareRecv"
	if q == nil {
		return nil, nilErr(op)
	}
	if err := q.use(op); err != nil {
		return nil, err
	}
	defer q.done()
	if q.srq != nil {
		return nil, &PostError{Err: invalid(op, "the QP takes its receives from its shared receive queue: prepare them with SRQ.PrepareRecv")}
	}
	minLen := 0
	if q.typ == ibv.QPTypeUD {
		minLen = GRHLen
	}
	b, err := prepareRecv(op, ws, int(q.caps.MaxRecvWR), int(q.caps.MaxRecvSGE), minLen)
	if err != nil {
		return nil, err
	}
	b.q = q
	return b, nil
}

// PrepareRecv checks ws as SRQ.PostRecv does and builds their chain once
// in C memory of the batch's own (see QP.PrepareRecv). At most
// SRQConfig.MaxWR work requests of at most MaxSGE SGEs each.
func (s *SRQ) PrepareRecv(ws ...RecvWork) (*RecvBatch, error) {
	const op = "rdma.SRQ.PrepareRecv"
	if s == nil {
		return nil, nilErr(op)
	}
	if err := s.use(op); err != nil {
		return nil, err
	}
	defer s.done()
	b, err := prepareRecv(op, ws, s.maxWR, s.maxSGE, 0)
	if err != nil {
		return nil, err
	}
	b.s = s
	return b, nil
}

// prepareRecv checks and builds a receive batch for a queue of maxWR work
// requests of maxSGE SGEs.
func prepareRecv(op string, ws []RecvWork, maxWR, maxSGE, minLen int) (*RecvBatch, error) {
	if len(ws) == 0 || len(ws) > maxWR {
		return nil, &PostError{Err: invalid(op, "%d work requests: a batch holds 1 to %d", len(ws), maxWR)}
	}
	wrSz, sgeSz := unsafe.Sizeof(ibv.RecvWR{}), unsafe.Sizeof(ibv.SGE{})
	mem, base := batchAlloc(uintptr(len(ws)) * (wrSz + uintptr(maxSGE)*sgeSz))
	b := &RecvBatch{maxSGE: maxSGE, minLen: minLen,
		wrs:  unsafe.Slice((*ibv.RecvWR)(base), len(ws)),
		sges: unsafe.Slice((*ibv.SGE)(unsafe.Add(base, uintptr(len(ws))*wrSz)), len(ws)*maxSGE),
		win:  make([]ibv.SGE, len(ws)*maxSGE),
	}
	if err := fillRecv(op, ws, b.wrs, b.sges, maxSGE, minLen); err != nil {
		cFree(mem)
		return nil, err
	}
	copy(b.win, b.sges)
	runtime.AddCleanup(b, cFree, mem)
	return b, nil
}

// Len is the number of work requests in the batch (0 for a nil batch).
func (b *RecvBatch) Len() int {
	if b == nil {
		return 0
	}
	return len(b.wrs)
}

// SetID sets work request i's wr_id for the next posts. i must be in
// [0, Len()): SetID panics otherwise, as indexing a slice does.
func (b *RecvBatch) SetID(i int, id uint64) {
	b.wrs[i].WRID = id
	runtime.KeepAlive(b) // its memory is freed once it is unreachable
}

// SetSGE sets the address and length of SGE j of work request i for the
// next posts, within the range that SGE had when prepared (its key
// stays); on a UD QP the work request keeps room for the GRH. Anything
// else is an error wrapping unix.EINVAL, and the SGE is left as it was.
func (b *RecvBatch) SetSGE(i, j int, addr uint64, length uint32) error {
	const op = "rdma.RecvBatch.SetSGE"
	if b == nil {
		return nilErr(op)
	}
	if uint(i) >= uint(len(b.wrs)) || uint(j) >= uint(b.wrs[i].NumSGE) {
		return invalid(op, "no SGE %d of work request %d", j, i)
	}
	if b.minLen > 0 {
		total := int(length)
		for k, sg := range b.sges[i*b.maxSGE : i*b.maxSGE+int(b.wrs[i].NumSGE)] {
			if k != j {
				total += int(sg.Length)
			}
		}
		if total < b.minLen {
			return invalid(op, "work request %d would have room for %d bytes: a UD receive needs at least %d for the GRH", i, total, b.minLen)
		}
	}
	err := setSGE(op, &b.sges[i*b.maxSGE+j], b.win[i*b.maxSGE+j], addr, length)
	runtime.KeepAlive(b)
	return err
}

// Post posts the whole batch (PostRange(0, Len())).
func (b *RecvBatch) Post() error {
	if b == nil {
		return nilErr("rdma.RecvBatch.Post")
	}
	return b.PostRange(0, len(b.wrs))
}

// PostRange posts work requests [from, to) of the batch as one chain with
// a single call of the provider's post_recv (ibv_post_recv) or
// post_srq_recv (ibv_post_srq_recv): one lock, one cgo crossing, no
// allocation. A failure is a *PostError whose Posted counts from from.
func (b *RecvBatch) PostRange(from, to int) error {
	const op = "rdma.RecvBatch.Post"
	if b == nil {
		return nilErr(op)
	}
	if from < 0 || to > len(b.wrs) || from >= to {
		return &PostError{Err: invalid(op, "work requests [%d, %d) of a batch of %d", from, to, len(b.wrs))}
	}
	var bad uintptr
	var rc int32
	fn := "ibv_post_recv"
	last := &b.wrs[to-1]
	next := last.Next
	if q := b.q; q != nil {
		q.recvMu.Lock()
		if q.queuesClosed {
			q.recvMu.Unlock()
			return opErr(op, ErrClosed)
		}
		last.Next = nil // the chain ends at to for the call
		rc = ibv.FastPostRecv(q.postRecv, q.addr, &b.wrs[from], &bad)
		last.Next = next
		q.recvMu.Unlock()
	} else {
		s := b.s
		s.mu.Lock()
		if s.closedQueue {
			s.mu.Unlock()
			return opErr(op, ErrClosed)
		}
		last.Next = nil
		rc = ibv.FastPostSRQRecv(s.postRecv, s.addr, &b.wrs[from], &bad)
		last.Next = next
		s.mu.Unlock()
		fn = "ibv_post_srq_recv"
	}
	runtime.KeepAlive(b) // its memory is freed once it is unreachable
	if rc != 0 {
		return postErr(fn, rc, bad, uintptr(unsafe.Pointer(&b.wrs[from])), unsafe.Sizeof(ibv.RecvWR{}))
	}
	return nil
}
