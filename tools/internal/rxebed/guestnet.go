//go:build linux

package rxebed

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// network is the guest's RDMA network, built by setupNetwork.
type network struct {
	topology string
	nodes    []node
}

// node is one RDMA endpoint: its netdev, rxe device and address.
type node struct {
	netdev, rxe, ip string
}

func (n *network) devices() []string {
	var d []string
	for _, nd := range n.nodes {
		d = append(d, nd.rxe)
	}
	return d
}

// env describes the network to the command; internal/rxetest reads these variables.
func (n *network) env(root string) []string {
	env := []string{
		"RXE_GUEST=1",
		"RXE_ROOT=" + root,
		"RXE_TOPOLOGY=" + n.topology,
		"RXE_GID_INDEX=1",
	}
	for i, nd := range n.nodes {
		p := "RXE_" + string(rune('A'+i)) + "_"
		env = append(env, p+"DEV="+nd.rxe, p+"IP="+nd.ip, p+"NETDEV="+nd.netdev)
	}
	return env
}

// setupNetwork builds the topology over netlink (no process is spawned: under TCG each
// exec of ip or rdma costs a large share of a second).
func setupNetwork(topology string) (*network, error) {
	n := &network{topology: topology}
	lo, err := netlink.LinkByName("lo")
	if err != nil {
		return nil, fmt.Errorf("lo: %w", err)
	}
	if err := netlink.LinkSetUp(lo); err != nil {
		return nil, fmt.Errorf("lo up: %w", err)
	}
	switch topology {
	case TopoOne:
		n.nodes = []node{{netdev: "rxenet0", rxe: "rxe0", ip: NetA}}
		if err := netlink.LinkAdd(&netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: "rxenet0"}}); err != nil {
			return nil, fmt.Errorf("adding dummy rxenet0: %w", err)
		}
	case TopoTwo:
		// Linux 6.1's rxe opens its UDP socket and routes only in the initial network
		// namespace (per-namespace rxe came upstream later), so both nodes live there, each
		// on one end of a veth pair. Policy routing sends what one node's address sends to
		// the other's out of its own veth end, across the link, instead of through lo:
		// taking the link down really cuts the two nodes apart.
		n.nodes = []node{
			{netdev: "veth-a", rxe: "rxe_a", ip: NetA},
			{netdev: "veth-b", rxe: "rxe_b", ip: NetB},
		}
		veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "veth-a"}, PeerName: "veth-b"}
		if err := netlink.LinkAdd(veth); err != nil {
			return nil, fmt.Errorf("adding veth-a/veth-b: %w", err)
		}
		// Accept packets whose source is one of our own addresses (the other node's), and
		// answer ARP only for the address of the receiving end.
		for _, key := range []string{"all", "default", "veth-a", "veth-b"} {
			for k, v := range map[string]string{"accept_local": "1", "rp_filter": "0", "arp_ignore": "1"} {
				if err := os.WriteFile(filepath.Join("/proc/sys/net/ipv4/conf", key, k), []byte(v), 0); err != nil {
					return nil, fmt.Errorf("sysctl: %w", err)
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown topology %q", topology)
	}
	for i, nd := range n.nodes {
		link, err := netlink.LinkByName(nd.netdev)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", nd.netdev, err)
		}
		addr, err := netlink.ParseAddr(nd.ip + "/" + strconv.Itoa(Prefix))
		if err != nil {
			return nil, err
		}
		if err := netlink.AddrAdd(link, addr); err != nil {
			return nil, fmt.Errorf("address %s on %s: %w", nd.ip, nd.netdev, err)
		}
		if err := netlink.LinkSetUp(link); err != nil {
			return nil, fmt.Errorf("%s up: %w", nd.netdev, err)
		}
		if len(n.nodes) == 2 {
			peer := n.nodes[1-i]
			table := 101 + i
			route := &netlink.Route{
				LinkIndex: link.Attrs().Index, Dst: host32(peer.ip), Src: net.ParseIP(nd.ip),
				Table: table, Scope: netlink.SCOPE_LINK,
			}
			if err := netlink.RouteAdd(route); err != nil {
				return nil, fmt.Errorf("route to %s via %s: %w", peer.ip, nd.netdev, err)
			}
			rule := netlink.NewRule()
			rule.Priority, rule.IifName, rule.Table = 100+i, "lo", table
			rule.Src, rule.Dst = host32(nd.ip), host32(peer.ip)
			if err := netlink.RuleAdd(rule); err != nil {
				return nil, fmt.Errorf("rule %s -> %s: %w", nd.ip, peer.ip, err)
			}
		}
	}
	if len(n.nodes) == 2 {
		// Consult the local table after the rules above (it comes first by default).
		local := netlink.NewRule()
		local.Priority, local.Table = 1000, unix.RT_TABLE_LOCAL
		if err := netlink.RuleAdd(local); err != nil {
			return nil, fmt.Errorf("moving the local table's rule: %w", err)
		}
		local.Priority = 0
		if err := netlink.RuleDel(local); err != nil {
			return nil, fmt.Errorf("moving the local table's rule: %w", err)
		}
	}
	for _, nd := range n.nodes {
		if err := netlink.RdmaLinkAdd(nd.rxe, "rxe", nd.netdev); err != nil {
			return nil, fmt.Errorf("rdma link add %s type rxe netdev %s: %w", nd.rxe, nd.netdev, err)
		}
	}
	return n, nil
}

func host32(ip string) *net.IPNet {
	return &net.IPNet{IP: net.ParseIP(ip).To4(), Mask: net.CIDRMask(32, 32)}
}

// waitActive waits until every device's port 1 is ACTIVE and has its IPv4-mapped RoCEv2
// GID at index 1.
func waitActive(devs []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var pending []string
		for _, d := range devs {
			if why := rxeNotReady(d); why != "" {
				pending = append(pending, d+": "+why)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rxe not up after %s: %s", timeout, strings.Join(pending, "; "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func rxeNotReady(dev string) string {
	port := filepath.Join("/sys/class/infiniband", dev, "ports/1")
	state, err := os.ReadFile(filepath.Join(port, "state"))
	if err != nil {
		return "no such device"
	}
	if !strings.Contains(string(state), "ACTIVE") {
		return "port " + strings.TrimSpace(string(state))
	}
	gid, err := os.ReadFile(filepath.Join(port, "gids/1"))
	if err != nil || strings.Trim(strings.TrimSpace(string(gid)), "0:") == "" {
		return "no GID at index 1"
	}
	return ""
}
