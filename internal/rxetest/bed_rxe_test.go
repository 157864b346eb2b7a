//go:build linux && rxe

package rxetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

// These tests prove the bed itself: the devices exist and are ACTIVE, and rdma-core's own
// tools (ibverbs-utils, rdmacm-utils) pass traffic from one node to the other across the
// veth link — and stop passing it when the link is down.

func TestDevicesVisible(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	out, err := exec.Command("ibv_devices").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, n := range e.Nodes {
		require.Contains(t, string(out), n.Dev)
		state, err := os.ReadFile(filepath.Join("/sys/class/infiniband", n.Dev, "ports/1/state"))
		require.NoError(t, err)
		require.Contains(t, string(state), "ACTIVE")
		gid, err := os.ReadFile(filepath.Join("/sys/class/infiniband", n.Dev, "ports/1/gids", strconv.Itoa(e.GIDIndex)))
		require.NoError(t, err)
		require.Equal(t, ipv4MappedGID(t, n.IP), strings.TrimSpace(string(gid)), "GID %d of %s", e.GIDIndex, n.Dev)
	}
}

// The release the tests key on is the one the root's package manager installed: the upstream
// part of libibverbs1's Debian version (33.2-1, 44.0-2, 56.1-1, 65.0-1.1).
func TestReleaseMatchesPackage(t *testing.T) {
	e := Guest(t)
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "libibverbs1").CombinedOutput()
	require.NoError(t, err, "%s", out)
	upstream, _, _ := strings.Cut(string(out), "-")
	require.Equal(t, upstream, e.RdmaCore, "libibverbs1 %s", out)
	major, _, _ := strings.Cut(upstream, ".")
	require.Equal(t, major, strconv.Itoa(e.Release))
}

func TestRCPingpongAcrossLink(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	a, b := e.Pair(t)
	gid := strconv.Itoa(e.GIDIndex)
	before := linkPackets(t, a.Netdev)

	srv := start(t, "ibv_rc_pingpong", "-d", b.Dev, "-g", gid, "-n", "200")
	waitFor(t, "ibv_rc_pingpong to listen", func() bool { return TCPListening(18515) })
	cli, err := run(t, 30*time.Second, "ibv_rc_pingpong", "-d", a.Dev, "-g", gid, "-n", "200", b.IP)
	require.NoError(t, err, "client:\n%s", cli)
	srvOut, err := srv.wait(30 * time.Second)
	require.NoError(t, err, "server:\n%s", srvOut)
	require.Contains(t, cli, "200 iters")
	require.Contains(t, srvOut, "200 iters")
	require.Contains(t, cli, "GID ::ffff:"+a.IP)
	require.Contains(t, cli, "GID ::ffff:"+b.IP)

	// 200 round trips of RC sends and their acks crossed veth-a.
	require.GreaterOrEqual(t, linkPackets(t, a.Netdev)-before, uint64(400), "RDMA traffic did not cross %s", a.Netdev)
}

func TestRpingAcrossLink(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	a, b := e.Pair(t)
	srv := start(t, "rping", "-s", "-a", b.IP, "-C", "10", "-v")
	waitFor(t, "rping to listen", func() bool { return cmListening(t) })
	cli, err := run(t, 30*time.Second, "rping", "-c", "-a", b.IP, "-I", a.IP, "-C", "10", "-v")
	require.NoError(t, err, "client:\n%s", cli)
	srvOut, err := srv.wait(30 * time.Second)
	require.NoError(t, err, "server:\n%s", srvOut)
	require.Equal(t, 10, strings.Count(cli, "ping data: rdma-ping-"), cli)
	require.Equal(t, 10, strings.Count(srvOut, "server ping data: rdma-ping-"), srvOut)
}

func TestLinkDownCutsTraffic(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	a, b := e.Pair(t)
	gid := strconv.Itoa(e.GIDIndex)
	SetLink(t, a.Netdev, "down")
	t.Cleanup(func() { SetLink(t, a.Netdev, "up") })

	srv := start(t, "ibv_rc_pingpong", "-d", b.Dev, "-g", gid, "-n", "5")
	waitFor(t, "ibv_rc_pingpong to listen", func() bool { return TCPListening(18515) })
	cli, err := run(t, 60*time.Second, "ibv_rc_pingpong", "-d", a.Dev, "-g", gid, "-n", "5", b.IP)
	require.Error(t, err, "the client passed traffic with %s down:\n%s", a.Netdev, cli)
	srv.kill()

	// Up again: traffic flows.
	SetLink(t, a.Netdev, "up")
	waitFor(t, a.Dev+" ACTIVE again", func() bool {
		s, _ := os.ReadFile(filepath.Join("/sys/class/infiniband", a.Dev, "ports/1/state"))
		return strings.Contains(string(s), "ACTIVE")
	})
	srv = start(t, "ibv_rc_pingpong", "-d", b.Dev, "-g", gid, "-n", "5")
	waitFor(t, "ibv_rc_pingpong to listen", func() bool { return TCPListening(18515) })
	cli, err = run(t, 30*time.Second, "ibv_rc_pingpong", "-d", a.Dev, "-g", gid, "-n", "5", b.IP)
	require.NoError(t, err, "client after link up:\n%s", cli)
	_, err = srv.wait(30 * time.Second)
	require.NoError(t, err)
}

// --- helpers -------------------------------------------------------------------------

type proc struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan error
}

func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), out: &bytes.Buffer{}, done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	require.NoError(t, p.cmd.Start(), name)
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(p.kill)
	return p
}

// kill ends the process; after Wait it does nothing (os.Process.Kill is safe to race with it).
func (p *proc) kill() { _ = p.cmd.Process.Kill() }

func (p *proc) wait(limit time.Duration) (string, error) {
	select {
	case err := <-p.done:
		p.done <- err
		return p.out.String(), err
	case <-time.After(limit):
		p.kill()
		return p.out.String(), fmt.Errorf("%s still running after %s", p.cmd.Path, limit)
	}
}

func run(t *testing.T, limit time.Duration, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmListening(t *testing.T) bool {
	out, err := exec.Command("rdma", "resource", "show", "cm_id").CombinedOutput()
	return err == nil && strings.Contains(string(out), "LISTEN")
}

func linkPackets(t *testing.T, dev string) uint64 {
	t.Helper()
	var total uint64
	for _, f := range []string{"rx_packets", "tx_packets"} {
		b, err := os.ReadFile(filepath.Join("/sys/class/net", dev, "statistics", f))
		require.NoError(t, err)
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		require.NoError(t, err)
		total += n
	}
	return total
}

// ipv4MappedGID renders ::ffff:a.b.c.d the way sysfs prints GIDs.
func ipv4MappedGID(t *testing.T, ip string) string {
	t.Helper()
	var o [4]int
	_, err := fmt.Sscanf(ip, "%d.%d.%d.%d", &o[0], &o[1], &o[2], &o[3])
	require.NoError(t, err)
	return fmt.Sprintf("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", o[0], o[1], o[2], o[3])
}
