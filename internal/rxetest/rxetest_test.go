//go:build linux

package rxetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

func TestFromEnv(t *testing.T) {
	t.Setenv("RXE_GUEST", "")
	_, ok := FromEnv()
	require.False(t, ok, "outside the guest")

	t.Setenv("RXE_GUEST", "1")
	t.Setenv("RXE_ROOT", "sid")
	t.Setenv("RXE_TOPOLOGY", "two")
	t.Setenv("RXE_GID_INDEX", "1")
	t.Setenv("RXE_A_DEV", "rxe_a")
	t.Setenv("RXE_A_IP", "192.0.2.1")
	t.Setenv("RXE_A_NETDEV", "veth-a")
	t.Setenv("RXE_B_DEV", "rxe_b")
	t.Setenv("RXE_B_IP", "192.0.2.2")
	t.Setenv("RXE_B_NETDEV", "veth-b")
	e, ok := FromEnv()
	require.True(t, ok)
	v, n, err := InstalledRelease("/")
	require.Equal(t, &Env{Root: "sid", Release: n, RdmaCore: v, Topology: "two", GIDIndex: 1, Nodes: []Node{
		{Dev: "rxe_a", IP: "192.0.2.1", Netdev: "veth-a"},
		{Dev: "rxe_b", IP: "192.0.2.2", Netdev: "veth-b"},
	}, releaseErr: err}, e)
	a, b := e.Pair(t)
	require.Equal(t, "rxe_a", a.Dev)
	require.Equal(t, "rxe_b", b.Dev)
}

func TestReleaseOf(t *testing.T) {
	for name, want := range map[string]struct {
		v string
		n int
	}{
		"libibverbs.so.1.11.33.2": {"33.2", 33},
		"libibverbs.so.1.14.44.0": {"44.0", 44},
		"libibverbs.so.1.14.56.1": {"56.1", 56},
		"libibverbs.so.1.18.65.0": {"65.0", 65},
	} {
		v, n, err := releaseOf(name)
		require.NoError(t, err, name)
		require.Equal(t, want.v, v, name)
		require.Equal(t, want.n, n, name)
	}
	for _, bad := range []string{"libibverbs.so.1", "libibverbs.so.1.14", "libibverbs.so.1.x.44.0", "libibverbs.so.1.14.44", "libibverbs.so.1.14.0.1", "libmlx5.so.1.24.44.0"} {
		_, _, err := releaseOf(bad)
		require.Error(t, err, bad)
	}
}

// The release comes from where libibverbs.so.1 leads in the root; a root without it says so.
func TestInstalledRelease(t *testing.T) {
	root := t.TempDir()
	_, _, err := InstalledRelease(root)
	require.ErrorContains(t, err, "no libibverbs.so.1")

	dir := filepath.Join(root, "usr/lib/x86_64-linux-gnu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "libibverbs.so.1.11.33.2"), nil, 0o644))
	require.NoError(t, os.Symlink("libibverbs.so.1.11.33.2", filepath.Join(dir, "libibverbs.so.1")))
	v, n, err := InstalledRelease(root)
	require.NoError(t, err)
	require.Equal(t, "33.2", v)
	require.Equal(t, 33, n)

	// LD_LIBRARY_PATH comes first, as for the loader.
	other := filepath.Join(root, "opt/rdma/lib")
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "libibverbs.so.1.18.65.0"), nil, 0o644))
	require.NoError(t, os.Symlink("libibverbs.so.1.18.65.0", filepath.Join(other, "libibverbs.so.1")))
	t.Setenv("LD_LIBRARY_PATH", "/opt/rdma/lib")
	v, n, err = InstalledRelease(root)
	require.NoError(t, err)
	require.Equal(t, "65.0", v)
	require.Equal(t, 65, n)

	// A link that leads nowhere is an error, not another directory's library.
	require.NoError(t, os.Remove(filepath.Join(other, "libibverbs.so.1.18.65.0")))
	_, _, err = InstalledRelease(root)
	require.Error(t, err)
}
