//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rpma"
)

// The librpma fixtures (see fixtures.go); the C probes build the same objects inline.
var (
	fxRPeer   *rpma.Peer
	fxRMR     *rpma.MRLocal // 4 KiB of mmap'd memory, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST
	fxRRemote *rpma.MRRemote
	fxRSRQ    *rpma.SRQ // rcq size 16
)

// rctx is the ibv context of node A's address, as librpma finds it (librpma owns it).
func rctx() *ibv.Context {
	var ic *ibv.Context
	must("rpma ctx", rpma.UtilsGetIBVContext(cstr(os.Getenv("RXE_A_IP")), rpma.UtilIBVContextTypeLocal, &ic))
	return ic
}

func rpeer() *rpma.Peer {
	if fxRPeer == nil {
		var p *rpma.Peer
		must("rpma peer", rpma.PeerNew(rctx(), &p))
		fxRPeer = p
		onExit(func() error { return rpmaDelete(&fxRPeer, rpma.PeerDelete) })
	}
	return fxRPeer
}

// rmrInto registers 4 KiB of mmap'd memory with usage on rpeer as *m, deregistered after
// the probe unless the probe did.
func rmrInto(m **rpma.MRLocal, usage int32) error {
	p := rpeer()
	b := cmem(4096)
	var local *rpma.MRLocal
	err := p.MRReg(unsafe.Pointer(&b[0]), 4096, usage, &local)
	*m = local
	if err == nil {
		onExit(func() error { return rpmaDelete(m, rpma.MRDereg) })
	}
	return err
}

func rmr() *rpma.MRLocal {
	if fxRMR == nil {
		must("rpma mr", rmrInto(&fxRMR, rpma.MRUsageReadSrc|rpma.MRUsageWriteDst))
	}
	return fxRMR
}

// rdesc is rmr's descriptor.
func rdesc() []byte {
	var n uint64
	must("descriptor size", rmr().GetDescriptorSize(&n))
	d := make([]byte, n)
	must("descriptor", rmr().GetDescriptor(unsafe.Pointer(&d[0])))
	return d
}

func rremote() *rpma.MRRemote {
	if fxRRemote == nil {
		d := rdesc()
		var r *rpma.MRRemote
		must("rpma remote", rpma.MRRemoteFromDescriptor(unsafe.Pointer(&d[0]), uint64(len(d)), &r))
		fxRRemote = r
		onExit(func() error { return rpmaDelete(&fxRRemote, rpma.MRRemoteDelete) })
	}
	return fxRRemote
}

// connCfg is a new connection configuration, deleted after the probe.
func connCfg() *rpma.ConnCfg {
	var c *rpma.ConnCfg
	must("conn cfg", rpma.ConnCfgNew(&c))
	onExit(func() error { return rpmaDelete(&c, rpma.ConnCfgDelete) })
	return c
}

// peerCfg is a new peer configuration, deleted after the probe.
func peerCfg() *rpma.PeerCfg {
	var c *rpma.PeerCfg
	must("peer cfg", rpma.PeerCfgNew(&c))
	onExit(func() error { return rpmaDelete(&c, rpma.PeerCfgDelete) })
	return c
}

// srqCfg is a new SRQ configuration, deleted after the probe.
func srqCfg() *rpma.SRQCfg {
	var c *rpma.SRQCfg
	must("srq cfg", rpma.SRQCfgNew(&c))
	onExit(func() error { return rpmaDelete(&c, rpma.SRQCfgDelete) })
	return c
}

// rsrqInto creates an SRQ with an rcq of 16 on rpeer as *s, deleted after the probe unless
// the probe did.
func rsrqInto(s **rpma.SRQ) error {
	c := srqCfg()
	must("srq cfg", c.SetRCQSize(16))
	var local *rpma.SRQ
	err := rpeer().SRQNew(c, &local)
	*s = local
	if err == nil {
		onExit(func() error { return rpmaDelete(s, rpma.SRQDelete) })
	}
	return err
}

func rsrq() *rpma.SRQ {
	if fxRSRQ == nil {
		must("rpma srq", rsrqInto(&fxRSRQ))
	}
	return fxRSRQ
}

