//go:build linux

package rxebed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeModIndex(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "modules.dep"), []byte(
		"kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/fscache/fscache.ko kernel/fs/netfs/netfs.ko\n"+
			"kernel/net/9p/9pnet.ko:\n"+
			"kernel/fs/fscache/fscache.ko: kernel/fs/netfs/netfs.ko\n"+
			"kernel/fs/netfs/netfs.ko:\n"+
			"kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko kernel/drivers/virtio/virtio_ring.ko\n"+
			"kernel/drivers/virtio/virtio_ring.ko:\n"+
			"kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko: kernel/net/ipv4/udp_tunnel.ko\n"+
			"kernel/net/ipv4/udp_tunnel.ko:\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "modules.builtin"), []byte("kernel/lib/crc32.ko\n"), 0o644))
	return dir
}

func TestResolveOrdersDependenciesFirst(t *testing.T) {
	m, err := LoadModules(writeModIndex(t))
	require.NoError(t, err)
	got, err := m.Resolve("9p", "9pnet-virtio", "crc32", "9p")
	require.NoError(t, err)
	require.Equal(t, []string{
		"kernel/net/9p/9pnet.ko",
		"kernel/fs/netfs/netfs.ko",
		"kernel/fs/fscache/fscache.ko",
		"kernel/fs/9p/9p.ko",
		"kernel/drivers/virtio/virtio_ring.ko",
		"kernel/net/9p/9pnet_virtio.ko",
	}, got, "dependencies first, each once, built-ins skipped, '-' folded to '_'")
}

func TestResolveUnknownModule(t *testing.T) {
	m, err := LoadModules(writeModIndex(t))
	require.NoError(t, err)
	_, err = m.Resolve("rdma_rxe", "nosuch")
	require.ErrorContains(t, err, `kernel module "nosuch" not found`)
}

func TestLoadModulesWithoutIndex(t *testing.T) {
	_, err := LoadModules(t.TempDir())
	require.ErrorContains(t, err, "run make inputs")
}
