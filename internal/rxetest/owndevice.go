//go:build linux

package rxetest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// DeviceVar names the RDMA devices of the own-device mode: GOVERBS_DEVICE=mlx5_0 (or
// mlx5_0,mlx5_1 for two, connected ports) runs the rxe tests against the machine's own
// devices instead of the bed's guest: `GOVERBS_DEVICE=mlx5_0 go test -tags rxe ./rdma`.
// A test that needs what only the bed has (a second node, link faults) skips, saying so.
const DeviceVar = "GOVERBS_DEVICE"

// own reports whether the environment describes the machine's own devices.
func (e *Env) own() bool { return e.Topology == "own" }

// Own is whether the tests run against the machine's own devices (GOVERBS_DEVICE), not
// the bed's guest.
func (e *Env) Own() bool { return e.own() }

// SkipOwn skips the test in the own-device mode: it needs the bed (what names why).
func (e *Env) SkipOwn(t testing.TB, what string) {
	t.Helper()
	if e.own() {
		t.Skipf("own-device mode (%s=%s): %s needs the bed's guest", DeviceVar, os.Getenv(DeviceVar), what)
	}
}

// SoftRoCE reports whether every node is a software device (rxe, siw: sysfs gives it a
// parent netdev and no bus device), as the bed's are. A test asserting what rxe does, where
// hardware may do otherwise (a DMA-BUF registration rxe refuses), checks it.
func (e *Env) SoftRoCE() bool {
	for _, n := range e.Nodes {
		_, errParent := os.Stat(filepath.Join(sysfs, n.Dev, "parent"))
		_, errDevice := os.Stat(filepath.Join(sysfs, n.Dev, "device"))
		if errParent != nil || errDevice == nil {
			return false
		}
	}
	return true
}

// SkipUnlessSoftRoCE skips a test asserting rxe's behaviour (what says which) on
// hardware, in the own-device mode.
func (e *Env) SkipUnlessSoftRoCE(t testing.TB, what string) {
	t.Helper()
	if !e.SoftRoCE() {
		t.Skipf("own-device mode (%s=%s): %s is what rxe does; this device may do otherwise", DeviceVar, os.Getenv(DeviceVar), what)
	}
}

// sysfs is where the kernel lists RDMA devices (a variable for tests).
var sysfs = "/sys/class/infiniband"

// fromDevices builds the environment of the own-device mode from the devices named in
// GOVERBS_DEVICE, read from sysfs: each device's port 1, its IPv4-mapped RoCE v2 GID
// (whose index every node shares: the first device's), the netdev under it and that
// netdev's IPv4 address.
func fromDevices(list string) (*Env, error) {
	nodes, gid, err := OwnDevices(sysfs, list)
	if err != nil {
		return nil, err
	}
	e := &Env{Root: "own", Topology: "own", GIDIndex: gid, Nodes: nodes}
	e.RdmaCore, e.Release, e.releaseErr = InstalledRelease("/")
	return e, nil
}

// OwnDevices reads the devices of a comma-separated list (GOVERBS_DEVICE's, or doccheck
// -device's) from the sysfs directory dir (/sys/class/infiniband): each device's port 1,
// its IPv4-mapped RoCE v2 GID, the netdev under it and that netdev's IPv4 address. gid is
// the GID's index, which every device must share (the first device's).
func OwnDevices(dir, list string) (nodes []Node, gid int, err error) {
	gid = -1
	for _, dev := range strings.Split(list, ",") {
		dev = strings.TrimSpace(dev)
		if dev == "" {
			continue
		}
		idx, netdev, err := roceV2IPv4GID(dir, dev)
		if err != nil {
			return nil, 0, err
		}
		if gid < 0 {
			gid = idx
		} else if idx != gid {
			return nil, 0, fmt.Errorf("%s: the IPv4-mapped RoCE v2 GID is at index %d, on %s at %d: the tests use one index", dev, idx, nodes[0].Dev, gid)
		}
		ip, err := ipv4Of(netdev)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", dev, err)
		}
		nodes = append(nodes, Node{Dev: dev, IP: ip, Netdev: netdev})
	}
	if len(nodes) == 0 {
		return nil, 0, fmt.Errorf("%q names no device", list)
	}
	return nodes, gid, nil
}

// roceV2IPv4GID finds, on port 1 of dev (in the sysfs directory dir), the GID index holding an IPv4-mapped RoCE v2 GID
// (::ffff:a.b.c.d), and the netdev it belongs to.
func roceV2IPv4GID(dir, dev string) (int, string, error) {
	port := filepath.Join(dir, dev, "ports", "1")
	if _, err := os.Stat(port); err != nil {
		return 0, "", fmt.Errorf("%s: no such RDMA device with a port 1 in %s (%v)", dev, dir, err)
	}
	gids, _ := filepath.Glob(filepath.Join(port, "gids", "*"))
	for i := 0; i < len(gids); i++ {
		gid, err := os.ReadFile(filepath.Join(port, "gids", strconv.Itoa(i)))
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(gid)), "0000:0000:0000:0000:0000:ffff:") {
			continue
		}
		typ, err := os.ReadFile(filepath.Join(port, "gid_attrs", "types", strconv.Itoa(i)))
		if err != nil || strings.TrimSpace(string(typ)) != "RoCE v2" {
			continue
		}
		nd, err := os.ReadFile(filepath.Join(port, "gid_attrs", "ndevs", strconv.Itoa(i)))
		if err != nil {
			continue
		}
		return i, strings.TrimSpace(string(nd)), nil
	}
	return 0, "", fmt.Errorf("%s: port 1 has no IPv4-mapped RoCE v2 GID (the tests use RoCE v2 over IPv4; give the netdev an IPv4 address)", dev)
}

// ipv4Of is the first IPv4 address of netdev.
func ipv4Of(netdev string) (string, error) {
	ifi, err := net.InterfaceByName(netdev)
	if err != nil {
		return "", err
	}
	addrs, err := ifi.Addrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return n.IP.String(), nil
		}
	}
	return "", fmt.Errorf("netdev %s has no IPv4 address", netdev)
}
