//go:build linux && cgo && !rxe

package rdma

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
	"github.com/goverbs/goverbs/internal/testkit/assert"
)

// The host group of make bench (make bench-host, docs/benchmarks.md, "What
// the binding costs on the host CPU"): each data-path verb's work done
// against internal/stubprovider's stub provider in C memory, no device, in
// several ways side by side: impl=c, the same work as a C loop (the
// stubprovider's Loop* functions, iters calls in one cgo call); impl=ibv,
// the generated checked bindings ((*ibv.CQ).Poll, ...); impl=fast, ibv's
// fast-path trampolines (ibv.FastPollCQ, ...), which package rdma uses;
// impl=rdma, this package's API. BenchmarkHostCgo is the floor: a cgo call
// of an empty C function. TestHostVerbs runs every variant briefly under
// make test: it asserts that each did its work and allocated nothing, and
// no time.

// hostRing is the entries of the benchmarks' CQs.
const hostRing = 1024

// hostVariant is one way of doing one verb's work.
type hostVariant struct {
	bench, param, impl string
	// make builds the variant's objects; run makes iters calls, check
	// fails tb unless the stub did the work of iters calls since make.
	make func(tb testing.TB) (run func(iters int), check func(tb testing.TB, iters int))
}

func (v hostVariant) sub() string {
	if v.param == "" {
		return "impl=" + v.impl
	}
	return v.param + "/impl=" + v.impl
}

// must fails tb on a C loop's failure (a negative count).
func must(tb testing.TB, n int64) {
	if n < 0 {
		tb.Fatal("the C loop failed")
	}
}

// hostAddr is the address and key of the memory the work requests name:
// the stub never touches it.
const (
	hostAddr  = 0x10000
	hostLKey  = 0x77
	hostRAddr = 0x20000
	hostRKey  = 0x99
)

// stdTS are the fields of the extended CQs here: the standard ones and the
// completion time stamp (twelve values per completion).
const stdTS = ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsImm | ibv.CreateCQWCFlagsQPNum | ibv.CreateCQWCFlagsSrcQP |
	ibv.CreateCQWCFlagsSLID | ibv.CreateCQWCFlagsSL | ibv.CreateCQWCFlagsDLIDPathBits | ibv.CreateCQWCFlagsCompletionTimestamp

