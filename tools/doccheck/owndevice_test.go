//go:build linux && !rxe

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/internal/rxetest"
)

func TestParseDevices(t *testing.T) {
	for in, want := range map[string][]string{"mlx5_0": {"mlx5_0"}, " rxe_a , rxe_b ": {"rxe_a", "rxe_b"}, "a,": {"a"}} {
		got, err := parseDevices(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", ",", "a,b,c", "a,a"} {
		_, err := parseDevices(bad)
		require.Error(t, err, bad)
	}
}

func TestCheckFlags(t *testing.T) {
	require.NoError(t, checkFlags(ownOptions{}, true, true))
	require.NoError(t, checkFlags(ownOptions{Devices: "d"}, false, true))
	require.NoError(t, checkFlags(ownOptions{Devices: "d", Build: "x", BuildRoot: "sid"}, false, false))
	require.NoError(t, checkFlags(ownOptions{Devices: "d", Prebuilt: "x"}, false, true))
	for _, tc := range []struct {
		o             ownOptions
		roots, report bool
		want          string
	}{
		{ownOptions{Build: "x"}, false, false, "belong to the own-device mode"},
		{ownOptions{Prebuilt: "x"}, false, false, "belong to the own-device mode"},
		{ownOptions{Devices: "d"}, true, false, "-roots"},
		{ownOptions{Devices: "d", Build: "x", Prebuilt: "y"}, false, false, "exclude"},
		{ownOptions{Devices: "d", Build: "x"}, false, true, "no report"},
		{ownOptions{Devices: "d", BuildRoot: "sid"}, false, false, "with -build"},
	} {
		require.ErrorContains(t, checkFlags(tc.o, tc.roots, tc.report), tc.want, "%+v", tc.o)
	}
}

// With one device every probe reaching node B skips, with its reason; the ones left name
// neither B's address nor a two-node fixture; with two devices none skips.
func TestSelectOwnRealProbes(t *testing.T) {
	p, err := LoadProbes("probes", loadSpec(t))
	require.NoError(t, err)
	run, skipped := selectOwn(p.Probes, 1)
	require.NotEmpty(t, run)
	require.NotEmpty(t, skipped)
	require.Equal(t, len(p.Probes), len(run)+len(skipped))
	for _, s := range skipped {
		require.Contains(t, s.Reason, "needs node B", "%s/%s", s.Probe.Function, s.Probe.Case)
	}
	for _, r := range run {
		text := r.Call + r.Cleanup + r.Go
		require.NotContains(t, text, "RXE_B_", "%s/%s", r.Function, r.Case)
		for _, n := range r.Needs {
			require.NotContains(t, twoNodeFixtures, n, "%s/%s", r.Function, r.Case)
		}
	}
	// The connection probes reach B through goprobe's helpers only in Go.
	require.True(t, slices.ContainsFunc(skipped, func(s Skipped) bool { return s.Probe.Function == "rdma_connect" }))
	// A connection request taken on node A from node B's client (req_call, reqCall).
	require.True(t, slices.ContainsFunc(skipped, func(s Skipped) bool {
		return s.Probe.Function+"/"+s.Probe.Case == "rdma_reject/private-data-too-long"
	}))
	run2, skipped2 := selectOwn(p.Probes, 2)
	require.Empty(t, skipped2)
	require.Len(t, run2, len(p.Probes))
}

func TestNeedsNodeB(t *testing.T) {
	require.Empty(t, needsNodeB(&Probe{Needs: []string{"pd", "cq"}, Call: "ibv_alloc_pd(ctx)", Go: "return keep(ctx().AllocPD())"}))
	require.Equal(t, "needs node B (fixture udep)", needsNodeB(&Probe{Needs: []string{"ech", "udep"}}))
	require.Equal(t, "needs node B (uses RXE_B_)", needsNodeB(&Probe{Call: `getenv("RXE_B_IP")`}))
	require.Equal(t, "needs node B (uses connSetup)", needsNodeB(&Probe{Call: "x", Go: "connSetup()\nreturn nil"}))
	require.Equal(t, "needs node B (uses req_call)", needsNodeB(&Probe{Call: "({ req_call(); })"}))
}

// fakeSysfs writes dev's port 1 with GIDs: index i of gids is (gid, type), on netdev.
func fakeSysfs(t *testing.T, dir, dev, netdev string, gids [][2]string) {
	port := filepath.Join(dir, dev, "ports", "1")
	for _, sub := range []string{"gids", "gid_attrs/types", "gid_attrs/ndevs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(port, sub), 0o755))
	}
	for i, g := range gids {
		n := string(rune('0' + i))
		require.NoError(t, os.WriteFile(filepath.Join(port, "gids", n), []byte(g[0]+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(port, "gid_attrs/types", n), []byte(g[1]+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(port, "gid_attrs/ndevs", n), []byte(netdev+"\n"), 0o644))
	}
}

// The environment of the harness and goprobe, from a fake sysfs tree: the IPv4-mapped RoCE
// v2 GID's index (not the v1 one before it), the netdev's address (lo's), node B only with
// a second device; the bed's variables are dropped.
func TestDeviceEnvFromSysfs(t *testing.T) {
	dir := t.TempDir()
	v4 := "0000:0000:0000:0000:0000:ffff:7f00:0001"
	gids := [][2]string{{"fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1"}, {"fe80:0000:0000:0000:0000:0000:0000:0001", "RoCE v2"}, {v4, "IB/RoCE v1"}, {v4, "RoCE v2"}}
	fakeSysfs(t, dir, "hw_0", "lo", gids)
	fakeSysfs(t, dir, "hw_1", "lo", gids)
	fakeSysfs(t, dir, "v1only", "lo", gids[:3])

	nodes, gid, err := rxetest.OwnDevices(dir, "hw_0")
	require.NoError(t, err)
	require.Equal(t, 3, gid)
	env := deviceEnv(nodes, gid)
	require.Equal(t, []string{"RXE_TOPOLOGY=one", "RXE_GID_INDEX=3", "RXE_A_DEV=hw_0", "RXE_A_IP=127.0.0.1", "RXE_A_NETDEV=lo"}, env)

	nodes, gid, err = rxetest.OwnDevices(dir, "hw_0,hw_1")
	require.NoError(t, err)
	env = deviceEnv(nodes, gid)
	require.Contains(t, env, "RXE_TOPOLOGY=two")
	require.Contains(t, env, "RXE_B_DEV=hw_1")
	require.Contains(t, env, "RXE_B_IP=127.0.0.1")

	_, _, err = rxetest.OwnDevices(dir, "v1only")
	require.ErrorContains(t, err, "no IPv4-mapped RoCE v2 GID")
	_, _, err = rxetest.OwnDevices(dir, "absent")
	require.ErrorContains(t, err, "no such RDMA device")

	got := withEnv([]string{"PATH=/bin", "RXE_GUEST=1", "RXE_B_IP=10.0.0.2", "HOME=/root"}, env[:2])
	require.Equal(t, []string{"PATH=/bin", "HOME=/root", "RXE_TOPOLOGY=two", "RXE_GID_INDEX=3"}, got)
}

func TestNotBuiltReason(t *testing.T) {
	r := root{Name: ownRootName, Version: "44", Like: "host"}
	m := &manifest{BuiltFor: "installed"}
	require.Equal(t, "librpma is not installed", notBuiltReason(&Probe{Function: "rpma_peer_new"}, r, m))
	require.Contains(t, notBuiltReason(&Probe{Function: "ionic_dv_pd_set_udma_mask"}, r, m), "libionic")
	require.Contains(t, notBuiltReason(&Probe{Function: "ibv_x", Roots: []string{"sid"}}, r, m), "limited to the bed roots [sid]")
	require.Contains(t, notBuiltReason(&Probe{Function: "ibv_query_gid_ex"}, r, m), "do not declare ibv_query_gid_ex")
	// The installed release's bed root: its root-limited probes run.
	require.True(t, root{Name: ownRootName, Like: "sid"}.runs(&Probe{Roots: []string{"sid"}}))
	require.False(t, root{Name: ownRootName}.runs(&Probe{Roots: []string{"sid"}}))
	require.Equal(t, "sid", likeRoot(".", "65"))
	require.Equal(t, "", likeRoot(".", "50"))
}

// The own-device mode's summary and report name the device and list every skipped probe.
func TestOwnReport(t *testing.T) {
	set := loadSpec(t)
	p := &Probe{Function: "ibv_alloc_pd", Case: "success", Expect: "success", id: 0}
	s := &Probe{Function: "rdma_connect", Case: "success", Expect: "success", id: 1}
	rt := root{Name: ownRootName, Version: "65", Full: "65.0"}
	res := &Results{Set: set, Probes: &Probes{Probes: []*Probe{p, s}}, Roots: []root{rt},
		Raw:       map[string]map[int]Raw{ownRootName: {0: {Status: "ok", Kind: "ptr"}}},
		Go:        map[string]map[int]GoRaw{ownRootName: {}},
		Leftovers: map[string]Leftovers{ownRootName: {Seen: true}},
		Own: &ownDevice{Devices: []rxetest.Node{{Dev: "mlx5_0", IP: "10.0.0.1", Netdev: "eth1"}}, GID: 3,
			Skipped: []Skipped{{Probe: s, ID: 1, Reason: "needs node B (fixture conn)"}}}}
	sum := res.Summary()
	require.Contains(t, sum, "mlx5_0 (node A, 10.0.0.1 on eth1, GID index 3)")
	require.Contains(t, sum, "installed rdma-core 65.0")
	require.Contains(t, sum, "1 probes skipped")
	require.Contains(t, sum, "skipped rdma_connect/success: needs node B (fixture conn)")
	md := res.Markdown()
	require.Contains(t, md, "**Own-device mode**")
	require.Contains(t, md, "## Skipped")
	require.True(t, strings.Contains(md, "- `rdma_connect` / success: needs node B"))
	require.Empty(t, res.Unexpected())
}
