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
// several ways side by side, all on the same stub objects: impl=c, the
// same work as a C loop (the stubprovider's Loop* functions, iters calls in
// one cgo call); impl=c2, the C loop again (the measurement's own spread:
// its ratio to impl=c would be 1 on a quiet machine); impl=ibv, the
// generated checked bindings ((*ibv.CQ).Poll, ...); impl=fast, ibv's
// fast-path trampolines (ibv.FastPollCQ, ...), which package rdma uses;
// impl=rdma, this package's API. impl=cgo, an empty cgo call, is every
// group's floor. TestHostVerbs runs every way briefly under make test: it
// asserts that each did its work and allocated nothing, and no time.

// hostRing is the entries of the benchmarks' CQs.
const hostRing = 1024

// hostAddr is the address and key of the memory the work requests name:
// the stub never touches it.
const (
	hostAddr  = 0x10000
	hostLKey  = 0x77
	hostRAddr = 0x20000
	hostRKey  = 0x99
)

// stdTS are the fields of the extended CQs here: the standard ones and the
// completion time stamp (the wr_id, the status and eleven getters per
// completion).
const stdTS = ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsImm | ibv.CreateCQWCFlagsQPNum | ibv.CreateCQWCFlagsSrcQP |
	ibv.CreateCQWCFlagsSLID | ibv.CreateCQWCFlagsSL | ibv.CreateCQWCFlagsDLIDPathBits | ibv.CreateCQWCFlagsCompletionTimestamp

// hostFixture is the stub objects one group of ways shares (one verb, one
// batch), wrapped by this package as its constructors wrap real ones, and
// the C memory of the C loop and the raw ways.
type hostFixture struct {
	*stubEnv
	n    int // completions or work requests per call
	cq   *CQ
	scq  *stubprovider.CQ
	qp   *QP
	sqp  *stubprovider.QP
	srq  *SRQ
	ssrq *stubprovider.SRQ
	swrs []ibv.SendWR // n linked RDMA writes, in C memory
	rwrs []ibv.RecvWR // n linked receives, in C memory
	// counts reads what the stub did for the verb (two counters: calls
	// and completions, or work requests and 0), per says how much one call
	// adds to each.
	counts func() [2]uint64
	per    [2]uint64
}

// hostGroup builds a group's fixture.
type hostGroup func(tb testing.TB) *hostFixture

// hostWay is one way of doing the group's work: run makes iters calls.
type hostWay func(f *hostFixture) func(iters int)

