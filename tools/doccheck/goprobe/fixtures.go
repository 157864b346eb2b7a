//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

// The libibverbs fixtures, as the C harness has them (harness.c.tmpl): each is created on
// first use, with what it depends on first, and torn down after the probe, newest first. A
// snippet that destroys one clears it (dropped), and its teardown skips it.
var (
	fxDev     *ibv.Device
	fxCtx     *ibv.Context
	fxDevAttr *ibv.DeviceAttr
	fxPD      *ibv.PD
	fxCh      *ibv.CompChannel
	fxCQ      *ibv.CQ
	fxChCQ    *ibv.CQ
	fxQP      *ibv.QP
	fxMR      *ibv.MR
	fxBuf     []byte // 4 KiB, mmap'd, registered as fxMR
	fxSRQ     *ibv.SRQ
	fxCQX     *ibv.CQEx
	fxLQP     *ibv.QP // RC, connected to itself, in RTS; send CQ chcq, recv CQ cq
	fxAH      *ibv.AH
	// fxSRQLimitQP is srqLimitQP's QP.
	fxSRQLimitQP *ibv.QP
)

// dev is the rxe device of node A (RXE_A_DEV).
func dev() *ibv.Device {
	if fxDev != nil {
		return fxDev
	}
	name := os.Getenv("RXE_A_DEV")
	// The list stays: a device is valid until ibv_free_device_list unless
	// opened before it, and the probes open it later.
	list, err := ibv.GetDeviceList()
	must("dev", err)
	for _, d := range list.All() {
		if s, err := d.GetName(); err == nil && s == name {
			fxDev = d
			return d
		}
	}
	panic(fixtureError{"dev", fmt.Errorf("no device %q", name)})
}

func ctx() *ibv.Context {
	if fxCtx == nil {
		c, err := dev().Open()
		must("ctx", err)
		fxCtx = c
		onExit(func() error { return closeIf(&fxCtx, (*ibv.Context).CloseDevice) })
	}
	return fxCtx
}

func devAttr() *ibv.DeviceAttr {
	if fxDevAttr == nil {
		a, err := ctx().QueryDevice()
		must("dev_attr", err)
		fxDevAttr = &a
	}
	return fxDevAttr
}

func pd() *ibv.PD {
	if fxPD == nil {
		p, err := ctx().AllocPD()
		must("pd", err)
		fxPD = p
		onExit(func() error { return closeIf(&fxPD, (*ibv.PD).Dealloc) })
	}
	return fxPD
}

func ch() *ibv.CompChannel {
	if fxCh == nil {
		c, err := ctx().CreateCompChannel()
		must("ch", err)
		fxCh = c
		onExit(func() error { return closeIf(&fxCh, (*ibv.CompChannel).Destroy) })
	}
	return fxCh
}

func cq() *ibv.CQ {
	if fxCQ == nil {
		c, err := ctx().CreateCQ(16, nil, nil, 0)
		must("cq", err)
		fxCQ = c
		onExit(func() error { return closeIf(&fxCQ, (*ibv.CQ).Destroy) })
	}
	return fxCQ
}

func chcq() *ibv.CQ {
	if fxChCQ == nil {
		c, err := ctx().CreateCQ(16, nil, ch(), 0)
		must("chcq", err)
		fxChCQ = c
		onExit(func() error { return closeIf(&fxChCQ, (*ibv.CQ).Destroy) })
	}
	return fxChCQ
}

// rcAttr is the init attributes of the fixtures' RC QPs on send and recv.
func rcAttr(send, recv *ibv.CQ) *ibv.QPInitAttr {
	return &ibv.QPInitAttr{SendCQ: send, RecvCQ: recv, QPType: ibv.QPTypeRC,
		Cap: ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}}
}

func qp() *ibv.QP {
	if fxQP == nil {
		q, err := pd().CreateQP(rcAttr(cq(), cq()))
		must("qp", err)
		fxQP = q
		onExit(func() error { return closeIf(&fxQP, (*ibv.QP).Destroy) })
	}
	return fxQP
}

// mr registers buf (4 KiB of mmap'd memory) for local write, remote read, write and atomics
// and memory-window binds.
func mr() *ibv.MR {
	if fxMR == nil {
		p := pd()
		fxBuf = cmem(4096)
		m, err := p.RegMR(fxBuf, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite|ibv.AccessFlagsRemoteRead|
			ibv.AccessFlagsRemoteAtomic|ibv.AccessFlagsMWBind)
		must("mr", err)
		fxMR = m
		onExit(func() error { return closeIf(&fxMR, (*ibv.MR).Dereg) })
	}
	return fxMR
}

