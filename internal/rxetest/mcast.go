//go:build linux

package rxetest

import (
	"net"
	"net/netip"
	"testing"

	"golang.org/x/sys/unix"
)

// JoinMulticast joins netdev to the IPv4 multicast group (IP_ADD_MEMBERSHIP on a UDP
// socket held until the test ends), failing the test when it cannot. On RoCE v2 the
// multicast packets of a group attached with ibv_attach_mcast are IP multicast, which the
// kernel delivers only to an interface that joined the group: rdma_join_multicast joins it
// in the kernel; a test that attaches with verbs alone joins it here (rxe, Linux 6.1,
// adds the group's MAC address to the netdev but does not join the IP group).
func JoinMulticast(t testing.TB, netdev, group string) {
	t.Helper()
	g, err := netip.ParseAddr(group)
	if err != nil || !g.Is4() || !g.IsMulticast() {
		t.Fatalf("JoinMulticast: %q is not an IPv4 multicast group", group)
	}
	ifi, err := net.InterfaceByName(netdev)
	if err != nil {
		t.Fatalf("JoinMulticast: %v", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("JoinMulticast: socket: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	mreq := &unix.IPMreqn{Multiaddr: g.As4(), Ifindex: int32(ifi.Index)}
	if err := unix.SetsockoptIPMreqn(fd, unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP, mreq); err != nil {
		t.Fatalf("JoinMulticast %s on %s: %v", group, netdev, err)
	}
}
