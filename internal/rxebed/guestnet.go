package rxebed

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// network is the guest's RDMA network, built by setupNetwork.
type network struct {
	topology string
	nodes    []node
}

// node is one RDMA endpoint: a network namespace (empty for the initial one), its netdev,
// rxe device and address.
type node struct {
	ns, netdev, rxe, ip string
}

func (n *network) devices() []string {
	var d []string
	for _, nd := range n.nodes {
		d = append(d, nd.rxe)
	}
	return d
}

// wrap returns the argv that runs the command on the first node.
func (n *network) wrap(argv []string) []string {
	if ns := n.nodes[0].ns; ns != "" {
		return append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	return argv
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
		env = append(env, p+"NS="+nd.ns, p+"DEV="+nd.rxe, p+"IP="+nd.ip, p+"NETDEV="+nd.netdev)
	}
	return env
}

func run(argv ...string) error {
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func runAll(cmds [][]string) error {
	for _, c := range cmds {
		if err := run(c...); err != nil {
			return err
		}
	}
	return nil
}

func setupNetwork(topology string) (*network, error) {
	n := &network{topology: topology}
	cmds := [][]string{{"ip", "link", "set", "lo", "up"}}
	cidr := func(ip string) string { return ip + "/" + strconv.Itoa(Prefix) }
	switch topology {
	case TopoOne:
		n.nodes = []node{{netdev: "rxenet0", rxe: "rxe0", ip: NetA}}
		cmds = append(cmds,
			[]string{"ip", "link", "add", "rxenet0", "type", "dummy"},
			[]string{"ip", "addr", "add", cidr(NetA), "dev", "rxenet0"},
			[]string{"ip", "link", "set", "rxenet0", "up"},
			[]string{"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "rxenet0"},
		)
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
		cmds = append(cmds, []string{"ip", "link", "add", "veth-a", "type", "veth", "peer", "name", "veth-b"})
		for _, key := range []string{"all", "default", "veth-a", "veth-b"} {
			for _, kv := range []string{"accept_local=1", "rp_filter=0", "arp_ignore=1"} {
				cmds = append(cmds, []string{"sysctl", "-q", "-w", "net.ipv4.conf." + key + "." + kv})
			}
		}
		for i, nd := range n.nodes {
			peer := n.nodes[1-i]
			table := strconv.Itoa(101 + i)
			cmds = append(cmds,
				[]string{"ip", "addr", "add", cidr(nd.ip), "dev", nd.netdev},
				[]string{"ip", "link", "set", nd.netdev, "up"},
				[]string{"ip", "route", "add", peer.ip + "/32", "dev", nd.netdev, "src", nd.ip, "table", table},
				[]string{"ip", "rule", "add", "pref", strconv.Itoa(100 + i), "iif", "lo", "from", nd.ip, "to", peer.ip, "table", table},
			)
		}
		cmds = append(cmds,
			[]string{"ip", "rule", "add", "pref", "1000", "table", "local"},
			[]string{"ip", "rule", "del", "pref", "0", "table", "local"},
		)
		for _, nd := range n.nodes {
			cmds = append(cmds, []string{"rdma", "link", "add", nd.rxe, "type", "rxe", "netdev", nd.netdev})
		}
	default:
		return nil, fmt.Errorf("unknown topology %q", topology)
	}
	if err := runAll(cmds); err != nil {
		return nil, err
	}
	return n, nil
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
