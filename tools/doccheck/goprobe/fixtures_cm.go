//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

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
		var id *rdmacm.CMID
		must("cmid", ech().CreateID(&id, nil, rdmacm.PsTCP))
		fxCMID = id
		onExit(func() error { return closeIf(&fxCMID, (*rdmacm.CMID).DestroyID) })
	}
	return fxCMID
}

func rcmid() *rdmacm.CMID {
	if fxRCMID == nil {
		var id *rdmacm.CMID
		must("rcmid", ech().CreateID(&id, nil, rdmacm.PsTCP))
		fxRCMID = id
		onExit(func() error { return closeIf(&fxRCMID, (*rdmacm.CMID).DestroyID) })
		must("rcmid addr", id.ResolveAddr(sockaddr("RXE_A_IP", 0), sockaddr("RXE_B_IP", 7471), 2000))
		must("rcmid addr", cmWait(ech(), rdmacm.CMEventAddrResolved))
		must("rcmid route", id.ResolveRoute(2000))
		must("rcmid route", cmWait(ech(), rdmacm.CMEventRouteResolved))
	}
	return fxRCMID
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

// ipv4 is a struct sockaddr_in for ip and port.
func ipv4(ip [4]byte, port uint16) *rdmacm.Sockaddr {
	sa := &unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip}
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], port)
	return (*rdmacm.Sockaddr)(unsafe.Pointer(sa))
}

// cmWait waits (up to 10 s: events can take seconds under TCG) for the next event on c and
// checks that it is want.
func cmWait(c *rdmacm.EventChannel, want rdmacm.CMEventType) error {
	fds := []unix.PollFd{{Fd: c.FD, Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 10000); n != 1 {
		return fmt.Errorf("no rdmacm event within 10 s (poll: %v)", err)
	}
	var e *rdmacm.CMEvent
	if err := c.GetCMEvent(&e); err != nil {
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
