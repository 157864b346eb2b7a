//go:build linux

package rxebed

import (
	"path/filepath"
	"time"
)

// Guest roots. Every root but the host's is built by make inputs (tools/inputs/root.sh,
// from tools/inputs/roots.txt) into .cache/roots/<name>.
const (
	RootHost     = "host"     // the host's own / (Debian 12, rdma-core 44)
	RootSid      = "sid"      // Debian sid (rdma-core 65)
	RootTrixie   = "trixie"   // Debian 13 (rdma-core 56.1)
	RootBullseye = "bullseye" // Debian 11 (rdma-core 33, glibc 2.31)
)

// Roots lists every guest root, the default (host) first.
var Roots = []string{RootHost, RootSid, RootTrixie, RootBullseye}

// RootDir is where a built root lies, relative to the repository ("" for the host's /).
func RootDir(name string) string {
	if name == RootHost {
		return ""
	}
	return filepath.Join(".cache/roots", name)
}

// Topologies.
const (
	TopoOne = "one" // one node: rxe0 on a dummy netdev
	TopoTwo = "two" // two nodes joined by a veth pair, each with its own rxe device
)

// Share is a host directory exported to the guest over 9p.
type Share struct {
	Tag  string // 9p mount tag
	Path string // absolute path on the host, and the same path inside the guest
	RW   bool
}

// GuestConfig is everything the guest's init needs; the host writes it into the initramfs
// as /rxe.json.
type GuestConfig struct {
	Argv  []string
	Env   []string
	Dir   string // working directory of the command
	Root  string // one of Roots
	Lower string // host path of the guest root's read-only lower layer ("/" or a built root)
	// HostTag is the 9p tag of the host's / (read-only); Shares are mounted on top of the root.
	HostTag string
	Shares  []Share
	// BootModules are initramfs paths loaded before any 9p mount; Modules are host paths
	// (read through the host share) loaded afterwards.
	BootModules []string
	Modules     []Module
	Topology    string
	RxeTimeout  time.Duration
	Verbose     bool
}

// Module is a kernel module to load and the modules (of the same list) it needs first.
type Module struct {
	Path string
	Deps []string
}

// Network plan of the topologies; tests read the same facts from the environment
// variables set in the guest (see Env).
const (
	NetA   = "192.0.2.1" // TEST-NET-1: never routed anywhere, and the guest has no uplink
	NetB   = "192.0.2.2"
	Prefix = 24
)
