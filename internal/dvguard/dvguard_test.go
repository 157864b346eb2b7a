//go:build linux && cgo

package dvguard

import (
	"encoding/binary"
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/dl"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// devices of two providers, as libibverbs lays them out (in Go memory: the guard only
// reads them).
func fakeDevice(name string) (*ibv.Device, *ibv.Context) {
	d := &ibv.Device{}
	copy(d.Name[:], name)
	return d, &ibv.Context{Device: d}
}

// DeviceOf follows every kind of object to its device; nil pointers give none, a type
// without a device is an error.
func TestDeviceOf(t *testing.T) {
	d, c := fakeDevice("mlx4_0")
	for _, o := range []any{d, c, &ibv.PD{Context: c}, &ibv.CQ{Context: c}, &ibv.CQEx{Context: c}, &ibv.QP{Context: c},
		&ibv.QPEx{QPBase: ibv.QP{Context: c}}, &ibv.SRQ{Context: c}, &ibv.WQ{Context: c}, &ibv.MR{Context: c},
		&ibv.MW{Context: c}, &ibv.AH{Context: c}, &ibv.XRCD{Context: c}, &ibv.DM{Context: c}, &ibv.CompCntr{Context: c}} {
		got, err := DeviceOf(o)
		require.NoError(t, err, "%T", o)
		assert.True(t, got == d, "%T: another device", o)
	}
	for _, o := range []any{nil, (*ibv.Context)(nil), (*ibv.QP)(nil), (*ibv.QPEx)(nil), &ibv.PD{}, &ibv.Context{}} {
		got, err := DeviceOf(o)
		require.NoError(t, err, "%T", o)
		assert.Nil(t, got, "%T", o)
	}
	_, err := DeviceOf(42)
	assert.ErrorContains(t, err, "no device known for a int")
	assert.Equal(t, "mlx4_0", DeviceName(d))
}

// A provider with the library's own check asks it once per device, skips nil objects and
// refuses another provider's device with a *DeviceError that names the function and the
// device and unwraps to EOPNOTSUPP (and to the check's own error where it failed).
func TestCheckSupported(t *testing.T) {
	mine, mctx := fakeDevice("mlx5_0")
	other, octx := fakeDevice("rxe_a")
	var asked []string
	p := &Provider{Name: "mlx5", SupportedName: "mlx5dv_is_supported", Supported: func(d *ibv.Device) (bool, error) {
		asked = append(asked, DeviceName(d))
		return d == mine, nil
	}}
	require.NoError(t, p.Check("mlx5dv_query_device", mctx, &ibv.PD{Context: mctx}, (*ibv.QP)(nil), nil))
	assert.Equal(t, []string{"mlx5_0"}, asked, "one check per device")

	err := p.Check("mlx5dv_init_obj", &ibv.QP{Context: mctx}, &ibv.CQ{Context: octx})
	var de *dl.DeviceError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, dl.DeviceError{Func: "mlx5dv_init_obj", Device: "rxe_a", Provider: "mlx5", Check: "mlx5dv_is_supported"}, *de)
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	assert.Contains(t, err.Error(), "mlx5dv_init_obj")
	assert.Contains(t, err.Error(), "rxe_a")
	_ = other

	boom := errors.New("boom")
	p.Supported = func(*ibv.Device) (bool, error) { return false, boom }
	err = p.Check("mlx5dv_query_device", mctx)
	assert.True(t, errors.Is(err, boom) && errors.Is(err, unix.EOPNOTSUPP), "%v", err)
	assert.ErrorContains(t, p.Check("f", "a string"), "f: dvguard: no device known for a string")
}

// The error names what the kernel said the device is.
func TestDeviceErrorText(t *testing.T) {
	e := &dl.DeviceError{Func: "mlx4dv_query_device", Device: "rxe_a", Provider: "mlx4", Found: DriverName(ibv.RDMADriverIDRxe), Check: "the kernel's driver id"}
	assert.Equal(t, "mlx4dv_query_device: device rxe_a is a rxe device, not a mlx4 one (the kernel's driver id); refused, the function would read its objects as mlx4's own", e.Error())
	assert.Equal(t, "driver id 999", DriverName(999))
}

