//go:build linux && rxe

package rxetest

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

// The devices RDMA_NLDEV_CMD_GET lists are those in /sys/class/infiniband, each index
// once.
func TestRdmaDevicesMatchSysfs(t *testing.T) {
	Guest(t)
	devs, err := rdmaDevices()
	require.NoError(t, err)
	ents, err := os.ReadDir("/sys/class/infiniband")
	require.NoError(t, err)
	var want, got []string
	for _, e := range ents {
		want = append(want, e.Name())
	}
	seen := map[uint32]bool{}
	for _, d := range devs {
		require.False(t, seen[d.index], "index %d twice", d.index)
		seen[d.index] = true
		got = append(got, d.name)
	}
	slices.Sort(got)
	require.NotEmpty(t, got)
	require.Equal(t, want, got)
}

// A dump the kernel refuses (a device index no device has) ends in the kernel's errno.
func TestDumpUnknownDevice(t *testing.T) {
	Guest(t)
	devs, err := rdmaDevices()
	require.NoError(t, err)
	idx := uint32(0)
	for _, d := range devs {
		idx = max(idx, d.index+1)
	}
	k, _ := kindByName("pd")
	_, err = dump(k, idx+100)
	var errno unix.Errno
	require.True(t, errors.As(err, &errno), "%v", err)
	require.NotZero(t, errno)
	t.Logf("dump of device %d: %v", idx+100, err)
}