func hostVariants() []hostVariant {
	var vs []hostVariant
	add := func(bench, param, impl string, make func(tb testing.TB) (func(int), func(testing.TB, int))) {
		vs = append(vs, hostVariant{bench, param, impl, make})
	}
	// A cgo call of an empty C function as ibv's fast-path trampolines are
	// called: two integers and a pointer to pointer-free memory, noescape
	// and nocallback (the floor, impl=cgo, is added to every group).
	add("HostCgo", "", "args", func(tb testing.TB) (func(int), func(testing.TB, int)) {
		calls := 0
		var x uint64
		return func(iters int) {
				for i := range iters {
					stubprovider.NoopArgs(uintptr(i), 1, &x)
				}
				calls += iters
			}, func(tb testing.TB, iters int) {
				assert.Equal(tb, iters, calls)
			}
	})

	// poll_cq: an empty CQ polled for up to 16, and n ready polled for n.
	for _, n := range []int{0, 1, 16, 256} {
		param := fmt.Sprintf("n=%d", n)
		num := max(n, 16)
		if n > 0 {
			num = n
		}
		poll := func(impl func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int)) func(tb testing.TB) (func(int), func(testing.TB, int)) {
			return func(tb testing.TB) (func(int), func(testing.TB, int)) {
				e := newStubEnv(tb)
				cq, s := e.cq(tb, hostRing, 0)
				e.qp(tb, QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: hostRing, MaxRecv: hostRing}, s, s, nil, false)
				s.SetReady(n)
				calls0, polled0 := s.Calls(), s.Polled()
				return impl(e, cq, s), func(tb testing.TB, iters int) {
					assert.Equal(tb, uint64(iters), s.Calls()-calls0, "polls")
					assert.Equal(tb, uint64(iters*n), s.Polled()-polled0, "completions")
				}
			}
		}
		add("HostPollCQ", param, "c", poll(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			wcs := (*ibv.WC)(stubprovider.Alloc(uintptr(num) * unsafe.Sizeof(ibv.WC{})))
			e.cleanup(func() { stubprovider.Free(unsafe.Pointer(wcs)) })
			return func(iters int) { must(e.tb, stubprovider.LoopPollCQ(s, num, wcs, iters)) }
		}))
		add("HostPollCQ", param, "ibv", poll(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			wcs, raw := make([]ibv.WC, num), s.Raw()
			return func(iters int) {
				for range iters {
					if _, err := raw.Poll(wcs); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostPollCQ", param, "fast", poll(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			wcs, raw := make([]ibv.WC, num), s.Raw()
			op, addr := ibv.FastPollCQOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					if ibv.FastPollCQ(op, addr, int32(num), &wcs[0]) < 0 {
						e.tb.Fatal("poll_cq failed")
					}
				}
			}
		}))
		add("HostPollCQ", param, "rdma", poll(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			wcs := make([]ibv.WC, num)
			return func(iters int) {
				for range iters {
					if _, err := cq.Poll(wcs); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostPollCQ", param, "rdmabatch", poll(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			return func(iters int) {
				for range iters {
					if _, err := cq.PollBatch(num); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
	}

	// req_notify_cq.
	arm := func(impl func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int)) func(tb testing.TB) (func(int), func(testing.TB, int)) {
		return func(tb testing.TB) (func(int), func(testing.TB, int)) {
			e := newStubEnv(tb)
			cq, s := e.cq(tb, hostRing, 0)
			arms0 := s.Arms()
			return impl(e, cq, s), func(tb testing.TB, iters int) {
				assert.Equal(tb, uint64(iters), s.Arms()-arms0, "arms")
			}
		}
	}
	add("HostReqNotifyCQ", "", "c", arm(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
		return func(iters int) { must(e.tb, stubprovider.LoopReqNotifyCQ(s, iters)) }
	}))
	add("HostReqNotifyCQ", "", "ibv", arm(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
		raw := s.Raw()
		return func(iters int) {
			for range iters {
				if err := raw.ReqNotify(false); err != nil {
					e.tb.Fatal(err)
				}
			}
		}
	}))
	add("HostReqNotifyCQ", "", "fast", arm(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
		raw := s.Raw()
		op, addr := ibv.FastReqNotifyCQOp(raw), uintptr(unsafe.Pointer(raw))
		return func(iters int) {
			for range iters {
				if ibv.FastReqNotifyCQ(op, addr, 0) != 0 {
					e.tb.Fatal("req_notify_cq failed")
				}
			}
		}
	}))
	// rdma arms a CQ in CompChannel.Wait and CQ.Wait, after each event:
	// CQ.rearm.
	add("HostReqNotifyCQ", "", "rdma", arm(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
		return func(iters int) {
			for range iters {
				if err := cq.rearm(); err != nil {
					e.tb.Fatal(err)
				}
			}
		}
	}))

	// post_send, post_recv, post_srq_recv: n work requests of one SGE per
	// call, each with the next wr_id of a counter (the rest of each work
	// request made once): RDMA writes of 64 bytes, the last signaled.
	for _, n := range []int{1, 16, 256} {
		param := fmt.Sprintf("n=%d", n)
		type qpEnv struct {
			*stubEnv
			qp  *QP
			s   *stubprovider.QP
			srq *SRQ
			ss  *stubprovider.SRQ
		}
		post := func(useSRQ bool, impl func(e qpEnv) func(int)) func(tb testing.TB) (func(int), func(testing.TB, int)) {
			return func(tb testing.TB) (func(int), func(testing.TB, int)) {
				e := qpEnv{stubEnv: newStubEnv(tb)}
				cq, s := e.cq(tb, hostRing, 0)
				cfg := QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 256, MaxRecv: 256}
				if useSRQ {
					e.srq, e.ss = e.stubEnv.srq(tb, SRQConfig{MaxWR: 256})
					cfg.SRQ = e.srq
				}
				e.qp, e.s = e.stubEnv.qp(tb, cfg, s, s, e.ss, false)
				posted := func() uint64 { return e.s.SendPosted() + e.s.RecvPosted() }
				if useSRQ {
					posted = e.ss.Posted
				}
				posted0 := posted()
				return impl(e), func(tb testing.TB, iters int) {
					assert.Equal(tb, uint64(iters*n), posted()-posted0, "work requests posted")
				}
			}
		}
		sendChain := func(e qpEnv) []ibv.SendWR {
			wrs := stubprovider.SendChain(n, ibv.WROpcodeRDMAWrite, hostLKey, hostAddr, 64, hostRKey, hostRAddr)
			e.cleanup(func() { stubprovider.Free(unsafe.Pointer(&wrs[0])) })
			return wrs
		}
		recvChain := func(e qpEnv) []ibv.RecvWR {
			wrs := stubprovider.RecvChain(n, hostLKey, hostAddr, 64)
			e.cleanup(func() { stubprovider.Free(unsafe.Pointer(&wrs[0])) })
			return wrs
		}
		sendWork := func() []SendWork {
			ws := make([]SendWork, n)
			sges := make([]ibv.SGE, n)
			for i := range ws {
				sges[i] = ibv.SGE{Addr: hostAddr + 64*uint64(i), Length: 64, LKey: hostLKey}
				ws[i] = SendWork{Op: ibv.WROpcodeRDMAWrite, SGEs: sges[i : i+1], RemoteAddr: hostRAddr + 64*uint64(i), RKey: hostRKey}
			}
			ws[n-1].Flags = ibv.SendFlagsSignaled
			return ws
		}
		recvWork := func() []RecvWork {
			ws := make([]RecvWork, n)
			sges := make([]ibv.SGE, n)
			for i := range ws {
				sges[i] = ibv.SGE{Addr: hostAddr + 64*uint64(i), Length: 64, LKey: hostLKey}
				ws[i] = RecvWork{SGEs: sges[i : i+1]}
			}
			return ws
		}

		add("HostPostSend", param, "c", post(false, func(e qpEnv) func(int) {
			wrs := sendChain(e)
			return func(iters int) { must(e.tb, stubprovider.LoopPostSend(e.s, wrs, iters)) }
		}))
		add("HostPostSend", param, "ibv", post(false, func(e qpEnv) func(int) {
			wrs, raw, id := sendChain(e), e.s.Raw(), uint64(0)
			return func(iters int) {
				for range iters {
					for j := range wrs {
						wrs[j].WRID = id
						id++
					}
					if _, err := raw.PostSend(&wrs[0]); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostPostSend", param, "fast", post(false, func(e qpEnv) func(int) {
			wrs, raw, id := sendChain(e), e.s.Raw(), uint64(0)
			op, addr := ibv.FastPostSendOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					for j := range wrs {
						wrs[j].WRID = id
						id++
					}
					var bad uintptr
					if ibv.FastPostSend(op, addr, &wrs[0], &bad) != 0 {
						e.tb.Fatal("post_send failed")
					}
				}
			}
		}))
		add("HostPostSend", param, "rdma", post(false, func(e qpEnv) func(int) {
			ws, id := sendWork(), uint64(0)
			return func(iters int) {
				for range iters {
					for j := range ws {
						ws[j].ID = id
						id++
					}
					if err := e.qp.PostSend(ws...); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))

		add("HostPostRecv", param, "c", post(false, func(e qpEnv) func(int) {
			wrs := recvChain(e)
			return func(iters int) { must(e.tb, stubprovider.LoopPostRecv(e.s, wrs, iters)) }
		}))
		add("HostPostRecv", param, "ibv", post(false, func(e qpEnv) func(int) {
			wrs, raw, id := recvChain(e), e.s.Raw(), uint64(0)
			return func(iters int) {
				for range iters {
					for j := range wrs {
						wrs[j].WRID = id
						id++
					}
					if _, err := raw.PostRecv(&wrs[0]); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostPostRecv", param, "fast", post(false, func(e qpEnv) func(int) {
			wrs, raw, id := recvChain(e), e.s.Raw(), uint64(0)
			op, addr := ibv.FastPostRecvOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					for j := range wrs {
						wrs[j].WRID = id
						id++
					}
					var bad uintptr
					if ibv.FastPostRecv(op, addr, &wrs[0], &bad) != 0 {
						e.tb.Fatal("post_recv failed")
					}
				}
			}
		}))
		add("HostPostRecv", param, "rdma", post(false, func(e qpEnv) func(int) {
			ws, id := recvWork(), uint64(0)
			return func(iters int) {
				for range iters {
					for j := range ws {
						ws[j].ID = id
						id++
					}
					if err := e.qp.PostRecv(ws...); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))

		add("HostPostSRQRecv", param, "c", post(true, func(e qpEnv) func(int) {
			wrs := recvChain(e)
			return func(iters int) { must(e.tb, stubprovider.LoopPostSRQRecv(e.ss, wrs, iters)) }
		}))
		add("HostPostSRQRecv", param, "ibv", post(true, func(e qpEnv) func(int) {
			wrs, raw, id := recvChain(e), e.ss.Raw(), uint64(0)
			return func(iters int) {
				for range iters {
					for j := range wrs {
						wrs[j].WRID = id
						id++
					}
					if _, err := raw.PostRecv(&wrs[0]); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostPostSRQRecv", param, "fast", post(true, func(e qpEnv) func(int) {
			wrs, raw, id := recvChain(e), e.ss.Raw(), uint64(0)
			op, addr := ibv.FastPostSRQRecvOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					for j := range wrs {
						wrs[j].WRID = id
						id++
					}
					var bad uintptr
					if ibv.FastPostSRQRecv(op, addr, &wrs[0], &bad) != 0 {
						e.tb.Fatal("post_srq_recv failed")
					}
				}
			}
		}))
		add("HostPostSRQRecv", param, "rdma", post(true, func(e qpEnv) func(int) {
			ws, id := recvWork(), uint64(0)
			return func(iters int) {
				for range iters {
					for j := range ws {
						ws[j].ID = id
						id++
					}
					if err := e.srq.PostRecv(ws...); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
	}

	// The extended CQ: n ready completions per ibv_start_poll ...
	// ibv_end_poll, every field of the CQ (stdTS) read for each.
	for _, n := range []int{1, 16, 256} {
		param := fmt.Sprintf("n=%d", n)
		pollEx := func(impl func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int)) func(tb testing.TB) (func(int), func(testing.TB, int)) {
			return func(tb testing.TB) (func(int), func(testing.TB, int)) {
				e := newStubEnv(tb)
				cq, s := e.cq(tb, hostRing, stdTS)
				e.qp(tb, QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: hostRing, MaxRecv: hostRing}, s, s, nil, false)
				s.SetReady(n)
				calls0, polled0 := s.Calls(), s.Polled()
				return impl(e, cq, s), func(tb testing.TB, iters int) {
					assert.Equal(tb, uint64(iters), s.Calls()-calls0, "start_poll calls")
					assert.Equal(tb, uint64(iters*n), s.Polled()-polled0, "completions")
				}
			}
		}
		add("HostPollCQEx", param, "c", pollEx(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			out := (*stubprovider.WCEx)(stubprovider.Alloc(uintptr(n) * unsafe.Sizeof(stubprovider.WCEx{})))
			e.cleanup(func() { stubprovider.Free(unsafe.Pointer(out)) })
			return func(iters int) { must(e.tb, stubprovider.LoopPollEx(s, n, out, iters)) }
		}))
		add("HostPollCQEx", param, "ibv", pollEx(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			out, ex := make([]stubprovider.WCEx, n), s.RawEx()
			var attr ibv.PollCQAttr
			return func(iters int) {
				for range iters {
					if err := ex.CallStartPoll(&attr); err != nil {
						if errors.Is(err, unix.ENOENT) {
							continue
						}
						e.tb.Fatal(err)
					}
					for k := 0; ; {
						w := &out[k]
						w.WRID, w.Status = ex.WRID, uint32(ex.Status)
						op, err1 := ex.WCReadOpcode()
						verr, err2 := ex.WCReadVendorErr()
						blen, err3 := ex.WCReadByteLen()
						imm, err4 := ex.WCReadImmData()
						qpn, err5 := ex.WCReadQPNum()
						src, err6 := ex.WCReadSrcQP()
						flags, err7 := ex.WCReadWCFlags()
						slid, err8 := ex.WCReadSLID()
						sl, err9 := ex.WCReadSL()
						bits, err10 := ex.WCReadDLIDPathBits()
						ts, err11 := ex.WCReadCompletionTS()
						if err := errors.Join(err1, err2, err3, err4, err5, err6, err7, err8, err9, err10, err11); err != nil {
							e.tb.Fatal(err)
						}
						w.Opcode, w.VendorErr, w.ByteLen, w.ImmData, w.QPNum, w.SrcQP = uint32(op), verr, blen, imm, qpn, src
						w.WCFlags, w.SLID, w.SL, w.DLIDPathBits, w.CompletionTS = uint32(flags), slid, sl, bits, ts
						if k++; k == n {
							break
						}
						if err := ex.CallNextPoll(); err != nil {
							if errors.Is(err, unix.ENOENT) {
								break
							}
							e.tb.Fatal(err)
						}
					}
					if err := ex.CallEndPoll(); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostPollCQEx", param, "fast", pollEx(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			out, ex := make([]stubprovider.WCEx, n), s.RawEx()
			addr := uintptr(unsafe.Pointer(ex))
			start, next, end := ibv.FastStartPollOp(ex), ibv.FastNextPollOp(ex), ibv.FastEndPollOp(ex)
			rOp, rVerr, rLen, rImm := ibv.FastWCReadOpcodeOp(ex), ibv.FastWCReadVendorErrOp(ex), ibv.FastWCReadByteLenOp(ex), ibv.FastWCReadImmDataOp(ex)
			rQPN, rSrc, rFlags, rSLID := ibv.FastWCReadQPNumOp(ex), ibv.FastWCReadSrcQPOp(ex), ibv.FastWCReadWCFlagsOp(ex), ibv.FastWCReadSLIDOp(ex)
			rSL, rBits, rTS := ibv.FastWCReadSLOp(ex), ibv.FastWCReadDLIDPathBitsOp(ex), ibv.FastWCReadCompletionTSOp(ex)
			var attr ibv.PollCQAttr
			return func(iters int) {
				for range iters {
					switch rc := ibv.FastStartPoll(start, addr, &attr); rc {
					case 0:
					case int32(unix.ENOENT):
						continue
					default:
						e.tb.Fatal("start_poll failed")
					}
					for k := 0; ; {
						w := &out[k]
						w.WRID, w.Status = ex.WRID, uint32(ex.Status)
						w.Opcode = uint32(ibv.FastWCReadOpcode(rOp, addr))
						w.VendorErr = ibv.FastWCReadVendorErr(rVerr, addr)
						w.ByteLen = ibv.FastWCReadByteLen(rLen, addr)
						w.ImmData = ibv.FastWCReadImmData(rImm, addr)
						w.QPNum = ibv.FastWCReadQPNum(rQPN, addr)
						w.SrcQP = ibv.FastWCReadSrcQP(rSrc, addr)
						w.WCFlags = ibv.FastWCReadWCFlags(rFlags, addr)
						w.SLID = ibv.FastWCReadSLID(rSLID, addr)
						w.SL = ibv.FastWCReadSL(rSL, addr)
						w.DLIDPathBits = ibv.FastWCReadDLIDPathBits(rBits, addr)
						w.CompletionTS = ibv.FastWCReadCompletionTS(rTS, addr)
						if k++; k == n {
							break
						}
						if rc := ibv.FastNextPoll(next, addr); rc != 0 {
							if rc == int32(unix.ENOENT) {
								break
							}
							e.tb.Fatal("next_poll failed")
						}
					}
					ibv.FastEndPoll(end, addr)
				}
			}
		}))
		// The ibv trampolines' start, next and end, and one crossing per
		// completion for all its fields (ibv.FastReadWCEx).
		add("HostPollCQEx", param, "fastread", pollEx(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			out, ex := make([]ibv.WCEx, n), s.RawEx()
			addr := uintptr(unsafe.Pointer(ex))
			ops := ibv.FastPollCQExOps(ex, stdTS)
			var attr ibv.PollCQAttr
			return func(iters int) {
				for range iters {
					switch rc := ibv.FastStartPoll(ops.StartPoll, addr, &attr); rc {
					case 0:
					case int32(unix.ENOENT):
						continue
					default:
						e.tb.Fatal("start_poll failed")
					}
					for k := 0; ; {
						ibv.FastReadWCEx(&ops, addr, &out[k])
						if k++; k == n {
							break
						}
						if rc := ibv.FastNextPoll(ops.NextPoll, addr); rc != 0 {
							if rc == int32(unix.ENOENT) {
								break
							}
							e.tb.Fatal("next_poll failed")
						}
					}
					ibv.FastEndPoll(ops.EndPoll, addr)
				}
			}
		}))
		// One crossing per poll (ibv.FastPollCQEx).
		add("HostPollCQEx", param, "fastbatch", pollEx(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			out, ex := make([]ibv.WCEx, n), s.RawEx()
			addr := uintptr(unsafe.Pointer(ex))
			ops := ibv.FastPollCQExOps(ex, stdTS)
			return func(iters int) {
				for range iters {
					if ibv.FastPollCQEx(&ops, addr, int32(n), &out[0]) < 0 {
						e.tb.Fatal("start_poll failed")
					}
				}
			}
		}))
		add("HostPollCQEx", param, "rdma", pollEx(func(e *stubEnv, cq *CQ, s *stubprovider.CQ) func(int) {
			out := make([]ibv.WCEx, n)
			return func(iters int) {
				for range iters {
					if _, err := cq.PollEx(out); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
	}

	// The extended QP: ibv_wr_start, n RDMA writes of 64 bytes (wr_id and
	// wr_flags, ibv_wr_rdma_write, ibv_wr_set_sge; the last signaled),
	// ibv_wr_complete. QP.Ex hands out the ibv.QPEx itself: impl=ibv is
	// what a program on rdma runs.
	for _, n := range []int{1, 16, 256} {
		param := fmt.Sprintf("n=%d", n)
		wr := func(impl func(e *stubEnv, s *stubprovider.QP) func(int)) func(tb testing.TB) (func(int), func(testing.TB, int)) {
			return func(tb testing.TB) (func(int), func(testing.TB, int)) {
				e := newStubEnv(tb)
				cq, s := e.cq(tb, hostRing, 0)
				_, sq := e.qp(tb, QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 256, MaxRecv: 1}, s, s, nil, true)
				posted0 := sq.SendPosted()
				return impl(e, sq), func(tb testing.TB, iters int) {
					assert.Equal(tb, uint64(iters*n), sq.SendPosted()-posted0, "work requests posted")
				}
			}
		}
		add("HostWR", param, "c", wr(func(e *stubEnv, s *stubprovider.QP) func(int) {
			return func(iters int) { must(e.tb, stubprovider.LoopWR(s, n, hostLKey, hostAddr, iters)) }
		}))
		add("HostWR", param, "ibv", wr(func(e *stubEnv, s *stubprovider.QP) func(int) {
			qx, id := s.RawEx(), uint64(0)
			return func(iters int) {
				for range iters {
					if err := qx.Start(); err != nil {
						e.tb.Fatal(err)
					}
					for j := range n {
						qx.WRID, qx.WRFlags = id, 0
						if j == n-1 {
							qx.WRFlags = uint32(ibv.SendFlagsSignaled)
						}
						id++
						if err := qx.RDMAWrite(hostRKey, hostRAddr+64*uint64(j)); err != nil {
							e.tb.Fatal(err)
						}
						if err := qx.SetSGE(hostLKey, hostAddr+64*uint64(j), 64); err != nil {
							e.tb.Fatal(err)
						}
					}
					if err := qx.Complete(); err != nil {
						e.tb.Fatal(err)
					}
				}
			}
		}))
		add("HostWR", param, "fast", wr(func(e *stubEnv, s *stubprovider.QP) func(int) {
			qx, id := s.RawEx(), uint64(0)
			addr := uintptr(unsafe.Pointer(qx))
			start, write, sge, complete := ibv.FastWRStartOp(qx), ibv.FastWRRDMAWriteOp(qx), ibv.FastWRSetSGEOp(qx), ibv.FastWRCompleteOp(qx)
			return func(iters int) {
				for range iters {
					ibv.FastWRStart(start, addr)
					for j := range n {
						qx.WRID, qx.WRFlags = id, 0
						if j == n-1 {
							qx.WRFlags = uint32(ibv.SendFlagsSignaled)
						}
						id++
						ibv.FastWRRDMAWrite(write, addr, hostRKey, hostRAddr+64*uint64(j))
						ibv.FastWRSetSGE(sge, addr, hostLKey, hostAddr+64*uint64(j), 64)
					}
					if ibv.FastWRComplete(complete, addr) != 0 {
						e.tb.Fatal("wr_complete failed")
					}
				}
			}
		}))
	}
	return vs
}

// hostChunk is how long one variant runs at a time in a round.
const hostChunk = time.Millisecond

// hostBench measures bench's variants, a group per parameter (n=16, ...),
// each group in b.N rounds: in each round every variant of the group, and
// an empty cgo call (impl=cgo, the floor), makes calls for about
// hostChunk, in an order rotated from round to round, so that the ways
// compared run interleaved in time on the shared, noisy host and the
// ratios are taken within each round. It reports per impl: the median
// nanoseconds per call over the rounds (IMPL-ns/call), the median of the
// rounds' ratios to the C loop (IMPL-x) and of their overheads over it in
// empty cgo calls ((impl - c) / cgo, IMPL-over), and the allocations per
// call (IMPL-allocs/call, testing.AllocsPerRun). ns/op is not reported: a
// round's time means nothing.
func hostBench(b *testing.B, bench string) {
	var params []string
	groups := map[string][]hostVariant{}
	for _, v := range hostVariants() {
		if v.bench != bench {
			continue
		}
		if _, ok := groups[v.param]; !ok {
			params = append(params, v.param)
		}
		groups[v.param] = append(groups[v.param], v)
	}
	for _, p := range params {
		vs := append([]hostVariant{hostFloor(bench, p)}, groups[p]...)
		if p == "" {
			measureHost(b, vs)
			continue
		}
		b.Run(p, func(b *testing.B) { measureHost(b, vs) })
	}
}

// hostFloor is the group's empty cgo call.
func hostFloor(bench, param string) hostVariant {
	return hostVariant{bench, param, "cgo", func(tb testing.TB) (func(int), func(testing.TB, int)) {
		calls := 0
		return func(iters int) {
				for range iters {
					stubprovider.Noop()
				}
				calls += iters
			}, func(tb testing.TB, iters int) {
				assert.Equal(tb, iters, calls)
			}
	}}
}

func measureHost(b *testing.B, vs []hostVariant) {
	type state struct {
		run   func(int)
		check func(testing.TB, int)
		iters int       // calls per chunk
		calls int       // made in all
		ns    []float64 // per call, by round
	}
	st := make([]*state, len(vs))
	allocs := make([]float64, len(vs))
	for i, v := range vs {
		run, check := v.make(b)
		s := &state{run: run, check: check}
		s.calls += 11 // AllocsPerRun's
		allocs[i] = testing.AllocsPerRun(10, func() { run(1) })
		for s.iters = 1; ; s.iters *= 2 { // calibrate: calls per chunk
			t0 := time.Now()
			run(s.iters)
			s.calls += s.iters
			if d := time.Since(t0); d >= hostChunk/4 {
				s.iters = max(1, int(float64(s.iters)*float64(hostChunk)/float64(d)))
				break
			}
		}
		st[i] = s
	}
	runtime.GC()
	b.ResetTimer()
	for r := range b.N {
		for k := range st {
			s := st[(k+r)%len(st)]
			t0 := time.Now()
			s.run(s.iters)
			s.ns = append(s.ns, float64(time.Since(t0).Nanoseconds())/float64(s.iters))
			s.calls += s.iters
		}
	}
	b.StopTimer()
	for _, s := range st {
		s.check(b, s.calls)
	}
	var c, floor *state
	for i, v := range vs {
		switch v.impl {
		case "c":
			c = st[i]
		case "cgo":
			floor = st[i]
		}
	}
	for i, v := range vs {
		s := st[i]
		b.ReportMetric(medianOf(s.ns), v.impl+"-ns/call")
		b.ReportMetric(allocs[i], v.impl+"-allocs/call")
		if c == nil || s == c || s == floor {
			continue
		}
		ratio, over := make([]float64, b.N), make([]float64, b.N)
		for r := range b.N {
			ratio[r] = s.ns[r] / c.ns[r]
			over[r] = (s.ns[r] - c.ns[r]) / floor.ns[r]
		}
		b.ReportMetric(medianOf(ratio), v.impl+"-x")
		b.ReportMetric(medianOf(over), v.impl+"-over")
	}
	b.ReportMetric(0, "ns/op")
}

func medianOf(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func BenchmarkHostCgo(b *testing.B)         { hostBench(b, "HostCgo") }
func BenchmarkHostPollCQ(b *testing.B)      { hostBench(b, "HostPollCQ") }
func BenchmarkHostReqNotifyCQ(b *testing.B) { hostBench(b, "HostReqNotifyCQ") }
func BenchmarkHostPostSend(b *testing.B)    { hostBench(b, "HostPostSend") }
func BenchmarkHostPostRecv(b *testing.B)    { hostBench(b, "HostPostRecv") }
func BenchmarkHostPostSRQRecv(b *testing.B) { hostBench(b, "HostPostSRQRecv") }
func BenchmarkHostPollCQEx(b *testing.B)    { hostBench(b, "HostPollCQEx") }
func BenchmarkHostWR(b *testing.B)          { hostBench(b, "HostWR") }

// TestHostVerbs is the host group's smoke run (make test): every variant
// of every host benchmark makes a few calls, does their work (the stub
// counts it) and allocates nothing. No time is asserted.
func TestHostVerbs(t *testing.T) {
	benches := map[string]bool{}
	for _, v := range hostVariants() {
		if !benches[v.bench] {
			benches[v.bench] = true
			v := hostFloor(v.bench, "")
			t.Run(v.bench+"/"+v.sub(), func(t *testing.T) {
				run, check := v.make(t)
				run(3)
				check(t, 3)
			})
		}
		t.Run(v.bench+"/"+v.sub(), func(t *testing.T) {
			run, check := v.make(t)
			run(3)
			check(t, 3)
			allocs := testing.AllocsPerRun(20, func() { run(1) })
			assert.Zero(t, allocs, "allocations per call")
			check(t, 3+21)
		})
	}
	// Every benchmark function has variants (a renamed one would run none).
	for _, b := range []string{"HostCgo", "HostPollCQ", "HostReqNotifyCQ", "HostPostSend", "HostPostRecv", "HostPostSRQRecv", "HostPollCQEx", "HostWR"} {
		assert.True(t, benches[b], "no variant of Benchmark%s", b)
	}
}