// buf is the registered buffer of mr.
func buf() []byte { mr(); return fxBuf }

// addr is the address of buf()[off].
func addr(off int) uint64 { return uint64(uintptr(unsafe.Pointer(&buf()[off]))) }

func srq() *ibv.SRQ {
	if fxSRQ == nil {
		s, err := pd().CreateSRQ(&ibv.SRQInitAttr{Attr: ibv.SRQAttr{MaxWR: 4, MaxSGE: 1}})
		must("srq", err)
		fxSRQ = s
		onExit(func() error { return closeIf(&fxSRQ, (*ibv.SRQ).Destroy) })
	}
	return fxSRQ
}

func cqx() *ibv.CQEx {
	if fxCQX == nil {
		c, err := ctx().CreateCQEx(&ibv.CQInitAttrEx{CQE: 16, WCFlags: uint64(ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsQPNum |
			ibv.CreateCQWCFlagsSrcQP | ibv.CreateCQWCFlagsSLID | ibv.CreateCQWCFlagsSL | ibv.CreateCQWCFlagsDLIDPathBits | ibv.CreateCQWCFlagsImm)})
		must("cqx", err)
		fxCQX = c
		onExit(func() error {
			return closeIf(&fxCQX, func(c *ibv.CQEx) error { return ibv.CQExToCQ(c).Destroy() })
		})
	}
	return fxCQX
}

// toRTS moves an RC QP of node A through INIT and RTR to RTS, connected to dqpn on node A
// (GID index 1).
func toRTS(q *ibv.QP, dqpn uint32) error {
	if err := q.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1,
		QPAccessFlags: uint32(ibv.AccessFlagsLocalWrite | ibv.AccessFlagsRemoteWrite | ibv.AccessFlagsRemoteRead | ibv.AccessFlagsRemoteAtomic | ibv.AccessFlagsMWBind)},
		ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags); err != nil {
		return err
	}
	g, err := q.Context.QueryGID(1, int(gidIndex()))
	if err != nil {
		return err
	}
	if err := q.Modify(&ibv.QPAttr{QPState: ibv.QPStateRTR, PathMTU: ibv.MTU1024, DestQPNum: dqpn, MaxDestRdAtomic: 1, MinRNRTimer: 1,
		AHAttr: ibv.AHAttr{IsGlobal: 1, PortNum: 1, GRH: ibv.GlobalRoute{DGID: g, SGIDIndex: gidIndex(), HopLimit: 1}}},
		ibv.QPAttrMaskState|ibv.QPAttrMaskAv|ibv.QPAttrMaskPathMTU|ibv.QPAttrMaskDestQPN|ibv.QPAttrMaskRQPSN|ibv.QPAttrMaskMaxDestRdAtomic|ibv.QPAttrMaskMinRNRTimer); err != nil {
		return err
	}
	return q.Modify(&ibv.QPAttr{QPState: ibv.QPStateRTS, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1},
		ibv.QPAttrMaskState|ibv.QPAttrMaskTimeout|ibv.QPAttrMaskRetryCnt|ibv.QPAttrMaskRNRRetry|ibv.QPAttrMaskSQPSN|ibv.QPAttrMaskMaxQPRdAtomic)
}

func lqp() *ibv.QP {
	if fxLQP == nil {
		q, err := pd().CreateQP(rcAttr(chcq(), cq()))
		must("lqp", err)
		fxLQP = q
		onExit(func() error { return closeIf(&fxLQP, (*ibv.QP).Destroy) })
		must("lqp rts", toRTS(q, q.QPNum))
	}
	return fxLQP
}

func ah() *ibv.AH {
	if fxAH == nil {
		a := ibv.AHAttr{IsGlobal: 1, PortNum: 1, GRH: ibv.GlobalRoute{SGIDIndex: gidIndex(), HopLimit: 1}}
		g, err := ctx().QueryGID(1, int(gidIndex()))
		must("ah gid", err)
		a.GRH.DGID = g
		h, err := pd().CreateAH(&a)
		must("ah", err)
		fxAH = h
		onExit(func() error { return closeIf(&fxAH, (*ibv.AH).Destroy) })
	}
	return fxAH
}

// closeIf destroys the fixture *p unless a probe did (and cleared it).
func closeIf[T any](p **T, destroy func(*T) error) error {
	if *p == nil {
		return nil
	}
	err := destroy(*p)
	*p = nil
	return err
}

// cmem returns n bytes of mmap'd memory (C may keep pointers to it: work requests, SGEs,
// registered buffers), unmapped after the probe.
func cmem(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	must("mmap", err)
	onExit(func() error { return unix.Munmap(b) })
	return b
}

