//go:build linux

package rxetest

import (
	"os"
	"os/exec"
	"testing"
)

// SetLink sets netdev "up" or "down" (ip link set), failing the test when it cannot: the
// guest's way to inject a link fault under an RDMA device.
func SetLink(t testing.TB, netdev, state string) {
	t.Helper()
	if os.Getenv(DeviceVar) != "" && os.Getenv("RXE_GUEST") != "1" {
		t.Skipf("own-device mode (%s=%s): a link fault needs the bed's guest (it would take %s %s)", DeviceVar, os.Getenv(DeviceVar), netdev, state)
	}
	out, err := exec.Command("ip", "link", "set", netdev, state).CombinedOutput()
	if err != nil {
		t.Fatalf("ip link set %s %s: %v: %s", netdev, state, err, out)
	}
}