// hostVariant is one way of one group.
type hostVariant struct {
	bench, param, impl string
	group              hostGroup
	way                hostWay
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

// pollGroup: a CQ (extended for wcFlags != 0) whose device makes n
// completions ready before each poll, for a QP on it.
func pollGroup(n int, wcFlags ibv.CreateCQWCFlags) hostGroup {
	return func(tb testing.TB) *hostFixture {
		f := &hostFixture{stubEnv: newStubEnv(tb), n: n}
		f.cq, f.scq = f.stubEnv.cq(tb, hostRing, wcFlags)
		f.stubEnv.qp(tb, QPConfig{SendCQ: f.cq, RecvCQ: f.cq, MaxSend: hostRing, MaxRecv: hostRing}, f.scq, f.scq, nil, false)
		f.scq.SetReady(n)
		f.counts = func() [2]uint64 { return [2]uint64{f.scq.Calls(), f.scq.Polled()} }
		f.per = [2]uint64{1, uint64(n)}
		return f
	}
}

// postGroup: a QP of 256 send and receive slots, with an SRQ for srq, and
// chains of n work requests in C memory; counted: the send queue's work
// requests (count "send"), the receive queue's ("recv") or the SRQ's.
func postGroup(n int, count string) hostGroup {
	return func(tb testing.TB) *hostFixture {
		f := &hostFixture{stubEnv: newStubEnv(tb), n: n}
		f.cq, f.scq = f.stubEnv.cq(tb, hostRing, 0)
		cfg := QPConfig{SendCQ: f.cq, RecvCQ: f.cq, MaxSend: 256, MaxRecv: 256}
		if count == "srq" {
			f.srq, f.ssrq = f.stubEnv.srq(tb, SRQConfig{MaxWR: 256})
			cfg.SRQ = f.srq
		}
		f.qp, f.sqp = f.stubEnv.qp(tb, cfg, f.scq, f.scq, f.ssrq, count == "wr")
		f.swrs = stubprovider.SendChain(n, ibv.WROpcodeRDMAWrite, hostLKey, hostAddr, 64, hostRKey, hostRAddr)
		f.rwrs = stubprovider.RecvChain(n, hostLKey, hostAddr, 64)
		tb.Cleanup(func() {
			stubprovider.Free(unsafe.Pointer(&f.swrs[0]))
			stubprovider.Free(unsafe.Pointer(&f.rwrs[0]))
		})
		switch count {
		case "send", "wr":
			f.counts = func() [2]uint64 { return [2]uint64{f.sqp.SendPosted()} }
		case "recv":
			f.counts = func() [2]uint64 { return [2]uint64{f.sqp.RecvPosted()} }
		case "srq":
			f.counts = func() [2]uint64 { return [2]uint64{f.ssrq.Posted()} }
		}
		f.per = [2]uint64{uint64(n)}
		return f
	}
}

func hostVariants() []hostVariant {
	var vs []hostVariant
	add := func(bench, param, impl string, g hostGroup, w hostWay) {
		vs = append(vs, hostVariant{bench, param, impl, g, w})
	}
	// A cgo call of an empty C function as ibv's fast-path trampolines are
	// called: two integers and a pointer to pointer-free memory, noescape
	// and nocallback (the floor, impl=cgo, an empty call without
	// arguments, is added to every group).
	var x uint64
	cgoGroup := func(tb testing.TB) *hostFixture {
		f := &hostFixture{}
		f.counts = func() [2]uint64 { return [2]uint64{x} }
		f.per = [2]uint64{1}
		return f
	}
	add("HostCgo", "", "args", cgoGroup, func(f *hostFixture) func(int) {
		return func(iters int) {
			for range iters {
				stubprovider.NoopArgs(1, 2, &x)
				x++
			}
		}
	})

	// poll_cq: an empty CQ polled for up to 16, and n ready polled for n.
	for _, n := range []int{0, 1, 16, 256} {
		param, g := fmt.Sprintf("n=%d", n), pollGroup(n, 0)
		num := n
		if n == 0 {
			num = 16
		}
		cLoop := func(f *hostFixture) func(int) {
			wcs := (*ibv.WC)(stubprovider.Alloc(uintptr(num) * unsafe.Sizeof(ibv.WC{})))
			f.cleanup(func() { stubprovider.Free(unsafe.Pointer(wcs)) })
			return func(iters int) { must(f.tb, stubprovider.LoopPollCQ(f.scq, num, wcs, iters)) }
		}
		add("HostPollCQ", param, "c", g, cLoop)
		add("HostPollCQ", param, "c2", g, cLoop)
		add("HostPollCQ", param, "ibv", g, func(f *hostFixture) func(int) {
			wcs, raw := make([]ibv.WC, num), f.scq.Raw()
			return func(iters int) {
				for range iters {
					if _, err := raw.Poll(wcs); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostPollCQ", param, "fast", g, func(f *hostFixture) func(int) {
			wcs, raw := make([]ibv.WC, num), f.scq.Raw()
			op, addr := ibv.FastPollCQOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					if ibv.FastPollCQ(op, addr, int32(num), &wcs[0]) < 0 {
						f.tb.Fatal("poll_cq failed")
					}
				}
			}
		})
		add("HostPollCQ", param, "rdma", g, func(f *hostFixture) func(int) {
			wcs := make([]ibv.WC, num)
			return func(iters int) {
				for range iters {
					if _, err := f.cq.Poll(wcs); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostPollCQ", param, "rdmabatch", g, func(f *hostFixture) func(int) {
			return func(iters int) {
				for range iters {
					if _, err := f.cq.PollBatch(num); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
	}

	// req_notify_cq.
	arm := func(tb testing.TB) *hostFixture {
		f := &hostFixture{stubEnv: newStubEnv(tb)}
		f.cq, f.scq = f.stubEnv.cq(tb, hostRing, 0)
		f.counts = func() [2]uint64 { return [2]uint64{f.scq.Arms()} }
		f.per = [2]uint64{1}
		return f
	}
	cArm := func(f *hostFixture) func(int) {
		return func(iters int) { must(f.tb, stubprovider.LoopReqNotifyCQ(f.scq, iters)) }
	}
	add("HostReqNotifyCQ", "", "c", arm, cArm)
	add("HostReqNotifyCQ", "", "c2", arm, cArm)
	add("HostReqNotifyCQ", "", "ibv", arm, func(f *hostFixture) func(int) {
		raw := f.scq.Raw()
		return func(iters int) {
			for range iters {
				if err := raw.ReqNotify(false); err != nil {
					f.tb.Fatal(err)
				}
			}
		}
	})
	add("HostReqNotifyCQ", "", "fast", arm, func(f *hostFixture) func(int) {
		raw := f.scq.Raw()
		op, addr := ibv.FastReqNotifyCQOp(raw), uintptr(unsafe.Pointer(raw))
		return func(iters int) {
			for range iters {
				if ibv.FastReqNotifyCQ(op, addr, 0) != 0 {
					f.tb.Fatal("req_notify_cq failed")
				}
			}
		}
	})
	// rdma arms a CQ in CompChannel.Wait and CQ.Wait, after each event:
	// CQ.rearm.
	add("HostReqNotifyCQ", "", "rdma", arm, func(f *hostFixture) func(int) {
		return func(iters int) {
			for range iters {
				if err := f.cq.rearm(); err != nil {
					f.tb.Fatal(err)
				}
			}
		}
	})

	// post_send, post_recv, post_srq_recv: n work requests of one SGE per
	// call, each with the next wr_id of a counter (the rest of each work
	// request made once): RDMA writes of 64 bytes, the last signaled.
	for _, n := range []int{1, 16, 256} {
		param := fmt.Sprintf("n=%d", n)
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

		send := postGroup(n, "send")
		cSend := func(f *hostFixture) func(int) {
			return func(iters int) { must(f.tb, stubprovider.LoopPostSend(f.sqp, f.swrs, iters)) }
		}
		add("HostPostSend", param, "c", send, cSend)
		add("HostPostSend", param, "c2", send, cSend)
		add("HostPostSend", param, "ibv", send, func(f *hostFixture) func(int) {
			wrs, raw, id := f.swrs, f.sqp.Raw(), uint64(0)
			return func(iters int) {
				for range iters {
					next := id // a local: id lives in the closure
					for j := range wrs {
						wrs[j].WRID = next
						next++
					}
					id = next
					if _, err := raw.PostSend(&wrs[0]); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostPostSend", param, "fast", send, func(f *hostFixture) func(int) {
			wrs, raw, id := f.swrs, f.sqp.Raw(), uint64(0)
			op, addr := ibv.FastPostSendOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					next := id // a local: id lives in the closure
					for j := range wrs {
						wrs[j].WRID = next
						next++
					}
					id = next
					var bad uintptr
					if ibv.FastPostSend(op, addr, &wrs[0], &bad) != 0 {
						f.tb.Fatal("post_send failed")
					}
				}
			}
		})
		add("HostPostSend", param, "rdma", send, func(f *hostFixture) func(int) {
			ws, id := sendWork(), uint64(0)
			return func(iters int) {
				for range iters {
					next := id
					for j := range ws {
						ws[j].ID = next
						next++
					}
					id = next
					if err := f.qp.PostSend(ws...); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})

		recv := postGroup(n, "recv")
		cRecv := func(f *hostFixture) func(int) {
			return func(iters int) { must(f.tb, stubprovider.LoopPostRecv(f.sqp, f.rwrs, iters)) }
		}
		add("HostPostRecv", param, "c", recv, cRecv)
		add("HostPostRecv", param, "c2", recv, cRecv)
		add("HostPostRecv", param, "ibv", recv, func(f *hostFixture) func(int) {
			wrs, raw, id := f.rwrs, f.sqp.Raw(), uint64(0)
			return func(iters int) {
				for range iters {
					next := id // a local: id lives in the closure
					for j := range wrs {
						wrs[j].WRID = next
						next++
					}
					id = next
					if _, err := raw.PostRecv(&wrs[0]); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostPostRecv", param, "fast", recv, func(f *hostFixture) func(int) {
			wrs, raw, id := f.rwrs, f.sqp.Raw(), uint64(0)
			op, addr := ibv.FastPostRecvOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					next := id // a local: id lives in the closure
					for j := range wrs {
						wrs[j].WRID = next
						next++
					}
					id = next
					var bad uintptr
					if ibv.FastPostRecv(op, addr, &wrs[0], &bad) != 0 {
						f.tb.Fatal("post_recv failed")
					}
				}
			}
		})
		add("HostPostRecv", param, "rdma", recv, func(f *hostFixture) func(int) {
			ws, id := recvWork(), uint64(0)
			return func(iters int) {
				for range iters {
					next := id
					for j := range ws {
						ws[j].ID = next
						next++
					}
					id = next
					if err := f.qp.PostRecv(ws...); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})

		srq := postGroup(n, "srq")
		cSRQ := func(f *hostFixture) func(int) {
			return func(iters int) { must(f.tb, stubprovider.LoopPostSRQRecv(f.ssrq, f.rwrs, iters)) }
		}
		add("HostPostSRQRecv", param, "c", srq, cSRQ)
		add("HostPostSRQRecv", param, "c2", srq, cSRQ)
		add("HostPostSRQRecv", param, "ibv", srq, func(f *hostFixture) func(int) {
			wrs, raw, id := f.rwrs, f.ssrq.Raw(), uint64(0)
			return func(iters int) {
				for range iters {
					next := id // a local: id lives in the closure
					for j := range wrs {
						wrs[j].WRID = next
						next++
					}
					id = next
					if _, err := raw.PostRecv(&wrs[0]); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostPostSRQRecv", param, "fast", srq, func(f *hostFixture) func(int) {
			wrs, raw, id := f.rwrs, f.ssrq.Raw(), uint64(0)
			op, addr := ibv.FastPostSRQRecvOp(raw), uintptr(unsafe.Pointer(raw))
			return func(iters int) {
				for range iters {
					next := id // a local: id lives in the closure
					for j := range wrs {
						wrs[j].WRID = next
						next++
					}
					id = next
					var bad uintptr
					if ibv.FastPostSRQRecv(op, addr, &wrs[0], &bad) != 0 {
						f.tb.Fatal("post_srq_recv failed")
					}
				}
			}
		})
		add("HostPostSRQRecv", param, "rdma", srq, func(f *hostFixture) func(int) {
			ws, id := recvWork(), uint64(0)
			return func(iters int) {
				for range iters {
					next := id
					for j := range ws {
						ws[j].ID = next
						next++
					}
					id = next
					if err := f.srq.PostRecv(ws...); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
	}

	// The extended CQ: n ready completions per ibv_start_poll ...
	// ibv_end_poll, every field of the CQ (stdTS) read for each.
	for _, n := range []int{1, 16, 256} {
		param, g := fmt.Sprintf("n=%d", n), pollGroup(n, stdTS)
		cEx := func(f *hostFixture) func(int) {
			out := (*stubprovider.WCEx)(stubprovider.Alloc(uintptr(n) * unsafe.Sizeof(stubprovider.WCEx{})))
			f.cleanup(func() { stubprovider.Free(unsafe.Pointer(out)) })
			return func(iters int) { must(f.tb, stubprovider.LoopPollEx(f.scq, n, out, iters)) }
		}
		add("HostPollCQEx", param, "c", g, cEx)
		add("HostPollCQEx", param, "c2", g, cEx)
		add("HostPollCQEx", param, "ibv", g, func(f *hostFixture) func(int) {
			out, ex := make([]stubprovider.WCEx, n), f.scq.RawEx()
			var attr ibv.PollCQAttr
			return func(iters int) {
				for range iters {
					if err := ex.CallStartPoll(&attr); err != nil {
						if errors.Is(err, unix.ENOENT) {
							continue
						}
						f.tb.Fatal(err)
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
							f.tb.Fatal(err)
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
							f.tb.Fatal(err)
						}
					}
					if err := ex.CallEndPoll(); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostPollCQEx", param, "fast", g, func(f *hostFixture) func(int) {
			out, ex := make([]stubprovider.WCEx, n), f.scq.RawEx()
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
						f.tb.Fatal("start_poll failed")
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
							f.tb.Fatal("next_poll failed")
						}
					}
					ibv.FastEndPoll(end, addr)
				}
			}
		})
		// The trampolines' start, next and end, and one crossing per
		// completion for all its fields (ibv.FastReadWCEx).
		add("HostPollCQEx", param, "fastread", g, func(f *hostFixture) func(int) {
			out, ex := make([]ibv.WCEx, n), f.scq.RawEx()
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
						f.tb.Fatal("start_poll failed")
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
							f.tb.Fatal("next_poll failed")
						}
					}
					ibv.FastEndPoll(ops.EndPoll, addr)
				}
			}
		})
		// One crossing per poll (ibv.FastPollCQEx).
		add("HostPollCQEx", param, "fastbatch", g, func(f *hostFixture) func(int) {
			out, ex := make([]ibv.WCEx, n), f.scq.RawEx()
			addr := uintptr(unsafe.Pointer(ex))
			ops := ibv.FastPollCQExOps(ex, stdTS)
			return func(iters int) {
				for range iters {
					if ibv.FastPollCQEx(&ops, addr, int32(n), &out[0]) < 0 {
						f.tb.Fatal("start_poll failed")
					}
				}
			}
		})
		add("HostPollCQEx", param, "rdma", g, func(f *hostFixture) func(int) {
			out := make([]ibv.WCEx, n)
			return func(iters int) {
				for range iters {
					if _, err := f.cq.PollEx(out); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
	}

	// The extended QP: ibv_wr_start, n RDMA writes of 64 bytes (wr_id and
	// wr_flags, ibv_wr_rdma_write, ibv_wr_set_sge; the last signaled),
	// ibv_wr_complete. QP.Ex hands out the ibv.QPEx itself: impl=ibv is
	// what a program on rdma runs.
	for _, n := range []int{1, 16, 256} {
		param, g := fmt.Sprintf("n=%d", n), postGroup(n, "wr")
		cWR := func(f *hostFixture) func(int) {
			return func(iters int) { must(f.tb, stubprovider.LoopWR(f.sqp, n, hostLKey, hostAddr, iters)) }
		}
		add("HostWR", param, "c", g, cWR)
		add("HostWR", param, "c2", g, cWR)
		add("HostWR", param, "ibv", g, func(f *hostFixture) func(int) {
			qx, id := f.sqp.RawEx(), uint64(0)
			return func(iters int) {
				for range iters {
					if err := qx.Start(); err != nil {
						f.tb.Fatal(err)
					}
					for j := range n {
						qx.WRID, qx.WRFlags = id, 0
						if j == n-1 {
							qx.WRFlags = uint32(ibv.SendFlagsSignaled)
						}
						id++
						if err := qx.RDMAWrite(hostRKey, hostRAddr+64*uint64(j)); err != nil {
							f.tb.Fatal(err)
						}
						if err := qx.SetSGE(hostLKey, hostAddr+64*uint64(j), 64); err != nil {
							f.tb.Fatal(err)
						}
					}
					if err := qx.Complete(); err != nil {
						f.tb.Fatal(err)
					}
				}
			}
		})
		add("HostWR", param, "fast", g, func(f *hostFixture) func(int) {
			qx, id := f.sqp.RawEx(), uint64(0)
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
						f.tb.Fatal("wr_complete failed")
					}
				}
			}
		})
	}
	return vs
}

// hostFloor is a group's empty cgo call.
func hostFloor(f *hostFixture) func(int) {
	return func(iters int) {
		for range iters {
			stubprovider.Noop()
		}
	}
}

// hostChunk is how long one way runs at a time in a round.
const hostChunk = time.Millisecond

// hostBench measures bench's ways, a group per parameter (n=16, ...),
// each group on one fixture in b.N rounds: in each round every way of the
// group, and an empty cgo call (impl=cgo, the floor), makes calls for
// about hostChunk, in an order rotated from round to round, so that the
// ways compared run interleaved in time on the shared, noisy host and the
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
		vs := groups[p]
		if p == "" {
			measureHost(b, vs)
			continue
		}
		b.Run(p, func(b *testing.B) { measureHost(b, vs) })
	}
}

func measureHost(b *testing.B, vs []hostVariant) {
	type state struct {
		impl   string
		run    func(int)
		iters  int       // calls per chunk
		ns     []float64 // per call, by round
		allocs float64
	}
	f := vs[0].group(b)
	count := func(s *state, iters int) {
		if s.impl == "cgo" { // the floor does no work of the verb
			s.run(iters)
			return
		}
		before := f.counts()
		s.run(iters)
		after := f.counts()
		if got, want := after[0]-before[0], uint64(iters)*f.per[0]; got != want {
			b.Fatalf("impl=%s: %d calls did %d of the work, not %d", s.impl, iters, got, want)
		}
		if got, want := after[1]-before[1], uint64(iters)*f.per[1]; got != want {
			b.Fatalf("impl=%s: %d calls did %d of the work, not %d", s.impl, iters, got, want)
		}
	}
	st := []*state{{impl: "cgo", run: hostFloor(f)}}
	for _, v := range vs {
		st = append(st, &state{impl: v.impl, run: v.way(f)})
	}
	for _, s := range st {
		s.allocs = testing.AllocsPerRun(10, func() { s.run(1) })
		for s.iters = 1; ; s.iters *= 2 { // calibrate: calls per chunk
			t0 := time.Now()
			count(s, s.iters)
			if d := time.Since(t0); d >= hostChunk/4 {
				s.iters = max(1, int(float64(s.iters)*float64(hostChunk)/float64(d)))
				break
			}
		}
	}
	runtime.GC()
	b.ResetTimer()
	for r := range b.N {
		for k := range st {
			s := st[(k+r)%len(st)]
			t0 := time.Now()
			s.run(s.iters)
			s.ns = append(s.ns, float64(time.Since(t0).Nanoseconds())/float64(s.iters))
		}
	}
	b.StopTimer()
	for _, s := range st[1:] { // each way still does its work
		count(s, 1)
	}
	var c, floor *state
	for _, s := range st {
		switch s.impl {
		case "c":
			c = s
		case "cgo":
			floor = s
		}
	}
	for _, s := range st {
		b.ReportMetric(medianOf(s.ns), s.impl+"-ns/call")
		b.ReportMetric(s.allocs, s.impl+"-allocs/call")
		if c == nil || s == c || s == floor {
			continue
		}
		ratio, over := make([]float64, b.N), make([]float64, b.N)
		for r := range b.N {
			ratio[r] = s.ns[r] / c.ns[r]
			over[r] = (s.ns[r] - c.ns[r]) / floor.ns[r]
		}
		b.ReportMetric(medianOf(ratio), s.impl+"-x")
		b.ReportMetric(medianOf(over), s.impl+"-over")
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

// TestHostVerbs is the host group's smoke run (make test): every way of
// every host benchmark, on a fixture of its own, makes a few calls, does
// their work (the stub counts it) and allocates nothing. No time is
// asserted.
func TestHostVerbs(t *testing.T) {
	benches := map[string]bool{}
	for _, v := range hostVariants() {
		benches[v.bench] = true
		t.Run(v.bench+"/"+v.sub(), func(t *testing.T) {
			f := v.group(t)
			run := v.way(f)
			for _, calls := range []int{3, 1} {
				before := f.counts()
				run(calls)
				after := f.counts()
				for i := range after {
					assert.Equal(t, uint64(calls)*f.per[i], after[i]-before[i], "counter %d after %d calls", i, calls)
				}
			}
			assert.Zero(t, testing.AllocsPerRun(20, func() { run(1) }), "allocations per call")
			if f.stubEnv != nil {
				before := f.counts()
				hostFloor(f)(2)
				assert.Equal(t, before, f.counts(), "the floor does no work")
			}
		})
	}
	// Every benchmark function has ways (a renamed one would run none).
	for _, b := range []string{"HostCgo", "HostPollCQ", "HostReqNotifyCQ", "HostPostSend", "HostPostRecv", "HostPostSRQRecv", "HostPollCQEx", "HostWR"} {
		assert.True(t, benches[b], "no way of Benchmark%s", b)
	}
}
