//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdmacm"
)

// conn: synchronous rdmacm endpoints, as in the C harness: lid listens on node B, cli (node
// A side) is connected to srv (the accepted id); both have an RC QP (4 WRs, 2 SGEs) and
// cmr/smr registered on cbuf/sbuf (4 KiB each, mmap'd) with RegMsgs.
var (
	fxLid, fxCli, fxSrv *rdmacm.CMID
	fxCMR, fxSMR        *ibv.MR
	fxCBuf, fxSBuf      []byte
)

// epQPAttr is the QP of every endpoint.
func epQPAttr() *ibv.QPInitAttr {
	return &ibv.QPInitAttr{QPType: ibv.QPTypeRC, SQSigAll: 1,
		Cap: ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 2, MaxRecvSGE: 2}}
}

// addrinfo resolves the address in env and service with flags (0 or RAI_PASSIVE); the
// list is freed after the probe.
func addrinfo(env, service string, flags int32) *rdmacm.Addrinfo {
	h := rdmacm.Addrinfo{AiFlags: flags, AiPortSpace: int32(rdmacm.PortSpaceTCP)}
	ai, err := rdmacm.Getaddrinfo(os.Getenv(env), service, &h)
	must("getaddrinfo", err)
	onExit(func() error { ai.Freeaddrinfo(); return nil })
	return ai
}

// endpoint creates an endpoint as *id, destroyed after the probe unless cleared.
func endpoint(id **rdmacm.CMID, ai *rdmacm.Addrinfo, qp *ibv.QPInitAttr) error {
	local, err := rdmacm.CreateEP(ai, nil, qp)
	*id = local
	if err == nil {
		destroyEPAtExit(id)
	}
	return err
}

// destroyEPAtExit destroys the endpoint *id after the probe, unless *id is cleared by then.
func destroyEPAtExit(id **rdmacm.CMID) {
	onExit(func() error { return closeIf(id, func(c *rdmacm.CMID) error { c.DestroyEP(); return nil }) })
}

// acceptNext takes the next connection request on lid and rejects it, or accepts it as
// srv (destroyed after the probe).
func acceptNext(reject bool) error {
	id, err := fxLid.GetRequest()
	if err != nil {
		return err
	}
	if reject {
		err := id.Reject(nil)
		id.DestroyEP()
		return err
	}
	fxSrv = id
	destroyEPAtExit(&fxSrv)
	return id.Accept(nil)
}

// connSetup creates the listener and the unconnected client endpoint.
func connSetup() {
	if fxLid != nil {
		return
	}
	must("listener", endpoint(&fxLid, addrinfo("RXE_B_IP", "7480", rdmacm.RaiPassive), epQPAttr()))
	must("listen", fxLid.Listen(2))
	must("client", endpoint(&fxCli, addrinfo("RXE_B_IP", "7480", 0), epQPAttr()))
}

// connRun connects cli while a goroutine takes the request on lid and accepts (or rejects)
// it; it returns the error of the call named by which ("connect", or the listener's).
func connRun(reject bool, which string) error {
	connSetup()
	done := make(chan error, 1)
	go func() { done <- acceptNext(reject) }()
	cerr := fxCli.Connect(nil)
	aerr := <-done
	if which == "connect" {
		return cerr
	}
	return aerr
}

// connected sets up the connected pair with its registered buffers.
func connected() {
	if fxSrv != nil {
		return
	}
	must("conn", connRun(false, "connect"))
	if fxSrv == nil {
		must("conn", os.ErrNotExist)
	}
	fxCBuf, fxSBuf = cmem(4096), cmem(4096)
	var err error
	fxCMR, err = fxCli.RegMsgs(fxCBuf)
	must("conn mrs", err)
	onExit(func() error { return closeIf(&fxCMR, rdmacm.DeregMR) })
	fxSMR, err = fxSrv.RegMsgs(fxSBuf)
	must("conn mrs", err)
	onExit(func() error { return closeIf(&fxSMR, rdmacm.DeregMR) })
}

