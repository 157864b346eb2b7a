//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"fmt"
	"os"
	"unsafe"

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
	must("rpma ctx", rpma.UtilsGetIBVContext(cstr(os.Getenv("RXE_A_IP")), rpma.UtilIbvContextLocal, &ic))
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
	must("descriptor size", rmr().MRGetDescriptorSize(&n))
	d := make([]byte, n)
	must("descriptor", rmr().MRGetDescriptor(unsafe.Pointer(&d[0])))
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
	must("srq cfg", c.SRQCfgSetRCQSize(16))
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
	must("rcq", rsrq().SRQGetRCQ(&q))
	if q == nil {
		must("rcq", fmt.Errorf("no rcq"))
	}
	return q
}

// rlisten listens on node A's address at port as *ep, shut down after the probe unless the
// probe did.
func rlisten(ep **rpma.Ep, port string) error {
	var local *rpma.Ep
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
