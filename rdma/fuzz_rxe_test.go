//go:build rxe

package rdma

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// FuzzSequence is the call-sequence fuzzer of this package: each input
// decodes into a sequence of operations over a small pool of handles on
// the guest's two rxe nodes (devices, PDs, Buffers, MRs, CQs, completion
// channels, SRQs, QPs of every type, address handles), with arguments
// valid and not: every access-flag combination, sizes from 0 to huge,
// state changes legal and not, posts of every opcode with SGEs in and out
// of registered memory, polls, waits with cancelled and expiring
// contexts, closes in any order, use after Close, nil handles, and two
// operations at once, prepared batches (their setters, posts whole and
// in part, their QPs and address handles closed under them, batches
// dropped to the garbage collector) and the extended QP's posts. After
// each operation the process is alive, no
// panic escaped, and every failure is an error of a documented kind that
// names its operation (checkFuzzErr); after the sequence, teardown closes
// everything in order, each Close succeeds, and rxetest.NoLeaks holds.
//
// make test replays the checked-in corpus (testdata/fuzz/FuzzSequence) on
// every root; make fuzz-rxe fuzzes in the guest (docs/reliability.md).
func FuzzSequence(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add(seed)
	}
	env := rxetest.Guest(f)
	na, nb := env.Pair(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rxetest.NoLeaks(t)
		s := &fuzzState{t: t, env: env, nodes: [2]string{na.Dev, nb.Dev}, in: fuzzInput{b: data}}
		defer func() {
			start := time.Now()
			s.teardown()
			if fuzzTrace {
				t.Logf("teardown (%v)", time.Since(start).Round(time.Millisecond))
			}
			fuzzStats(s.ops, s.failed)
		}()
		for ; s.ops < maxFuzzOps && !s.in.done(); s.ops++ {
			s.step()
		}
	})
}

const maxFuzzOps = 64

// fuzzOps is the number of operations decode knows (0 to 37).
const fuzzOps = 38

