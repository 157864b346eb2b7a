package main

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/goverbs/goverbs/rdma"
)

// addressLine is ibv_rc_pingpong's line for an endpoint; label is
// "local address: " or "remote address:".
func addressLine(label string, e rdma.Endpoint) string {
	return fmt.Sprintf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s", label, e.LID, e.QPN, e.PSN, gidText(*e.GID.Raw()))
}

// gidText formats a GID as the C library's inet_ntop(AF_INET6) does:
// RFC 5952 text (fe80::1, ::ffff:192.0.2.1), and ::a.b.c.d where only the
// last 32 bits, not the last 16, are non-zero.
func gidText(raw [16]byte) string {
	var zero [12]byte
	if [12]byte(raw[:12]) == zero && (raw[12] != 0 || raw[13] != 0) {
		return "::" + netip.AddrFrom4([4]byte(raw[12:])).String()
	}
	return netip.AddrFrom16(raw).String()
}

// summary is the report after iters exchanges of size-byte messages each
// way in elapsed: bytes moved both ways with the rate in Mbit/s, and the
// time per iteration.
func summary(size, iters int, elapsed time.Duration) string {
	usec := float64(elapsed.Nanoseconds()) / 1e3
	bytes := int64(size) * int64(iters) * 2
	return fmt.Sprintf("%d bytes in %.2f seconds = %.2f Mbit/sec\n%d iters in %.2f seconds = %.2f usec/iter\n",
		bytes, usec/1e6, float64(bytes)*8/usec, iters, usec/1e6, usec/float64(iters))
}