func nlMsg(typ, flags uint16, seq uint32, payload []byte) []byte {
	b := binary.NativeEndian.AppendUint32(nil, uint32(unix.SizeofNlMsghdr+len(payload)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = binary.NativeEndian.AppendUint16(b, flags)
	b = binary.NativeEndian.AppendUint32(b, seq)
	b = binary.NativeEndian.AppendUint32(b, 4242)
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func devMsg(index uint32, name string) []byte {
	b := appendAttr(nil, attrDevIndex, binary.NativeEndian.AppendUint32(nil, index))
	return appendAttr(b, attrDevName, append([]byte(name), 0))
}

// The replies are read as the kernel sends them: a dump of several datagrams ended by
// NLMSG_DONE, messages of other requests skipped, an NLMSG_ERROR's errno returned; the
// device's index found by name and the driver id in the character device's reply.
func TestNetlinkReplies(t *testing.T) {
	typ := uint16(nlNLDev<<nlClientShift | cmdGet)
	var out [][]byte
	done, err := collect(&out, append(nlMsg(typ, unix.NLM_F_MULTI, 1, devMsg(0, "mlx4_0")), nlMsg(typ, unix.NLM_F_MULTI, 9, devMsg(7, "stale"))...), typ, 1)
	require.NoError(t, err)
	assert.False(t, done)
	done, err = collect(&out, append(nlMsg(typ, unix.NLM_F_MULTI, 1, devMsg(3, "rxe_a")), nlMsg(unix.NLMSG_DONE, unix.NLM_F_MULTI, 1, []byte{0, 0, 0, 0})...), typ, 1)
	require.NoError(t, err)
	assert.True(t, done)
	require.Len(t, out, 2)
	idx, err := deviceIndex(out, "rxe_a")
	require.NoError(t, err)
	assert.Equal(t, uint32(3), idx)
	_, err = deviceIndex(out, "stale")
	assert.ErrorContains(t, err, `no RDMA device "stale"`)

	var nerr [][]byte
	minus := int32(-int32(unix.ENODEV))
	done, err = collect(&nerr, nlMsg(unix.NLMSG_ERROR, 0, 2, binary.NativeEndian.AppendUint32(nil, uint32(minus))), typ, 2)
	assert.True(t, done)
	assert.True(t, errors.Is(err, unix.ENODEV), "%v", err)

	ctyp := uint16(nlNLDev<<nlClientShift | cmdGetChardev)
	reply := appendAttr(appendAttr(nil, 70, append([]byte("uverbs0"), 0)), attrDriverID, binary.NativeEndian.AppendUint32(nil, uint32(ibv.RDMADriverIDRxe)))
	var cout [][]byte
	done, err = collect(&cout, nlMsg(ctyp, 0, 3, reply), ctyp, 3)
	require.NoError(t, err)
	assert.True(t, done, "a reply that is not a dump ends at its message")
	id, err := driverID(cout, "rxe_a")
	require.NoError(t, err)
	assert.Equal(t, ibv.RDMADriverIDRxe, id)
	_, err = driverID([][]byte{appendAttr(nil, 70, []byte("uverbs0\x00"))}, "old")
	assert.ErrorContains(t, err, "carries no driver id")

	_, err = parseAttrs([]byte{8, 0, 1})
	assert.Error(t, err)
	_, err = parseAttrs([]byte{64, 0, 1, 0, 0, 0, 0, 0})
	assert.Error(t, err)
	done, err = collect(&out, []byte{1, 2, 3}, typ, 1)
	assert.True(t, done)
	assert.Error(t, err)
}

// A device the kernel does not list is an error, never a driver id (on a machine without
// RDMA netlink, the socket's error).
func TestDriverUnknownDevice(t *testing.T) {
	_, err := Driver("goverbs-no-such-device")
	require.Error(t, err)
	p := &Provider{Name: "mlx4", Driver: ibv.RDMADriverIDMlx4}
	_, c := fakeDevice("goverbs-no-such-device")
	err = p.Check("mlx4dv_query_device", c)
	var de *dl.DeviceError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.NotNil(t, de.Err)
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	assert.Contains(t, err.Error(), "cannot tell whether device goverbs-no-such-device is a mlx4 device")
}

// A provider of devices no kernel driver has (mlx5's VFIO devices) accepts a device without
// a name or sysfs path, and refuses every kernel device, its own provider's included.
func TestCheckListed(t *testing.T) {
	p := &Provider{Name: "mlx5 VFIO", Listed: "mlx5dv_get_vfio_device_list"}
	vfio, vctx := fakeDevice("")
	require.NoError(t, p.Check("mlx5dv_vfio_process_events", vctx, vfio))
	for _, name := range []string{"rxe_a", "mlx5_0"} {
		_, c := fakeDevice(name)
		err := p.Check("mlx5dv_vfio_process_events", c)
		var de *dl.DeviceError
		require.True(t, errors.As(err, &de), "%s: %v", name, err)
		assert.Equal(t, dl.DeviceError{Func: "mlx5dv_vfio_process_events", Device: name, Provider: "mlx5 VFIO",
			Check: "a device mlx5dv_get_vfio_device_list lists has no kernel device, and no name"}, *de)
		assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	}
	unnamed, uctx := fakeDevice("")
	copy(unnamed.IbdevPath[:], "/sys/class/infiniband/x")
	assert.Error(t, p.Check("f", uctx), "a sysfs path is a kernel device's")
}