// rcq is rsrq's receive CQ.
func rcq() *rpma.CQ {
	var q *rpma.CQ
	must("rcq", rsrq().GetRCQ(&q))
	if q == nil {
		must("rcq", fmt.Errorf("no rcq"))
	}
	return q
}

// rlisten listens on node A's address at port as *ep, shut down after the probe unless the
// probe did.
func rlisten(ep **rpma.EP, port string) error {
	var local *rpma.EP
	err := rpeer().EPListen(cstr(os.Getenv("RXE_A_IP")), cstr(port), &local)
	*ep = local
	if err == nil {
		onExit(func() error { return rpmaDelete(ep, rpma.EPShutdown) })
	}
	return err
}

// rpmaDelete deletes *p with librpma's delete(&p) unless a probe did (it sets *p to NULL).
// The handle passes through a local variable: cgo's pointer check scans from a pointer into
// the data segment to its end, so the address of a fixture (a global) must not reach C.
func rpmaDelete[T any](p **T, del func(**T) error) error {
	if *p == nil {
		return nil
	}
	local := *p
	err := del(&local)
	*p = local
	return err
}

// The librpma connection fixtures, as in the C harness (rpeers, rreq, rsreq, rconn,
// rconnsh): the client's peer (on the device librpma finds for node B's address as a remote
// one) and a peer on node B's device, a listener on node B, 4 KiB registered on each side,
// node B's region as a remote one, and a connection in its stages.
var (
	fxRPeerA       *rpma.Peer
	fxRPeerB       *rpma.Peer
	fxREp          *rpma.EP
	fxRCfg         *rpma.ConnCfg
	fxRMRA, fxRMRB *rpma.MRLocal
	fxRRemB        *rpma.MRRemote
	fxRReq         *rpma.ConnReq // node A's outgoing request
	fxRSReq        *rpma.ConnReq // the request node B took
	fxRCli         *rpma.Conn    // node A's side
	fxRSrv         *rpma.Conn    // node B's side
	fxRShared      bool          // the CQs share one completion channel
)

// rpmaUsageAll is every usage but a persistent flush.
const rpmaUsageAll = rpma.MRUsageReadSrc | rpma.MRUsageReadDst | rpma.MRUsageWriteSrc | rpma.MRUsageWriteDst |
	rpma.MRUsageSend | rpma.MRUsageRecv | rpma.MRUsageFlushTypeVisibility

// rmrOn registers 4 KiB of mmap'd memory on p for every usage, deregistered after the probe.
func rmrOn(p *rpma.Peer) *rpma.MRLocal {
	b := cmem(4096)
	var m *rpma.MRLocal
	must("rpma mr", p.MRReg(unsafe.Pointer(&b[0]), 4096, rpmaUsageAll, &m))
	onExit(func() error { return rpmaDelete(&m, rpma.MRDereg) })
	return m
}

// rpeerOn creates the peer *p on the device librpma finds for node B's address (as a local
// or a remote one), deleted after the probe.
func rpeerOn(p **rpma.Peer, t rpma.UtilIBVContextType) *rpma.Peer {
	var ic *ibv.Context
	must("rpma ctx", rpma.UtilsGetIBVContext(cstr(os.Getenv("RXE_B_IP")), t, &ic))
	var local *rpma.Peer
	must("rpma peer", rpma.PeerNew(ic, &local))
	*p = local
	onExit(func() error { return rpmaDelete(p, rpma.PeerDelete) })
	return local
}

// rpeers sets up both peers, the configuration, the listener on node B and the regions.
func rpeers() {
	if fxREp != nil {
		return
	}
	a := rpeerOn(&fxRPeerA, rpma.UtilIBVContextTypeRemote)
	b := rpeerOn(&fxRPeerB, rpma.UtilIBVContextTypeLocal)
	var c *rpma.ConnCfg
	must("rpma cfg", rpma.ConnCfgNew(&c))
	fxRCfg = c
	onExit(func() error { return rpmaDelete(&fxRCfg, rpma.ConnCfgDelete) })
	must("rpma cfg", c.SetTimeout(5000))
	must("rpma cfg", c.SetComplChannel(fxRShared))
	var ep *rpma.EP
	must("rpma listen", b.EPListen(cstr(os.Getenv("RXE_B_IP")), cstr("7495"), &ep))
	fxREp = ep
	onExit(func() error { return rpmaDelete(&fxREp, rpma.EPShutdown) })
	fxRMRA, fxRMRB = rmrOn(a), rmrOn(b)
	var n uint64
	must("rpma remote", fxRMRB.GetDescriptorSize(&n))
	d := make([]byte, n)
	must("rpma remote", fxRMRB.GetDescriptor(unsafe.Pointer(&d[0])))
	var r *rpma.MRRemote
	must("rpma remote", rpma.MRRemoteFromDescriptor(unsafe.Pointer(&d[0]), n, &r))
	fxRRemB = r
	onExit(func() error { return rpmaDelete(&fxRRemB, rpma.MRRemoteDelete) })
}

