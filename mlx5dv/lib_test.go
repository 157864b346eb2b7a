//go:build linux && cgo && !rxe

package mlx5dv

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// The host's libmlx5.so.1 (ibverbs-providers, a host dependency of the
// project: rdma-core 44 on Debian 12) without a device: the library loads,
// its release is read, the calls that need no device object reach C through
// dlsym and the trampolines, and a function newer than the installed release
// fails with the *MissingError naming it and its release.
func TestHostLibrary(t *testing.T) {
	require.NoError(t, Load(), "libmlx5.so.1 (ibverbs-providers) is a host dependency: tools/host-deps.txt")
	r, err := Release()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, r, 33)

	// Direct-rule actions that need no domain: made and destroyed in libmlx5.
	a, err := DrActionCreateDrop()
	require.NoError(t, err)
	require.NoError(t, a.Destroy())
	a, err = DrActionCreateTag(0x1234)
	require.NoError(t, err)
	require.NoError(t, a.Destroy())

	// _mlx5dv_get_export_sizes is new in rdma-core 65 (among the inputs).
	sizes, err := GetExportSizes()
	if r < 65 {
		var me *MissingError
		require.True(t, errors.As(err, &me), "%v is not a *MissingError", err)
		assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
		assert.Contains(t, err.Error(), "_mlx5dv_get_export_sizes")
		assert.Contains(t, err.Error(), "libmlx5.so.1")
		assert.Contains(t, err.Error(), "rdma-core 65")
	} else {
		require.NoError(t, err)
		assert.NotZero(t, sizes.DevxObjAttrsSize)
	}
}
