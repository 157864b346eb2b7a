package rxetest

import (
	"os/exec"
	"testing"
)

// SetLink sets netdev "up" or "down" (ip link set), failing the test when it cannot: the
// guest's way to inject a link fault under an RDMA device.
func SetLink(t testing.TB, netdev, state string) {
	t.Helper()
	out, err := exec.Command("ip", "link", "set", netdev, state).CombinedOutput()
	if err != nil {
		t.Fatalf("ip link set %s %s: %v: %s", netdev, state, err, out)
	}
}