// rreq is node A's outgoing request to the listener.
func rreq() *rpma.ConnReq {
	if fxRReq == nil {
		rpeers()
		var r *rpma.ConnReq
		must("rpma req", fxRPeerA.ConnReqNew(cstr(os.Getenv("RXE_B_IP")), cstr("7495"), fxRCfg, &r))
		fxRReq = r
		onExit(func() error { return rpmaDelete(&fxRReq, rpma.ConnReqDelete) })
	}
	return fxRReq
}

// rconnectReq connects *req (consumed) as a connection kept in *conn, deleted after the probe
// unless the probe did. (Handles pass through locals: see rpmaDelete.)
func rconnectReq(req **rpma.ConnReq, pdata *rpma.ConnPrivateData, conn **rpma.Conn) error {
	r := *req
	var c *rpma.Conn
	err := rpma.ConnReqConnect(&r, pdata, &c)
	*req = r
	if err == nil {
		*conn = c
		onExit(func() error { return rpmaDelete(conn, rpma.ConnDelete) })
	}
	return err
}

// rsreq is the request node B took after rreq was connected (as fxRCli) with the private
// data "doccheck".
func rsreq() *rpma.ConnReq {
	if fxRSReq == nil {
		rreq()
		pd := cmem(9)
		copy(pd, "doccheck\x00")
		must("rpma connect", rconnectReq(&fxRReq, &rpma.ConnPrivateData{Ptr: unsafe.Pointer(&pd[0]), Len: 9}, &fxRCli))
		var s *rpma.ConnReq
		must("rpma request", fxREp.NextConnReq(fxRCfg, &s))
		fxRSReq = s
		onExit(func() error { return rpmaDelete(&fxRSReq, rpma.ConnReqDelete) })
	}
	return fxRSReq
}

// rconn establishes the connection: rsreq accepted as fxRSrv, both sides saw
// RPMA_CONN_ESTABLISHED.
func rconn() {
	if fxRSrv != nil {
		return
	}
	rsreq()
	must("rpma accept", rconnectReq(&fxRSReq, nil, &fxRSrv))
	// The client first: taking its connect response completes the connection.
	for _, c := range []*rpma.Conn{fxRCli, fxRSrv} {
		var e rpma.ConnEvent
		must("rpma established", c.NextEvent(&e))
		if e != rpma.ConnEventEstablished {
			must("rpma established", fmt.Errorf("event %v", e))
		}
	}
}

// rcli and rsrv are the established connection's sides; rcliSh is rcli with the shared
// completion channel (call it before any other rpma fixture).
func rcli() *rpma.Conn { rconn(); return fxRCli }
func rsrv() *rpma.Conn { rconn(); return fxRSrv }
func rcliSh() *rpma.Conn {
	fxRShared = true
	return rcli()
}

// rcqOf is conn's main CQ, its fd set non-blocking when nonblock.
func rcqOf(conn *rpma.Conn, nonblock bool) *rpma.CQ {
	var q *rpma.CQ
	must("rpma cq", conn.GetCQ(&q))
	if q == nil {
		must("rpma cq", fmt.Errorf("no cq"))
	}
	if nonblock {
		var fd int32
		must("rpma cq fd", q.GetFD(&fd))
		must("rpma cq fd", unix.SetNonblock(int(fd), true))
	}
	return q
}

// rsend posts a receive on rsrv and a send from rcli that completes on rcli's CQ.
func rsend() {
	must("rpma recv", rsrv().Recv(fxRMRB, 0, 64, nil))
	must("rpma send", rcli().Send(fxRMRA, 0, 8, rpma.FCompletionAlways, nil))
	time.Sleep(300 * time.Millisecond)
}