// fuzzSeeds start the corpus: short sequences that reach each group of
// operations, in the encoding fuzzState.decode reads (an opcode byte,
// then the arguments in the order decode reads them; see the comments).
var fuzzSeeds = [][]byte{
	seq(
		[]byte{0, 0},               // Open(A)
		[]byte{2, 0},               // AllocPD(A)
		[]byte{4, 200, 0xff, 0xff}, // AllocBuffer(65535)
		[]byte{6, 0, 0, 0, 200, 0xff, 0xff, 0, 0x0e, 0}, // Register(pd0, buf0[0:65535], local+remote write+read)
		[]byte{8, 0, 64, 0, 1, 1, 0},                    // NewCQ(A, 64, no channel)
		[]byte{14, 0, 1, 0, 0, 8, 8, 1, 1, 0, 0, 1, 1},  // NewQP(pd0, RC, cq0, cq0, 8, 8, 1, 1, 0, sq_sig_all)
		[]byte{20, 0, 1, 1, 0, 1, 0, 64},                // qp0.PostRecv(1 WR: mr0[0:64])
		[]byte{19, 0, 1, 2, 2, 1, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, // qp0.PostSend(send)
		[]byte{22, 0, 0, 4}, // cq0.Poll(4)
	),
	seq( // a UD QP on B and a send without an address handle: once a SIGSEGV in librxe
		[]byte{0, 1}, []byte{2, 1}, []byte{8, 1, 16, 0, 1, 1, 0},
		[]byte{14, 0, 3, 0, 0, 8, 8, 1, 1, 0, 1, 1, 1},                                                 // NewQP(pd0, UD, cq0, cq0)
		[]byte{18, 0, 1, 0x11, 0x11, 0x11, 0x11},                                                       // qp0.ActivateUD(1, 0x11111111)
		[]byte{19, 0, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, // qp0.PostSend(send, no AH)
	),
	seq( // close out of order, use after close
		[]byte{0, 0}, []byte{2, 0}, []byte{8, 0, 4, 0, 1, 1, 0},
		[]byte{1, 0}, []byte{3, 0}, []byte{9, 0}, []byte{3, 0}, []byte{1, 0}, []byte{22, 0, 0, 1}, []byte{2, 0},
	),
	seq( // an SRQ, a QP on it, posts to both, the limit
		[]byte{0, 0}, []byte{2, 0}, []byte{4, 200, 0x10, 0}, []byte{6, 0, 0, 0, 200, 0x10, 0, 0, 0x0e, 0},
		[]byte{8, 0, 64, 0, 1, 1, 0},
		[]byte{12, 0, 16, 1, 4},                           // NewSRQ(pd0, 16 WRs, 1 SGE, limit 4)
		[]byte{14, 0, 1, 0, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1}, // NewQP(pd0, RC, on srq0)
		[]byte{21, 0, 2, 1, 0, 1, 0, 64, 1, 0, 1, 64, 64}, // srq0.PostRecv(2 WRs)
		[]byte{20, 0, 1, 1, 0, 1, 0, 64},                  // qp0.PostRecv: refused
		[]byte{26, 0, 8},                                  // srq0.SetLimit(8)
	),
	seq( // a QP on A connected to one on B, a write, two operations at once
		[]byte{0, 0}, []byte{0, 1}, []byte{2, 0}, []byte{2, 1},
		[]byte{4, 200, 0x10, 0}, []byte{4, 200, 0x10, 0},
		[]byte{6, 0, 0, 0, 200, 0x10, 0, 0, 0x0e, 0}, []byte{6, 1, 1, 0, 200, 0x10, 0, 0, 0x0e, 0},
		[]byte{8, 0, 16, 0, 1, 1, 0}, []byte{8, 1, 16, 0, 1, 1, 0},
		[]byte{14, 0, 1, 0, 0, 8, 8, 1, 1, 0, 0, 1, 1}, []byte{14, 1, 1, 1, 1, 8, 8, 1, 1, 0, 0, 1, 1},
		[]byte{17, 0, 1, 1},                 // Connect(qp0, qp1)
		[]byte{28, 9, 22, 0, 0, 0, 2, 0, 4}, // at once: cq0.Close and cq0.Poll
	),
	seq( // prepared batches on a connected pair, their setters and posts, a batch dropped
		[]byte{0, 0}, []byte{0, 1}, []byte{2, 0}, []byte{2, 1},
		[]byte{4, 200, 0x10, 0}, []byte{4, 200, 0x10, 0},
		[]byte{6, 0, 0, 0, 200, 0x10, 0, 0, 0x0e, 0}, []byte{6, 1, 1, 0, 200, 0x10, 0, 0, 0x0e, 0},
		[]byte{8, 0, 16, 0, 1, 1, 0}, []byte{8, 1, 16, 0, 1, 1, 0},
		[]byte{14, 0, 1, 0, 0, 8, 8, 1, 1, 0, 0, 1, 1}, []byte{14, 1, 1, 1, 1, 8, 8, 1, 1, 0, 0, 1, 1},
		[]byte{17, 0, 1, 1}, // Connect(qp0, qp1)
		// qp1.PrepareRecv(2 WRs of mr1's [0, 63) and [64, 127)), then its Post
		[]byte{33, 1, 0, 1, 2, 1, 1, 0, 63, 1, 1, 1, 64, 63, 1},
		[]byte{35, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		// qp0.PrepareSend(a signaled send with immediate data of mr0's [0, 63))
		[]byte{32, 0, 1, 3, 2, 1, 0, 0, 63, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
		[]byte{34, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0},  // sbatch0.SetID(0, 9)
		[]byte{34, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // sbatch0.SetSGE within its window
		[]byte{34, 0, 2, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0},  // sbatch0.SetImm(0, 8)
		[]byte{34, 0, 4, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},  // sbatch0.Post
		[]byte{34, 0, 5, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3},  // sbatch0.PostRange(0, 3): refused
		[]byte{22, 0, 0, 4}, // cq0.Poll(4)
		// qp0.PostEx(the same send): refused, no SendOps
		[]byte{36, 0, 1, 3, 2, 1, 0, 0, 63, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
		[]byte{37, 0, 0, 0}, // drop sbatch0, collect
		[]byte{15, 1},       // qp1.Close
		[]byte{35, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, // rbatch0.Post: closed
	),
	seq( // waits with cancelled and expiring contexts
		[]byte{0, 0}, []byte{10, 0}, []byte{8, 0, 4, 0, 0, 1, 0},
		[]byte{23, 0, 0, 0, 0}, []byte{23, 0, 0, 1, 1, 2}, []byte{23, 0, 0, 2, 2}, []byte{23, 0, 0, 3, 1, 3}, []byte{23, 0, 0, 4, 0},
		[]byte{31, 0, 1, 1},
	),
}

// seq joins encoded operations into one input.
func seq(ops ...[]byte) []byte {
	var b []byte
	for _, o := range ops {
		b = append(b, o...)
	}
	return b
}

// fuzzInput reads the input; past its end every read is 0.
type fuzzInput struct {
	b []byte
	i int
}

func (in *fuzzInput) done() bool { return in.i >= len(in.b) }

func (in *fuzzInput) u8() uint8 {
	if in.i >= len(in.b) {
		return 0
	}
	in.i++
	return in.b[in.i-1]
}

func (in *fuzzInput) u16() uint16 { return uint16(in.u8())<<8 | uint16(in.u8()) }
func (in *fuzzInput) u32() uint32 { return uint32(in.u16())<<16 | uint32(in.u16()) }

// size is a count or length: mostly small, sometimes 0, negative, huge.
func (in *fuzzInput) size() int {
	switch v := in.u8(); {
	case v < 200:
		return int(v)
	case v < 220:
		return int(in.u16())
	case v < 235:
		return -int(in.u8())
	case v < 250:
		return 1 << (20 + v%12)
	default:
		return int(int32(in.u32()))
	}
}

// fuzzState is the handle pool of one input. A slot may be nil (never
// filled, or its handle closed and dropped), and operations take nil
// handles too: they must fail with ErrNilHandle.
type fuzzState struct {
	t     *testing.T
	env   *rxetest.Env
	nodes [2]string
	in    fuzzInput

	// mu guards the pools: two operations may run at once (op 28).
	mu   sync.Mutex
	devs [2]*Device // devs[i] is on node i
	pds  [3]*PD
	bufs [3]*Buffer
	mrs  [4]*MR
	ccs  [2]*CompChannel
	cqs  [3]*CQ
	srqs [2]*SRQ
	qps  [5]*QP
	ahs  [2]*AH
	// Prepared batches (they hold no C resource: a batch dropped from
	// its slot is freed by the garbage collector).
	sbatches [3]*SendBatch
	rbatches [3]*RecvBatch
	pins     [][]byte // Go memory registered with RegisterPinned, kept alive

	ops, failed int // operations run, and those that failed (as they may)
}

// fuzzStats appends one input's counts to GOVERBS_FUZZ_STATS, when set
// (make fuzz-rxe sums them: every fuzz worker is a process of its own).
func fuzzStats(ops, failed int) {
	path := os.Getenv("GOVERBS_FUZZ_STATS")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d %d\n", ops, failed)
	f.Close()
}

// pick reads a slot index and returns it and the slot's handle (nil when
// empty).
func pick[T any](s *fuzzState, pool []*T) (int, *T) {
	i := int(s.in.u8()) % len(pool)
	s.mu.Lock()
	defer s.mu.Unlock()
	return i, pool[i]
}

// keep puts a new handle h into the first empty slot of pool, or, when
// the pool is full, closes it at once (a handle just made has no
// children: that Close must succeed).
func keep[T any](s *fuzzState, pool []*T, h *T, closeIt func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range pool {
		if pool[i] == nil {
			pool[i] = h
			return
		}
	}
	if err := closeIt(); err != nil {
		s.t.Errorf("closing a new handle the pool has no room for: %v", err)
	}
}

// drop empties the slots holding h once its Close succeeded.
func drop[T any](s *fuzzState, pool []*T, h *T, err error) error {
	if err != nil || h == nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range pool {
		if pool[i] == h {
			pool[i] = nil
		}
	}
	return nil
}

// step decodes and runs one operation.
func (s *fuzzState) step() {
	op := s.in.u8() % fuzzOps
	name, f := s.decode(op)
	s.run(name, f)
	if s.t.Failed() {
		s.t.FailNow()
	}
}

// fuzzTrace logs every operation and its result (GOVERBS_FUZZ_TRACE=1).
var fuzzTrace = os.Getenv("GOVERBS_FUZZ_TRACE") == "1"

// run calls f, failing the input (t.Errorf: it may run on another
// goroutine, op 28) on a panic or an error of an undocumented kind.
func (s *fuzzState) run(name string, f func() error) {
	start := time.Now()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = nil
				s.t.Errorf("%s panicked: %v", name, r)
			}
		}()
		return f()
	}()
	if fuzzTrace {
		s.t.Logf("%s (%v): %v", name, time.Since(start).Round(time.Millisecond), err)
	}
	if err != nil {
		s.mu.Lock()
		s.failed++
		s.mu.Unlock()
		if why := checkFuzzErr(err); why != "" {
			s.t.Errorf("%s: %v: %s", name, err, why)
		}
	}
}

// checkFuzzErr says what is wrong with err, an operation's failure, or ""
// when it is of a documented kind: a package error naming an rdma.*
// operation or a C function's *ibv.Error, each wrapping an errno or one of
// the package's sentinels, or a context's error.
func checkFuzzErr(err error) string {
	var oe *OpError
	var ce *ibv.Error
	var me *ibv.MissingError
	var ne *ibv.NilOpError
	var be *BusyError
	var se *StateError
	var pe *PostError
	switch {
	case errors.As(err, &pe) && pe.Posted < 0:
		return "negative Posted"
	case errors.As(err, &be):
		if !errors.Is(err, syscall.EBUSY) || be.Resource == "" {
			return "a BusyError without EBUSY or resource"
		}
		return ""
	case errors.As(err, &se), errors.As(err, &me), errors.As(err, &ne):
		return ""
	case errors.As(err, &oe):
		if !strings.HasPrefix(oe.Op, "rdma.") {
			return "OpError naming no rdma operation: " + oe.Op
		}
	case errors.As(err, &ce):
		if !strings.HasPrefix(ce.Func, "ibv_") {
			return "C error naming no libibverbs function: " + ce.Func
		}
	default:
		return fmt.Sprintf("an error of an undocumented kind (%T)", err)
	}
	var errno syscall.Errno
	for _, sentinel := range []error{ErrClosed, ErrNilHandle, ErrNoCompletion, ErrSharedChannel, ErrNoChannel, ErrUnpinnedMemory, ErrBadState, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, sentinel) {
			return ""
		}
	}
	if !errors.As(err, &errno) {
		if ce != nil && errors.Is(err, ce) && ce.Errno == 0 {
			return "" // a convention without errno (the page promises none)
		}
		return "wraps neither an errno nor a sentinel"
	}
	return ""
}

var fuzzAccess = []ibv.AccessFlags{0, ibv.AccessFlagsLocalWrite, ibv.AccessFlagsRemoteWrite, ibv.AccessFlagsRemoteRead,
	ibv.AccessFlagsRemoteAtomic, ibv.AccessFlagsMWBind, ibv.AccessFlagsZeroBased, ibv.AccessFlagsOnDemand, ibv.AccessFlagsRelaxedOrdering}

// access is an access-flag combination: bits of fuzzAccess, or raw bits.
func (s *fuzzState) access() ibv.AccessFlags {
	v := s.in.u16()
	if v&0x8000 != 0 {
		return ibv.AccessFlags(s.in.u32())
	}
	var a ibv.AccessFlags
	for i, f := range fuzzAccess {
		if v&(1<<i) != 0 {
			a |= f
		}
	}
	return a
}

// sges are up to 3 SGEs, in or out of the pool's MRs, or wild.
func (s *fuzzState) sges() []ibv.SGE {
	n := int(s.in.u8() % 4)
	out := make([]ibv.SGE, 0, n)
	for range n {
		_, mr := pick(s, s.mrs[:])
		off, ln := s.size(), s.size()
		switch {
		case mr != nil && s.in.u8()%4 != 0:
			sg, err := mr.SGE(max(off, 0)%max(mr.Len(), 1), max(ln, 0)%64)
			if err == nil {
				out = append(out, sg)
				continue
			}
			out = append(out, ibv.SGE{Addr: mr.Addr() + uint64(off), Length: uint32(ln), LKey: mr.LKey()})
		default:
			out = append(out, ibv.SGE{Addr: uint64(s.in.u32()), Length: uint32(ln), LKey: s.in.u32()})
		}
	}
	return out
}

func (s *fuzzState) size() int { return s.in.size() }

// sendWork is up to 3 send work requests of any opcode and flags, SGEs
// in and out of the pool's MRs, addressed or not.
func (s *fuzzState) sendWork() []SendWork {
	in := &s.in
	ws := make([]SendWork, int(in.u8()%4))
	for k := range ws {
		ws[k] = SendWork{ID: uint64(k), Op: ibv.WROpcode(in.u8() % 17), Flags: ibv.SendFlags(in.u8() % 32), SGEs: s.sges(),
			RemoteAddr: uint64(in.u32()), RKey: in.u32(), Imm: in.u32(), InvalidateRKey: in.u32(), CompareAdd: uint64(in.u16()), Swap: uint64(in.u16())}
		if in.u8()%2 == 0 {
			_, ws[k].AH = pick(s, s.ahs[:])
			ws[k].RemoteQPN, ws[k].RemoteQKey = in.u32()%(1<<25), in.u32()
		}
		if in.u8()%3 == 0 {
			if _, mr := pick(s, s.mrs[:]); mr != nil {
				ws[k].RemoteAddr, ws[k].RKey = mr.Addr(), mr.RKey()
			}
		}
	}
	return ws
}

// recvWork is up to 3 receive work requests.
func (s *fuzzState) recvWork() []RecvWork {
	ws := make([]RecvWork, s.in.u8()%4)
	for k := range ws {
		ws[k] = RecvWork{ID: uint64(k), SGEs: s.sges()}
	}
	return ws
}

// batchAddr is an address for a batch's SetSGE: in an MR of the pool, or
// wild.
func (s *fuzzState) batchAddr() uint64 {
	_, mr := pick(s, s.mrs[:])
	if mr != nil && s.in.u8()%2 == 0 {
		return mr.Addr() + uint64(s.in.u16())
	}
	return uint64(s.in.u32())
}

// ctx is a context that is cancelled already, expires within
// milliseconds, or cannot be cancelled but is bounded by the operation
// itself.
func (s *fuzzState) ctx() (context.Context, context.CancelFunc) {
	switch s.in.u8() % 3 {
	case 0:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	case 1:
		return context.WithTimeout(context.Background(), time.Duration(1+s.in.u8()%5)*time.Millisecond)
	default:
		return context.WithTimeout(context.Background(), 20*time.Millisecond)
	}
}

// decode reads the arguments of operation op and returns its name and
// the call.
func (s *fuzzState) decode(op uint8) (string, func() error) {
	in := &s.in
	switch op {
	case 0:
		i, d := pick(s, s.devs[:])
		return "Open", func() error {
			if d != nil {
				return nil
			}
			d, err := Open(s.nodes[i])
			if err == nil {
				s.mu.Lock()
				if s.devs[i] == nil {
					s.devs[i], d = d, nil
				}
				s.mu.Unlock()
				if d != nil { // opened twice at once: one is enough
					return d.Close()
				}
			}
			return err
		}
	case 1:
		_, d := pick(s, s.devs[:])
		return "Device.Close", func() error { return drop(s, s.devs[:], d, d.Close()) }
	case 2:
		_, d := pick(s, s.devs[:])
		return "Device.AllocPD", func() error {
			pd, err := d.AllocPD()
			if err == nil {
				keep(s, s.pds[:], pd, func() error { return pd.Close() })
			}
			return err
		}
	case 3:
		_, pd := pick(s, s.pds[:])
		return "PD.Close", func() error { return drop(s, s.pds[:], pd, pd.Close()) }
	case 4:
		n := s.size()
		return "AllocBuffer", func() error {
			if n > 1<<20 {
				n = 1 << 20
			}
			b, err := AllocBuffer(n)
			if err == nil {
				keep(s, s.bufs[:], b, func() error { return b.Free() })
			}
			return err
		}
	case 5:
		_, b := pick(s, s.bufs[:])
		return "Buffer.Free", func() error { return drop(s, s.bufs[:], b, b.Free()) }
	case 6:
		_, pd := pick(s, s.pds[:])
		_, b := pick(s, s.bufs[:])
		off, n, acc, kind := s.size(), s.size(), s.access(), in.u8()%3
		return "PD.Register", func() error {
			var mem []byte
			switch {
			case kind == 1:
				mem = make([]byte, max(n, 0)%(1<<16))
			case b != nil && !b.isClosed():
				all := b.Bytes()
				o := max(off, 0) % (len(all) + 1)
				mem = all[o:min(len(all), o+max(n, 0))]
			default:
				mem = make([]byte, 64) // Go memory, refused by Register
			}
			var mr *MR
			var err error
			if kind == 1 {
				mr, err = pd.RegisterPinned(mem, acc)
			} else {
				mr, err = pd.Register(mem, acc)
			}
			if err == nil {
				if kind == 1 {
					s.pins = append(s.pins, mem)
				}
				keep(s, s.mrs[:], mr, func() error { return mr.Close() })
			}
			return err
		}
	case 7:
		_, mr := pick(s, s.mrs[:])
		return "MR.Close", func() error { return drop(s, s.mrs[:], mr, mr.Close()) }
	case 8:
		_, d := pick(s, s.devs[:])
		n := s.size()
		_, ch := pick(s, s.ccs[:])
		useCh, ex, wcFlags := in.u8()%2 == 0, in.u8()%4 == 0, ibv.CreateCQWCFlags(in.u8())
		return "Device.NewCQ", func() error {
			if !useCh {
				ch = nil
			}
			var cq *CQ
			var err error
			if ex {
				cq, err = d.NewCQEx(n, ch, wcFlags)
			} else {
				cq, err = d.NewCQ(n, ch)
			}
			if err == nil {
				keep(s, s.cqs[:], cq, func() error { return cq.Close() })
			}
			return err
		}
	case 9:
		_, cq := pick(s, s.cqs[:])
		return "CQ.Close", func() error { return drop(s, s.cqs[:], cq, cq.Close()) }
	case 10:
		_, d := pick(s, s.devs[:])
		return "Device.NewCompChannel", func() error {
			c, err := d.NewCompChannel()
			if err == nil {
				keep(s, s.ccs[:], c, func() error { return c.Close() })
			}
			return err
		}
	case 11:
		_, c := pick(s, s.ccs[:])
		return "CompChannel.Close", func() error { return drop(s, s.ccs[:], c, c.Close()) }
	case 12:
		_, pd := pick(s, s.pds[:])
		cfg := SRQConfig{MaxWR: s.size(), MaxSGE: s.size() % 8, Limit: s.size()}
		return "PD.NewSRQ", func() error {
			srq, err := pd.NewSRQ(cfg)
			if err == nil {
				keep(s, s.srqs[:], srq, func() error { return srq.Close() })
			}
			return err
		}
	case 13:
		_, srq := pick(s, s.srqs[:])
		return "SRQ.Close", func() error { return drop(s, s.srqs[:], srq, srq.Close()) }
	case 14:
		_, pd := pick(s, s.pds[:])
		types := []ibv.QPType{0, ibv.QPTypeRC, ibv.QPTypeUC, ibv.QPTypeUD, ibv.QPTypeRawPacket, ibv.QPTypeXRCSend, 77}
		typ := types[int(in.u8())%len(types)]
		_, scq := pick(s, s.cqs[:])
		_, rcq := pick(s, s.cqs[:])
		cfg := QPConfig{Type: typ, SendCQ: scq, RecvCQ: rcq, MaxSend: s.size() % 512, MaxRecv: s.size() % 512,
			MaxSendSGE: s.size() % 8, MaxRecvSGE: s.size() % 8, MaxInline: s.size() % 512, SignalAll: in.u8()%2 == 0}
		if in.u8()%3 == 0 {
			_, cfg.SRQ = pick(s, s.srqs[:])
		}
		if in.u8()%5 == 0 {
			cfg.SendOps = ibv.QPCreateSendOpsFlags(in.u16())
		}
		return "PD.NewQP", func() error {
			qp, err := pd.NewQP(cfg)
			if err == nil {
				keep(s, s.qps[:], qp, func() error { return qp.Close() })
			}
			return err
		}
	case 15:
		_, qp := pick(s, s.qps[:])
		return "QP.Close", func() error { return drop(s, s.qps[:], qp, qp.Close()) }
	case 16:
		_, qp := pick(s, s.qps[:])
		attr := ibv.QPAttr{QPState: ibv.QPState(in.u8() % 9), PortNum: in.u8() % 3, QKey: in.u32(),
			PathMTU: ibv.MTU(in.u8() % 7), DestQPNum: in.u32(), QPAccessFlags: uint32(s.access())}
		mask := ibv.QPAttrMask(in.u32())
		return "QP.Modify", func() error { return qp.Modify(&attr, mask) }
	case 17:
		_, qa := pick(s, s.qps[:])
		_, qb := pick(s, s.qps[:])
		path := Path{GIDIndex: s.env.GIDIndex, Timeout: 10, RetryCnt: 1, RNRRetry: 1}
		if in.u8()%4 == 0 {
			path.GIDIndex = int(in.u8())
		}
		return "QP.Connect", func() error {
			if qa == nil || qb == nil {
				return qa.Connect(path, 1, Endpoint{})
			}
			ea, err := qa.Endpoint(path, 1)
			if err != nil {
				return err
			}
			eb, err := qb.Endpoint(path, 2)
			if err != nil {
				return err
			}
			if err := qa.Connect(path, 1, eb); err != nil {
				return err
			}
			return qb.Connect(path, 2, ea)
		}
	case 18:
		_, qp := pick(s, s.qps[:])
		port, qkey := in.u8()%3, in.u32()
		return "QP.ActivateUD", func() error { return qp.ActivateUD(port, qkey) }
	case 19:
		_, qp := pick(s, s.qps[:])
		ws := s.sendWork()
		return "QP.PostSend", func() error { return qp.PostSend(ws...) }
	case 20:
		_, qp := pick(s, s.qps[:])
		ws := s.recvWork()
		return "QP.PostRecv", func() error { return qp.PostRecv(ws...) }
	case 21:
		_, srq := pick(s, s.srqs[:])
		ws := s.recvWork()
		return "SRQ.PostRecv", func() error { return srq.PostRecv(ws...) }
	case 22:
		_, cq := pick(s, s.cqs[:])
		kind, n := in.u8()%4, s.size()
		return "CQ.Poll", func() error {
			wcs := make([]ibv.WC, max(n, 0)%64)
			var err error
			switch kind {
			case 0:
				_, err = cq.Poll(wcs)
			case 1:
				_, err = cq.PollBatch(n)
			case 2:
				_, err = cq.PollSpin(wcs, n%100)
			case 3:
				_, err = cq.PollOne()
				if errors.Is(err, ErrNoCompletion) {
					err = nil
				}
			}
			return err
		}
	case 23:
		_, cq := pick(s, s.cqs[:])
		_, ch := pick(s, s.ccs[:])
		kind := in.u8() % 5
		ctx, cancel := s.ctx()
		return "wait", func() error {
			defer cancel()
			var err error
			switch kind {
			case 0:
				err = cq.Wait(ctx)
			case 1:
				_, err = cq.Await(ctx, make([]ibv.WC, 4))
			case 2:
				_, err = ch.Wait(ctx)
			case 3:
				_, err = ch.WaitBlocking(ctx)
			case 4:
				_, _, err = ch.WaitBlockingPoll(ctx, make([]ibv.WC, 2))
			}
			return err
		}
	case 24:
		_, pd := pick(s, s.pds[:])
		_, d := pick(s, s.devs[:])
		r := Route{Port: in.u8() % 3, GIDIndex: int(in.u8()) % 4, DLID: in.u16(), SL: in.u8(), HopLimit: in.u8(), FlowLabel: in.u32() % (1 << 21)}
		fromDev := in.u8()%2 == 0
		return "PD.NewAH", func() error {
			if fromDev && d != nil && !d.isClosed() {
				if g, err := d.GID(1, s.env.GIDIndex); err == nil {
					r.DGID = g
				}
			}
			ah, err := pd.NewAH(r)
			if err == nil {
				keep(s, s.ahs[:], ah, func() error { return ah.Close() })
			}
			return err
		}
	case 25:
		_, ah := pick(s, s.ahs[:])
		return "AH.Close", func() error { return drop(s, s.ahs[:], ah, ah.Close()) }
	case 26:
		_, srq := pick(s, s.srqs[:])
		n := s.size()
		return "SRQ.SetLimit", func() error {
			if err := srq.SetLimit(n); err != nil {
				return err
			}
			_, err := srq.Query()
			return err
		}
	case 27:
		_, qp := pick(s, s.qps[:])
		var gid ibv.GID
		copy(gid.Raw()[:], []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 9, 9, in.u8()})
		attach, lid := in.u8()%2 == 0, in.u16()
		return "QP.AttachMulticast", func() error {
			if attach {
				return qp.AttachMulticast(gid, lid)
			}
			return qp.DetachMulticast(gid, lid)
		}
	case 28:
		// Two operations at once (any but this one and 29 to 31, left out
		// as before the batches' operations came).
		other := func() uint8 {
			k := in.u8() % (fuzzOps - 4)
			if k >= 28 {
				k += 4
			}
			return k
		}
		n1, f1 := s.decode(other())
		n2, f2 := s.decode(other())
		return "concurrently " + n1 + " and " + n2, func() error {
			var wg sync.WaitGroup
			wg.Go(func() { s.run(n1, f1) })
			wg.Go(func() { s.run(n2, f2) })
			wg.Wait()
			return nil
		}
	case 29:
		_, mr := pick(s, s.mrs[:])
		off, n, write := s.size(), s.size(), in.u8()%2 == 0
		return "MR.SGE", func() error {
			if _, err := mr.SGE(off, n); err != nil {
				return err
			}
			return mr.Prefetch(off, n, write)
		}
	case 30:
		_, d := pick(s, s.devs[:])
		port, idx := in.u8(), int(in.u8())
		return "Device.Query", func() error {
			if _, err := d.Query(); err != nil {
				return err
			}
			if _, err := d.QueryPort(port); err != nil {
				return err
			}
			_, err := d.GID(port, idx)
			return err
		}
	case 32:
		_, qp := pick(s, s.qps[:])
		ws := s.sendWork()
		return "QP.PrepareSend", func() error {
			b, err := qp.PrepareSend(ws...)
			if err == nil {
				keep(s, s.sbatches[:], b, func() error { return nil })
			}
			return err
		}
	case 33:
		_, qp := pick(s, s.qps[:])
		_, srq := pick(s, s.srqs[:])
		onSRQ := in.u8()%2 == 0
		ws := s.recvWork()
		return "PrepareRecv", func() error {
			var b *RecvBatch
			var err error
			if onSRQ {
				b, err = srq.PrepareRecv(ws...)
			} else {
				b, err = qp.PrepareRecv(ws...)
			}
			if err == nil {
				keep(s, s.rbatches[:], b, func() error { return nil })
			}
			return err
		}
	case 34:
		_, b := pick(s, s.sbatches[:])
		kind, i, j, within := in.u8()%6, int(in.u8()), int(in.u8()%4), in.u8()%2 == 0
		addr, length, v, raddr := s.batchAddr(), uint32(s.size()), in.u32(), uint64(in.u32())
		from, to := int(in.u8()%8)-1, int(in.u8()%8)
		return "SendBatch", func() error {
			switch kind {
			case 0:
				if n := b.Len(); n > 0 {
					b.SetID(i%n, uint64(v))
				}
				return nil
			case 1:
				if n := b.Len(); n > 0 && within && j < int(b.wrs[i%n].NumSGE) {
					w := b.win[(i%n)*b.maxSGE+j] // within the window
					addr = w.Addr + uint64(length)%(uint64(w.Length)+1)
					length %= w.Length + 1 - uint32(addr-w.Addr)
				}
				return b.SetSGE(i%max(b.Len(), 1), j, addr, length)
			case 2:
				return b.SetImm(i%max(b.Len(), 1), v)
			case 3:
				return b.SetRemote(i%max(b.Len(), 1), raddr, v)
			case 4:
				return b.Post()
			default:
				return b.PostRange(from, to)
			}
		}
	case 35:
		_, b := pick(s, s.rbatches[:])
		kind, i, j := in.u8()%4, int(in.u8()), int(in.u8()%4)
		addr, length, v := s.batchAddr(), uint32(s.size()), in.u32()
		from, to := int(in.u8()%8)-1, int(in.u8()%8)
		return "RecvBatch", func() error {
			switch kind {
			case 0:
				if n := b.Len(); n > 0 {
					b.SetID(i%n, uint64(v))
				}
				return nil
			case 1:
				return b.SetSGE(i%max(b.Len(), 1), j, addr, length)
			case 2:
				return b.Post()
			default:
				return b.PostRange(from, to)
			}
		}
	case 36:
		_, qp := pick(s, s.qps[:])
		ws := s.sendWork()
		return "QP.PostEx", func() error { return qp.PostEx(ws...) }
	case 37:
		// Drop a batch: the garbage collector frees its memory.
		i, send, gc := int(in.u8()), in.u8()%2 == 0, in.u8()%4 == 0
		return "drop a batch", func() error {
			s.mu.Lock()
			if send {
				s.sbatches[i%len(s.sbatches)] = nil
			} else {
				s.rbatches[i%len(s.rbatches)] = nil
			}
			s.mu.Unlock()
			if gc {
				runtime.GC()
			}
			return nil
		}
	default:
		_, d := pick(s, s.devs[:])
		ctx, cancel := s.ctx()
		return "Device.AsyncEvent", func() error {
			defer cancel()
			_, err := d.AsyncEvent(ctx)
			return err
		}
	}
}

// teardown closes what is left, children first; every Close must succeed.
func (s *fuzzState) teardown() {
	closeAll := func(what string, closers []func() error) {
		for _, c := range closers {
			if err := c(); err != nil {
				s.t.Errorf("teardown: %s: %v", what, err)
			}
		}
	}
	closeAll("QP.Close", closers(s.qps[:], (*QP).Close))
	closeAll("AH.Close", closers(s.ahs[:], (*AH).Close))
	closeAll("SRQ.Close", closers(s.srqs[:], (*SRQ).Close))
	closeAll("MR.Close", closers(s.mrs[:], (*MR).Close))
	closeAll("CQ.Close", closers(s.cqs[:], (*CQ).Close))
	closeAll("CompChannel.Close", closers(s.ccs[:], (*CompChannel).Close))
	closeAll("PD.Close", closers(s.pds[:], (*PD).Close))
	closeAll("Buffer.Free", closers(s.bufs[:], (*Buffer).Free))
	closeAll("Device.Close", closers(s.devs[:], (*Device).Close))
	s.pins = nil
}

// closers are the Close calls of the handles in pool.
func closers[T any](pool []*T, close func(*T) error) []func() error {
	var out []func() error
	for _, h := range pool {
		if h != nil {
			out = append(out, func() error { return close(h) })
		}
	}
	return out
}
