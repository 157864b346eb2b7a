//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"fmt"
	"net/netip"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdmacm"
)

// The librdmacm fixtures (see fixtures.go).
var (
	fxEch   *rdmacm.EventChannel
	fxCMID  *rdmacm.CMID // an RDMA_PS_TCP id on ech
	fxRCMID *rdmacm.CMID // address and route resolved from node A to node B
)

func ech() *rdmacm.EventChannel {
	if fxEch == nil {
		c, err := rdmacm.CreateEventChannel()
		must("ech", err)
		fxEch = c
		onExit(func() error {
			return closeIf(&fxEch, func(c *rdmacm.EventChannel) error { c.Destroy(); return nil })
		})
	}
	return fxEch
}

func cmid() *rdmacm.CMID {
	if fxCMID == nil {
		newCMID("cmid", &fxCMID, rdmacm.PortSpaceTCP)
	}
	return fxCMID
}

func rcmid() *rdmacm.CMID {
	if fxRCMID == nil {
		resolveToB("rcmid", newCMID("rcmid", &fxRCMID, rdmacm.PortSpaceTCP), 7471)
	}
	return fxRCMID
}

// newCMID creates an id of port space ps on ech as *fx, destroyed after the probe.
func newCMID(name string, fx **rdmacm.CMID, ps rdmacm.PortSpace) *rdmacm.CMID {
	id, err := ech().CreateID(nil, ps)
	must(name, err)
	*fx = id
	onExit(func() error { return closeIf(fx, (*rdmacm.CMID).DestroyID) })
	return id
}

// resolveToB resolves id's address and route from node A to node B's port, waiting for
// each event on ech.
func resolveToB(name string, id *rdmacm.CMID, port uint16) {
	must(name+" addr", id.ResolveAddr(sockaddr("RXE_A_IP", 0), sockaddr("RXE_B_IP", port), 2*time.Second))
	must(name+" addr", cmWait(ech(), rdmacm.CMEventTypeAddrResolved))
	must(name+" route", id.ResolveRoute(2*time.Second))
	must(name+" route", cmWait(ech(), rdmacm.CMEventTypeRouteResolved))
}

// sockaddr is the IPv4 address in the environment variable env, with port, as a struct
// sockaddr_in (Go memory without pointers, for the duration of a call).
func sockaddr(env string, port uint16) *rdmacm.Sockaddr {
	a, err := netip.ParseAddr(os.Getenv(env))
	if err != nil || !a.Is4() {
		panic(fixtureError{env, fmt.Errorf("not an IPv4 address: %q", os.Getenv(env))})
	}
	return ipv4(a.As4(), port)
}

// ipv4 is a struct sockaddr_in for ip and port (rdmacm.NewSockaddr).
func ipv4(ip [4]byte, port uint16) *rdmacm.Sockaddr {
	return rdmacm.NewSockaddr(netip.AddrPortFrom(netip.AddrFrom4(ip), port))
}

// cmWait waits (up to 10 s: events can take seconds under TCG) for the next event on c and
// checks that it is want.
func cmWait(c *rdmacm.EventChannel, want rdmacm.CMEventType) error {
	fds := []unix.PollFd{{Fd: c.FD, Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 10000); n != 1 {
		return fmt.Errorf("no rdmacm event within 10 s (poll: %v)", err)
	}
	e, err := c.GetCMEvent()
	if err != nil {
		return err
	}
	got := e.Event
	if err := e.Ack(); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("rdmacm event %s, want %s", rdmacm.EventStr(got), rdmacm.EventStr(want))
	}
	return nil
}

// udep: a synchronous UD endpoint of node A, as in the C harness: address and route
// resolved towards node B, its QP in RTS; fxUDMR registers fxUDBuf (256 bytes, mmap'd) with
// RegMsgs; fxUDAH addresses node A's own GID (index 1).
var (
	fxUDID  *rdmacm.CMID
	fxUDMR  *ibv.MR
	fxUDAH  *ibv.AH
	fxUDBuf []byte
)

func udep() *rdmacm.CMID {
	if fxUDID != nil {
		return fxUDID
	}
	h := rdmacm.Addrinfo{AiPortSpace: int32(rdmacm.PortSpaceUDP), AiQPType: int32(ibv.QPTypeUD)}
	ai, err := rdmacm.Getaddrinfo(os.Getenv("RXE_B_IP"), "7477", &h)
	must("ud getaddrinfo", err)
	onExit(func() error { ai.Freeaddrinfo(); return nil })
	must("ud ep", endpoint(&fxUDID, ai, &ibv.QPInitAttr{QPType: ibv.QPTypeUD, SQSigAll: 1,
		Cap: ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}}))
	id := fxUDID
	fxUDBuf = cmem(256)
	m, err := id.RegMsgs(fxUDBuf)
	must("ud mr", err)
	fxUDMR = m
	onExit(func() error { return closeIf(&fxUDMR, rdmacm.DeregMR) })
	a := ibv.AHAttr{IsGlobal: 1, PortNum: id.PortNum, GRH: ibv.GlobalRoute{SGIDIndex: gidIndex(), HopLimit: 1}}
	a.GRH.DGID, err = id.Verbs.QueryGID(id.PortNum, int(gidIndex()))
	must("ud gid", err)
	ah, err := id.PD.CreateAH(&a)
	must("ud ah", err)
	fxUDAH = ah
	onExit(func() error { return closeIf(&fxUDAH, (*ibv.AH).Destroy) })
	return id
}

// udSelf posts a receive (the GRH at fxUDBuf[64:], the data after it) and sends 8 bytes
// to udep's own QP; it waits for both completions and returns the receive's.
func udSelf() *ibv.WC {
	id := udep()
	must("ud recv", id.PostRecv(0, fxUDBuf[64:64+128], fxUDMR))
	must("ud send", id.PostUDSend(0, fxUDBuf[:8], fxUDMR, 0, fxUDAH, id.QP.QPNum))
	if _, err := id.GetSendComp(); err != nil {
		must("ud send comp", err)
	}
	wc, err := id.GetRecvComp()
	if err != nil || wc.Status != ibv.WCStatusSuccess {
		must("ud recv comp", fmt.Errorf("%v, status %v", err, wc.Status))
	}
	return &wc
}

// udGRH is the GRH of the datagram udSelf received.
func udGRH() *ibv.GRH { return (*ibv.GRH)(unsafe.Pointer(&fxUDBuf[64])) }

// mcid: a UDP-port-space id on ech bound to node A's address, for multicast, as in the C
// harness; mcaddr is the group 239.1.2.3.
var fxMCID *rdmacm.CMID

func mcid() *rdmacm.CMID {
	if fxMCID == nil {
		must("mcid bind", newCMID("mcid", &fxMCID, rdmacm.PortSpaceUDP).BindAddr(sockaddr("RXE_A_IP", 0)))
	}
	return fxMCID
}

func mcaddr() *rdmacm.Sockaddr { return ipv4([4]byte{239, 1, 2, 3}, 0) }
