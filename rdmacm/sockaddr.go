package rdmacm

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The socket addresses of librdmacm are the C struct sockaddr family, opaque
// bytes here (zforeign_*.go). The conversions below read and write them
// with the layouts Linux defines: sa_family in the host's byte order, then
// for AF_INET the port and the IPv4 address, for AF_INET6 the port, the
// flow label, the IPv6 address and the scope, port and addresses in network
// byte order.

// NewSockaddr returns ap as a C socket address (AF_INET for an IPv4
// address, AF_INET6 else, with the zone as its scope: a number or an
// interface name) in Go
// memory, for the calls that read one ([CMID.BindAddr], [CMID.ResolveAddr],
// [CMID.JoinMulticast]): they copy it, so it need not outlive the call.
func NewSockaddr(ap netip.AddrPort) *Sockaddr {
	st := new(SockaddrStorage)
	b := unsafe.Slice((*byte)(unsafe.Pointer(st)), unsafe.Sizeof(*st))
	a := ap.Addr()
	binary.BigEndian.PutUint16(b[2:], ap.Port())
	if a.Is4() {
		binary.NativeEndian.PutUint16(b, unix.AF_INET)
		v := a.As4()
		copy(b[4:8], v[:])
	} else {
		binary.NativeEndian.PutUint16(b, unix.AF_INET6)
		v := a.As16()
		copy(b[8:24], v[:])
		var scope uint32
		if z := a.Zone(); z != "" {
			if _, err := fmt.Sscanf(z, "%d", &scope); err != nil {
				if ifi, err := net.InterfaceByName(z); err == nil {
					scope = uint32(ifi.Index)
				}
			}
		}
		binary.NativeEndian.PutUint32(b[24:], scope)
	}
	return (*Sockaddr)(unsafe.Pointer(st))
}

// Family is the address family (sa_family): unix.AF_INET, unix.AF_INET6,
// unix.AF_IB, or 0 for an unset address.
func (s *Sockaddr) Family() uint16 {
	return binary.NativeEndian.Uint16(unsafe.Slice((*byte)(unsafe.Pointer(s)), 2))
}

// AddrPort is the IP address and port of s; ok is false for a family other
// than AF_INET and AF_INET6 (an unset address, AF_IB). s must point to as
// many bytes as its family uses (a sockaddr_in6 for AF_INET6), as the
// addresses librdmacm hands out do.
func (s *Sockaddr) AddrPort() (ap netip.AddrPort, ok bool) {
	switch s.Family() {
	case unix.AF_INET:
		b := unsafe.Slice((*byte)(unsafe.Pointer(s)), 16)
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:])), true
	case unix.AF_INET6:
		b := unsafe.Slice((*byte)(unsafe.Pointer(s)), 28)
		a := netip.AddrFrom16([16]byte(b[8:24]))
		if scope := binary.NativeEndian.Uint32(b[24:]); scope != 0 {
			a = a.WithZone(fmt.Sprint(scope))
		}
		return netip.AddrPortFrom(a, binary.BigEndian.Uint16(b[2:])), true
	}
	return netip.AddrPort{}, false
}

// String is the address as netip.AddrPort writes it, or the family's number
// for a family without an IP address.
func (s *Sockaddr) String() string {
	if ap, ok := s.AddrPort(); ok {
		return ap.String()
	}
	return fmt.Sprintf("sockaddr(family %d)", s.Family())
}