// cnew returns a zeroed T in mmap'd memory (for work requests and SGE lists, which hold
// pointers and so cannot be Go memory passed to C).
func cnew[T any]() *T {
	var zero T
	return (*T)(unsafe.Pointer(&cmem(int(unsafe.Sizeof(zero)))[0]))
}

// cslice returns n zeroed Ts in mmap'd memory.
func cslice[T any](n int) []T {
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(&cmem(n * int(unsafe.Sizeof(zero)))[0])), n)
}

// sge is one scatter/gather entry for n bytes of buf at off, in mmap'd memory.
func sge(off, n int) *ibv.SGE {
	s := cnew[ibv.SGE]()
	*s = ibv.SGE{Addr: addr(off), Length: uint32(n), LKey: mr().LKey}
	return s
}

// sges is n entries of 8 bytes each, consecutive in buf, in mmap'd memory.
func sges(n int) *ibv.SGE {
	s := cslice[ibv.SGE](n)
	for i := range s {
		s[i] = ibv.SGE{Addr: addr(8 * i), Length: 8, LKey: mr().LKey}
	}
	return &s[0]
}

// recvWR is a receive work request over sg (num entries), in mmap'd memory.
func recvWR(sg *ibv.SGE, num int) *ibv.RecvWR {
	w := cnew[ibv.RecvWR]()
	w.WRID, w.SgList, w.NumSGE = 1, sg, int32(num)
	return w
}

// sendWR is a send work request over sg (num entries), in mmap'd memory.
func sendWR(sg *ibv.SGE, num int, flags ibv.SendFlags) *ibv.SendWR {
	w := cnew[ibv.SendWR]()
	w.WRID, w.SgList, w.NumSGE, w.Opcode, w.SendFlags = 2, sg, int32(num), ibv.WROpcodeSend, uint32(flags)
	return w
}

// sendSelf posts a receive and a signaled 8-byte send on a QP connected to itself and
// waits (300 ms) until both completions are in their CQs, without consuming them.
func sendSelf(q *ibv.QP) {
	must("send_self", errOf(q.PostRecv(recvWR(sge(64, 64), 1))))
	must("send_self", errOf(q.PostSend(sendWR(sge(0, 8), 1, ibv.SendFlagsSignaled))))
	time.Sleep(300 * time.Millisecond)
}

// htobe16 is v in network byte order, as C's htobe16 gives it.
func htobe16(v uint16) uint16 {
	return binary.NativeEndian.Uint16(binary.BigEndian.AppendUint16(nil, v))
}

// htobe32 is v in network byte order.
func htobe32(v uint32) uint32 {
	return binary.NativeEndian.Uint32(binary.BigEndian.AppendUint32(nil, v))
}

// mcastGID is the IPv4-mapped multicast GID of 239.1.1.1.
func mcastGID() ibv.GID {
	var g ibv.GID
	raw := (*[16]byte)(unsafe.Pointer(&g))
	copy(raw[:], []byte{0xff, 0x0e, 10: 0xff, 11: 0xff, 12: 239, 13: 1, 14: 1, 15: 1})
	return g
}

// srqLimitQP creates an RC QP on srq connected to itself, posts two receives to the SRQ,
// arms its limit at 2 and consumes one receive with a send to self: the SRQ limit event
// follows. The QP is destroyed after the probe, unless the probe did (clearing fxSRQLimitQP).
func srqLimitQP() *ibv.QP {
	a := rcAttr(chcq(), cq())
	a.SRQ, a.Cap = srq(), ibv.QPCap{MaxSendWR: 2, MaxSendSGE: 1}
	q, err := pd().CreateQP(a)
	must("srq limit", err)
	fxSRQLimitQP = q
	onExit(func() error { return closeIf(&fxSRQLimitQP, (*ibv.QP).Destroy) })
	must("srq limit", toRTS(q, q.QPNum))
	w := recvWR(sge(0, 64), 1)
	must("srq limit", errOf(fxSRQ.PostRecv(w)))
	must("srq limit", errOf(fxSRQ.PostRecv(w)))
	must("srq limit", fxSRQ.Modify(&ibv.SRQAttr{SRQLimit: 2}, ibv.SRQAttrMaskLimit))
	must("srq limit", errOf(q.PostSend(sendWR(sge(0, 64), 1, 0))))
	return q
}

// gidIndex is the index of node A's IPv4-mapped RoCE v2 GID: RXE_GID_INDEX (the bed's 1, or
// what doccheck -device read from sysfs), 1 when unset (as the C harness's gid_index).
func gidIndex() uint8 {
	n, err := strconv.ParseUint(os.Getenv("RXE_GID_INDEX"), 10, 8)
	if err != nil {
		return 1
	}
	return uint8(n)
}
