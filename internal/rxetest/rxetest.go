//go:build linux

// Package rxetest is the test side of the rxe bed: it tells a test which soft-RoCE devices
// and addresses the guest set up (see tools/rxe), and fails — never skips — a test that needs
// rxe but runs outside the guest.
//
// Tests that need rxe carry the build tag "rxe" and run inside the guest through
// `make test-rxe` (go test -tags rxe -exec 'bin/rxe run ...'); host test runs never compile
// them.
package rxetest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// Node is one RDMA endpoint of the guest's network.
type Node struct {
	Dev    string // rxe device name, e.g. "rxe_a"
	IP     string // IPv4 address of its netdev
	Netdev string // the netdev under the rxe device
}

// Env describes the guest the test runs in.
type Env struct {
	// Root names the guest root ("host", "sid", "trixie", "bullseye"), for messages only:
	// a test keys its expectations on Release, never on the root's name.
	Root string
	// Release is the major release of the rdma-core installed in the guest (33, 44, 56,
	// 65), RdmaCore its full version ("56.1"); see InstalledRelease.
	Release  int
	RdmaCore string
	Topology string // "one" or "two"
	GIDIndex int    // the IPv4-mapped RoCEv2 GID
	Nodes    []Node

	releaseErr error
}

// Guest returns the rxe environment, failing the test when it does not run in the guest
// or, in the own-device mode (GOVERBS_DEVICE), the machine's own devices.
func Guest(t testing.TB) *Env {
	t.Helper()
	e, err := Bed()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Bed is Guest for code without a *testing.T (the packages' Example functions): the rxe
// environment, or an error saying why there is none.
func Bed() (*Env, error) {
	if list := os.Getenv(DeviceVar); list != "" && os.Getenv("RXE_GUEST") != "1" {
		e, err := fromDevices(list)
		if err != nil {
			return nil, fmt.Errorf("own-device mode: %w", err)
		}
		if e.releaseErr != nil {
			return nil, fmt.Errorf("own-device mode: cannot tell the installed rdma-core release: %w", e.releaseErr)
		}
		return e, nil
	}
	e, ok := FromEnv()
	if !ok {
		return nil, fmt.Errorf("this test needs the rxe guest and runs only inside it (make test-rxe, or go test -tags rxe -exec \"$PWD/bin/rxe run\" ./pkg), or the machine's own devices: %s=<device>[,<device>] go test -tags rxe ./pkg", DeviceVar)
	}
	if e.releaseErr != nil {
		return nil, fmt.Errorf("the %s root: cannot tell the installed rdma-core release: %w", e.Root, e.releaseErr)
	}
	return e, nil
}

// FromEnv reads the RXE_* variables the guest sets.
func FromEnv() (*Env, bool) {
	if os.Getenv("RXE_GUEST") != "1" {
		return nil, false
	}
	gid, err := strconv.Atoi(os.Getenv("RXE_GID_INDEX"))
	if err != nil {
		return nil, false
	}
	e := &Env{Root: os.Getenv("RXE_ROOT"), Topology: os.Getenv("RXE_TOPOLOGY"), GIDIndex: gid}
	e.RdmaCore, e.Release, e.releaseErr = InstalledRelease("/")
	for _, p := range []string{"RXE_A_", "RXE_B_"} {
		dev := os.Getenv(p + "DEV")
		if dev == "" {
			break
		}
		e.Nodes = append(e.Nodes, Node{Dev: dev, IP: os.Getenv(p + "IP"), Netdev: os.Getenv(p + "NETDEV")})
	}
	return e, len(e.Nodes) > 0
}

// Pair returns the two nodes of the two-node topology, failing the test on one node (in
// the own-device mode with one device, it skips the test).
func (e *Env) Pair(t testing.TB) (a, b Node) {
	t.Helper()
	if len(e.Nodes) < 2 && e.own() {
		t.Skipf("own-device mode (%s=%s): the test needs two nodes; name two connected devices", DeviceVar, os.Getenv(DeviceVar))
	}
	if len(e.Nodes) < 2 {
		t.Fatalf("this test needs the two-node topology (rxe run -topology=two), the guest has %q", e.Topology)
	}
	return e.Nodes[0], e.Nodes[1]
}
