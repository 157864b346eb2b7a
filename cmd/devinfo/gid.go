package main

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// guidStr formats a GUID held in network byte order (__be64, as in
// ibv_device_attr) as four groups of four hex digits: 8079:30ff:fea1:e2e6.
func guidStr(guid uint64) string {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], guid) // the bytes as they lie in memory
	return fmt.Sprintf("%02x%02x:%02x%02x:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7])
}

// gidStr formats a GID as the C library's inet_ntop(AF_INET6) does:
// RFC 5952 text (fe80::8079:30ff:fea1:e2e6, ::ffff:192.0.2.1), and the
// IPv4-compatible form ::a.b.c.d where only the last 32 bits, not the last
// 16, are non-zero.
func gidStr(raw [16]byte) string {
	a := netip.AddrFrom16(raw)
	var zero [12]byte
	if [12]byte(raw[:12]) == zero && (raw[12] != 0 || raw[13] != 0) {
		return "::" + netip.AddrFrom4([4]byte(raw[12:])).String()
	}
	return a.String()
}
