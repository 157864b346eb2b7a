//go:build rxe

package dvguard_test

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/dl"
	"github.com/goverbs/goverbs/internal/dvguard"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// The kernel names the bed's device's driver (rxe; in the own-device mode whatever the
// device is); a provider of that driver passes its context and objects, a provider of
// another driver refuses them with a *DeviceError naming the function, the device and what
// the kernel said it is.
func TestDriverOnDevice(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	name := env.Nodes[0].Dev
	id, err := dvguard.Driver(name)
	require.NoError(t, err)
	require.NotEqual(t, ibv.RDMADriverIDUnknown, id)
	if os.Getenv("RXE_GUEST") == "1" {
		assert.Equal(t, ibv.RDMADriverIDRxe, id, "the bed's %s", name)
	}

	list, err := ibv.GetDeviceList()
	require.NoError(t, err)
	defer func() { require.NoError(t, list.Close()) }()
	var ctx *ibv.Context
	for _, d := range list.All() {
		if n, err := d.GetName(); err == nil && n == name {
			ctx, err = d.Open()
			require.NoError(t, err)
		}
	}
	require.NotNil(t, ctx, "device %s", name)
	defer func() { require.NoError(t, ctx.CloseDevice()) }()
	pd, err := ctx.AllocPD()
	require.NoError(t, err)
	defer func() { require.NoError(t, pd.Dealloc()) }()

	own := &dvguard.Provider{Name: dvguard.DriverName(id), Driver: id}
	require.NoError(t, own.Check("own_dv_call", ctx, pd, ctx.Device))
	other := ibv.RDMADriverIDMlx4
	if id == other {
		other = ibv.RDMADriverIDEfa
	}
	p := &dvguard.Provider{Name: dvguard.DriverName(other), Driver: other}
	err = p.Check("other_dv_call", pd)
	var de *dl.DeviceError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, dl.DeviceError{Func: "other_dv_call", Device: name, Provider: dvguard.DriverName(other), Found: dvguard.DriverName(id), Check: "the kernel's driver id"}, *de)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)
}

// The driver of a device costs two netlink requests: measured so that the guarded
// wrappers' cost is known (docs/packages.md).
func BenchmarkDriver(b *testing.B) {
	env, err := rxetest.Bed()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := dvguard.Driver(env.Nodes[0].Dev); err != nil {
			b.Fatal(err)
		}
	}
}
