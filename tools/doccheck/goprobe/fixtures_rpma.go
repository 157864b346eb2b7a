//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"errors"
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
	ic, err := rpma.UtilsGetIBVContext(os.Getenv("RXE_A_IP"), rpma.UtilIBVContextTypeLocal)
	must("rpma ctx", err)
	return ic
}

func rpeer() *rpma.Peer {
	if fxRPeer == nil {
		p, err := rpma.PeerNew(rctx())
		must("rpma peer", err)
		fxRPeer = p
		onExit(func() error { return rpmaDelete(&fxRPeer, (*rpma.Peer).Delete) })
	}
	return fxRPeer
}

// rmrInto registers 4 KiB of mmap'd memory with usage on rpeer as *m, deregistered after
// the probe unless the probe did.
func rmrInto(m **rpma.MRLocal, usage int32) error {
	p := rpeer()
	b := cmem(4096)
	local, err := p.MRReg(b, usage)
	*m = local
	if err == nil {
		onExit(func() error { return rpmaDelete(m, (*rpma.MRLocal).Dereg) })
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
	n, err := rmr().GetDescriptorSize()
	must("descriptor size", err)
	d := make([]byte, n)
	must("descriptor", rmr().GetDescriptor(unsafe.Pointer(&d[0])))
	return d
}

func rremote() *rpma.MRRemote {
	if fxRRemote == nil {
		d := rdesc()
		r, err := rpma.MRRemoteFromDescriptor(d)
		must("rpma remote", err)
		fxRRemote = r
		onExit(func() error { return rpmaDelete(&fxRRemote, (*rpma.MRRemote).Delete) })
	}
	return fxRRemote
}

// connCfg is a new connection configuration, deleted after the probe.
func connCfg() *rpma.ConnCfg {
	c, err := rpma.ConnCfgNew()
	must("conn cfg", err)
	onExit(func() error { return rpmaDelete(&c, (*rpma.ConnCfg).Delete) })
	return c
}

// peerCfg is a new peer configuration, deleted after the probe.
func peerCfg() *rpma.PeerCfg {
	c, err := rpma.PeerCfgNew()
	must("peer cfg", err)
	onExit(func() error { return rpmaDelete(&c, (*rpma.PeerCfg).Delete) })
	return c
}

// srqCfg is a new SRQ configuration, deleted after the probe.
func srqCfg() *rpma.SRQCfg {
	c, err := rpma.SRQCfgNew()
	must("srq cfg", err)
	onExit(func() error { return rpmaDelete(&c, (*rpma.SRQCfg).Delete) })
	return c
}

// rsrqInto creates an SRQ with an rcq of 16 on rpeer as *s, deleted after the probe unless
// the probe did.
func rsrqInto(s **rpma.SRQ) error {
	c := srqCfg()
	must("srq cfg", c.SetRCQSize(16))
	local, err := rpeer().SRQNew(c)
	*s = local
	if err == nil {
		onExit(func() error { return rpmaDelete(s, (*rpma.SRQ).Delete) })
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
	q, err := rsrq().GetRCQ()
	must("rcq", err)
	if q == nil {
		must("rcq", fmt.Errorf("no rcq"))
	}
	return q
}

// rlisten listens on node A's address at port as *ep, shut down after the probe unless the
// probe did.
func rlisten(ep **rpma.EP, port string) error {
	local, err := rpeer().EPListen(os.Getenv("RXE_A_IP"), port)
	*ep = local
	if err == nil {
		onExit(func() error { return rpmaDelete(ep, (*rpma.EP).Shutdown) })
	}
	return err
}

// rpmaDelete deletes *p with librpma's delete (a method taking the object by address)
// unless a probe did, and clears *p: librpma releases the object even when the call fails.
func rpmaDelete[T any](p **T, del func(*T) error) error {
	if *p == nil {
		return nil
	}
	err := del(*p)
	*p = nil
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
	fxRBufA        []byte // the memory of fxRMRA
	fxRBufB        []byte // the memory of fxRMRB
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
	m, _ := rmrBufOn(p)
	return m
}

// rmrBufOn is rmrOn that also returns the registered memory.
func rmrBufOn(p *rpma.Peer) (*rpma.MRLocal, []byte) {
	b := cmem(4096)
	m, err := p.MRReg(b, rpmaUsageAll)
	must("rpma mr", err)
	onExit(func() error { return rpmaDelete(&m, (*rpma.MRLocal).Dereg) })
	return m, b
}

// anyOp stands for any opcode in rpmaComp.
const anyOp = ibv.WCOpcode(0xff)

// rpmaComp waits (up to 5 s) for one completion on conn's main CQ, as the C harness's
// rpma_comp_ok, and checks its status and opcode (any opcode where op is anyOp).
func rpmaComp(conn *rpma.Conn, op ibv.WCOpcode) error {
	q := rcqOf(conn, false)
	wc := make([]ibv.WC, 1)
	for i := 0; i < 250; i++ {
		n, err := q.GetWC(wc)
		switch {
		case err == nil && n == 1:
			if wc[0].Status != ibv.WCStatusSuccess || (op != anyOp && wc[0].Opcode != op) {
				return fmt.Errorf("completion: status %s, opcode %d (want %d)", ibv.WCStatusStr(wc[0].Status), wc[0].Opcode, op)
			}
			return nil
		case err != nil && !errors.Is(err, rpma.ErrNoCompletion):
			return fmt.Errorf("rpma_cq_get_wc: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no completion within 5 s")
}

// rpeerOn creates the peer *p on the device librpma finds for node B's address (as a local
// or a remote one), deleted after the probe.
func rpeerOn(p **rpma.Peer, t rpma.UtilIBVContextType) *rpma.Peer {
	ic, err := rpma.UtilsGetIBVContext(os.Getenv("RXE_B_IP"), t)
	must("rpma ctx", err)
	local, err := rpma.PeerNew(ic)
	must("rpma peer", err)
	*p = local
	onExit(func() error { return rpmaDelete(p, (*rpma.Peer).Delete) })
	return local
}

// rpeers sets up both peers, the configuration, the listener on node B and the regions.
func rpeers() {
	if fxREp != nil {
		return
	}
	a := rpeerOn(&fxRPeerA, rpma.UtilIBVContextTypeRemote)
	b := rpeerOn(&fxRPeerB, rpma.UtilIBVContextTypeLocal)
	c, err := rpma.ConnCfgNew()
	must("rpma cfg", err)
	fxRCfg = c
	onExit(func() error { return rpmaDelete(&fxRCfg, (*rpma.ConnCfg).Delete) })
	must("rpma cfg", c.SetTimeout(5*time.Second))
	must("rpma cfg", c.SetComplChannel(fxRShared))
	ep, err := b.EPListen(os.Getenv("RXE_B_IP"), "7495")
	must("rpma listen", err)
	fxREp = ep
	onExit(func() error { return rpmaDelete(&fxREp, (*rpma.EP).Shutdown) })
	fxRMRA, fxRBufA = rmrBufOn(a)
	fxRMRB, fxRBufB = rmrBufOn(b)
	n, err := fxRMRB.GetDescriptorSize()
	must("rpma remote", err)
	d := make([]byte, n)
	must("rpma remote", fxRMRB.GetDescriptor(unsafe.Pointer(&d[0])))
	r, err := rpma.MRRemoteFromDescriptor(d)
	must("rpma remote", err)
	fxRRemB = r
	onExit(func() error { return rpmaDelete(&fxRRemB, (*rpma.MRRemote).Delete) })
}

// rreq is node A's outgoing request to the listener.
func rreq() *rpma.ConnReq {
	if fxRReq == nil {
		rpeers()
		r, err := fxRPeerA.ConnReqNew(os.Getenv("RXE_B_IP"), "7495", fxRCfg)
		must("rpma req", err)
		fxRReq = r
		onExit(func() error { return rpmaDelete(&fxRReq, (*rpma.ConnReq).Delete) })
	}
	return fxRReq
}

// rconnectReq connects *req (consumed, success or not: *req is cleared) as a connection kept
// in *conn, deleted after the probe unless the probe did.
func rconnectReq(req **rpma.ConnReq, pdata *rpma.ConnPrivateData, conn **rpma.Conn) error {
	c, err := (*req).Connect(pdata)
	*req = nil
	if err == nil {
		*conn = c
		onExit(func() error { return rpmaDelete(conn, (*rpma.Conn).Delete) })
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
		s, err := fxREp.NextConnReq(fxRCfg)
		must("rpma request", err)
		fxRSReq = s
		onExit(func() error { return rpmaDelete(&fxRSReq, (*rpma.ConnReq).Delete) })
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
		e, err := c.NextEvent()
		must("rpma established", err)
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
	q, err := conn.GetCQ()
	must("rpma cq", err)
	if q == nil {
		must("rpma cq", fmt.Errorf("no cq"))
	}
	if nonblock {
		fd, err := q.GetFD()
		must("rpma cq fd", err)
		must("rpma cq fd", unix.SetNonblock(fd, true))
	}
	return q
}

// rsend posts a receive on rsrv and a send from rcli that completes on rcli's CQ.
func rsend() {
	must("rpma recv", rsrv().Recv(fxRMRB, 0, 64, nil))
	must("rpma send", rcli().Send(fxRMRA, 0, 8, rpma.FCompletionAlways, nil))
	time.Sleep(300 * time.Millisecond)
}
