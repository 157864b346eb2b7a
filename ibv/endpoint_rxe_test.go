//go:build rxe

package ibv

import (
	"testing"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

// endpoint is one node's verbs resources: everything C keeps a pointer to
// (the registered buffer, work requests and their SGEs) lives in mmap'd
// memory, never in the Go heap.
type endpoint struct {
	ctx  *Context
	pd   *PD
	buf  []byte // registered, mmap'd
	mr   *MR
	ch   *CompChannel
	cq   *CQ
	qp   *QP
	wrs  []byte // mmap'd page holding work requests and SGEs
	gid  GID
	port PortAttr
}

const bufSize = 4096

// mmapPage maps n anonymous bytes, unmapped at the end of the test.
func mmapPage(t *testing.T, n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, unix.Munmap(b)) })
	return b
}

// openDevice opens the rxe device named dev.
func openDevice(t *testing.T, dev string) *Context {
	list, err := GetDeviceList()
	require.NoError(t, err)
	defer func() { require.NoError(t, list.Close()) }()
	var names []string
	for _, d := range list.All() {
		name, err := d.GetName()
		require.NoError(t, err)
		names = append(names, name)
		if name == dev {
			ctx, err := d.Open()
			require.NoError(t, err)
			return ctx
		}
	}
	t.Fatalf("device %s not among %v", dev, names)
	return nil
}

// newEndpoint opens dev and creates PD, MR, completion channel, CQ (armed)
// and an RC QP, destroyed in reverse order at the end of the test.
func newEndpoint(t *testing.T, dev string, gidIndex int) *endpoint {
	e := &endpoint{ctx: openDevice(t, dev)}
	t.Cleanup(func() { require.NoError(t, e.ctx.CloseDevice()) })
	var err error
	e.port, err = e.ctx.QueryPort(1)
	require.NoError(t, err)
	require.Equal(t, PortStateActive, e.port.State, "port 1 of %s", dev)
	e.gid, err = e.ctx.QueryGID(1, gidIndex)
	require.NoError(t, err)

	e.pd, err = e.ctx.AllocPD()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.pd.Dealloc()) })

	e.buf = mmapPage(t, bufSize)
	e.wrs = mmapPage(t, 4096)
	e.mr, err = e.pd.RegMR(e.buf, AccessFlagsLocalWrite|AccessFlagsRemoteWrite|AccessFlagsRemoteRead)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.mr.Dereg()) })

	e.ch, err = e.ctx.CreateCompChannel()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.ch.Destroy()) })
	e.cq, err = e.ctx.CreateCQ(16, nil, e.ch, 0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.cq.Destroy()) })
	require.NoError(t, e.cq.ReqNotify(false))

	e.qp, err = e.pd.CreateQP(&QPInitAttr{
		SendCQ: e.cq, RecvCQ: e.cq, QPType: QPTypeRC,
		Cap: QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.qp.Destroy()) })
	return e
}

// connect moves e's QP to RTS towards the remote QP number and GID, with
// a global route through GID index gidIndex.
func (e *endpoint) connect(t *testing.T, remoteQPN uint32, remoteGID GID, gidIndex int) {
	require.NoError(t, e.qp.Modify(&QPAttr{
		QPState: QPStateInit, PortNum: 1,
		QPAccessFlags: uint32(AccessFlagsLocalWrite | AccessFlagsRemoteWrite | AccessFlagsRemoteRead),
	}, QPAttrMaskState|QPAttrMaskPKeyIndex|QPAttrMaskPort|QPAttrMaskAccessFlags))

	rtr := QPAttr{
		QPState: QPStateRTR, PathMTU: MTU1024, DestQPNum: remoteQPN,
		MaxDestRdAtomic: 1, MinRNRTimer: 12,
		AHAttr: AHAttr{IsGlobal: 1, PortNum: 1, GRH: GlobalRoute{DGID: remoteGID, SGIDIndex: uint8(gidIndex), HopLimit: 1}},
	}
	require.NoError(t, e.qp.Modify(&rtr, QPAttrMaskState|QPAttrMaskAv|QPAttrMaskPathMTU|QPAttrMaskDestQPN|QPAttrMaskRQPSN|QPAttrMaskMaxDestRdAtomic|QPAttrMaskMinRNRTimer))

	require.NoError(t, e.qp.Modify(&QPAttr{
		QPState: QPStateRTS, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1,
	}, QPAttrMaskState|QPAttrMaskTimeout|QPAttrMaskRetryCnt|QPAttrMaskRNRRetry|QPAttrMaskSQPSN|QPAttrMaskMaxQPRdAtomic))

	attr, _, err := e.qp.Query(QPAttrMaskState)
	require.NoError(t, err)
	require.Equal(t, QPStateRTS, attr.QPState)
}

// sge places one SGE for n bytes of the buffer at off in the WR page at
// slot, returning it.
func (e *endpoint) sge(slot, off, n int) *SGE {
	s := (*SGE)(unsafe.Pointer(&e.wrs[2048+slot*int(unsafe.Sizeof(SGE{}))]))
	*s = SGE{Addr: uint64(uintptr(unsafe.Pointer(&e.buf[off]))), Length: uint32(n), LKey: e.mr.LKey}
	return s
}

// sendWR is the send work request in the WR page.
func (e *endpoint) sendWR() *SendWR {
	wr := (*SendWR)(unsafe.Pointer(&e.wrs[0]))
	*wr = SendWR{}
	return wr
}

// recvWR is the receive work request in the WR page.
func (e *endpoint) recvWR() *RecvWR {
	wr := (*RecvWR)(unsafe.Pointer(&e.wrs[1024]))
	*wr = RecvWR{}
	return wr
}

// pollOne busy-polls e's CQ for one completion.
func (e *endpoint) pollOne(t *testing.T) WC {
	var wc WC
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n, err := e.cq.Poll(unsafe.Slice(&wc, 1))
		require.NoError(t, err)
		if n == 1 {
			require.Equal(t, WCStatusSuccess, wc.Status, "completion status %s", WCStatusStr(wc.Status))
			return wc
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no completion within 20 s")
	return wc
}

// waitEvent blocks on e's completion channel until the armed CQ reports,
// acknowledges the event and re-arms the CQ.
func (e *endpoint) waitEvent(t *testing.T) {
	cq, _, err := e.ch.GetCQEvent()
	require.NoError(t, err)
	require.Equal(t, e.cq, cq)
	e.cq.AckEvents(1)
	require.NoError(t, e.cq.ReqNotify(false))
}