// cli, srv: the connected endpoints.
func cli() *rdmacm.CMID { connected(); return fxCli }
func srv() *rdmacm.CMID { connected(); return fxSrv }

// cptr and sptr are addresses in cbuf and sbuf.
func cptr(off int) unsafe.Pointer { connected(); return unsafe.Pointer(&fxCBuf[off]) }
func sptr(off int) unsafe.Pointer { connected(); return unsafe.Pointer(&fxSBuf[off]) }

// cbuf and sbuf are n bytes at off of the registered buffers of cli and srv.
func cbuf(off, n int) []byte { connected(); return fxCBuf[off : off+n] }
func sbuf(off, n int) []byte { connected(); return fxSBuf[off : off+n] }

// csges is n entries of 8 bytes each, consecutive in cbuf (Go memory: the rdma_post_*v
// wrappers copy the list into C memory).
func csges(n int, length uint32) []ibv.SGE {
	connected()
	s := make([]ibv.SGE, n)
	for i := range s {
		s[i] = ibv.SGE{Addr: uint64(uintptr(cptr(i * int(length)))), Length: length, LKey: fxCMR.LKey}
	}
	return s
}

// qpless: an id on ech, address and route resolved from node A to the conn listener, that
// has no QP, as in the C harness: it connected with the number of an RC QP on its PD
// (outside rdmacm) and took its RDMA_CM_EVENT_CONNECT_RESPONSE, while a goroutine accepts on
// the listener; qplessAccepted delivers the accept's error once the connection is
// established.
var (
	fxQPLess       *rdmacm.CMID
	qplessAccepted chan error
)

func qpless() *rdmacm.CMID {
	if fxQPLess != nil {
		return fxQPLess
	}
	connSetup()
	id := newCMID("qpless", &fxQPLess, rdmacm.PortSpaceTCP)
	resolveToB("qpless", id, 7480)
	c, err := id.Verbs.CreateCQ(4, nil, nil, 0)
	must("qpless cq", err)
	onExit(c.Destroy)
	q, err := id.PD.CreateQP(rcAttr(c, c))
	must("qpless qp", err)
	onExit(q.Destroy)
	qplessAccepted = make(chan error, 1)
	go func() { qplessAccepted <- acceptNext(false) }()
	must("qpless connect", id.Connect(&rdmacm.ConnParam{QPNum: q.QPNum, ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7}))
	must("qpless connect", cmWait(ech(), rdmacm.CMEventTypeConnectResponse))
	return id
}

// reqCall is the C harness's req_call: cli connects while a goroutine takes the request on
// lid and calls with on it; when with fails, the request is rejected plainly, so that the
// connect returns, and destroyed. It returns with's error.
func reqCall(with func(id *rdmacm.CMID) error) error {
	connSetup()
	done := make(chan error, 1)
	go func() {
		id, err := fxLid.GetRequest()
		if err != nil {
			done <- err
			return
		}
		if err = with(id); err != nil {
			id.Reject(nil)
		}
		id.DestroyEP()
		done <- err
	}()
	fxCli.Connect(nil)
	return <-done
}

// noFDs runs f with the process's open-file limit at 0 (no open succeeds), then restores it.
func noFDs(f func() error) error {
	var saved unix.Rlimit
	must("getrlimit", unix.Getrlimit(unix.RLIMIT_NOFILE, &saved))
	must("setrlimit", unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 0, Max: saved.Max}))
	err := f()
	must("setrlimit", unix.Setrlimit(unix.RLIMIT_NOFILE, &saved))
	return err
}

// nonblock sets O_NONBLOCK on fd until the probe ends.
func nonblock[T integer](fd T) {
	must("nonblock", unix.SetNonblock(int(fd), true))
	onExit(func() error { return unix.SetNonblock(int(fd), false) })
}
