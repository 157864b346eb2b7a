package ibv

import "net/netip"

// A GID is 16 bytes in network byte order: on RoCE an IPv6 address, or an
// IPv4-mapped one (::ffff:a.b.c.d) for RoCE v2 over IPv4; on InfiniBand the
// subnet prefix and the port GUID.

// Addr is the GID as an IPv6 address (IPv4-mapped ones stay mapped; use
// Unmap for the IPv4 address).
func (g GID) Addr() netip.Addr { return netip.AddrFrom16(g.b) }

// String writes the GID as an IPv6 address ("fe80::5054:ff:fe12:3456",
// "::ffff:10.0.0.1").
func (g GID) String() string { return g.Addr().String() }

// GIDFromAddr is the GID of an IP address: an IPv6 address as it is, an
// IPv4 address mapped (::ffff:a.b.c.d), as RoCE v2 builds its GIDs. The
// zone is dropped.
func GIDFromAddr(a netip.Addr) GID {
	var g GID
	g.b = a.As16()
	return g
}

// ParseGID parses a GID written as an IPv6 (or IPv4) address.
func ParseGID(s string) (GID, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return GID{}, err
	}
	return GIDFromAddr(a), nil
}
