//go:build rxe

package mlx5dv_test

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"github.com/goverbs/goverbs/mlx5dv"
)

// On a device that is not mlx5, mlx5dv_is_supported says so, the mlx5dv functions that
// check their device fail with EOPNOTSUPP (the queries by the errno they return, the
// creates by a NULL whose error names them), and the guarded ones refuse before C with a
// *DeviceError naming the function and the device: the mlx5 view of rxe's extended QP
// (whose work-request calls crash), a steering domain on rxe's context, and the VFIO calls,
// which take only mlx5's VFIO devices.
func TestNotMLX5(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	name := env.Nodes[0].Dev
	list, err := ibv.GetDeviceList()
	require.NoError(t, err)
	defer func() { require.NoError(t, list.Close()) }()
	var dev *ibv.Device
	for _, d := range list.All() {
		if n, err := d.GetName(); err == nil && n == name {
			dev = d
		}
	}
	require.NotNil(t, dev, "device %s", name)
	ok, err := mlx5dv.IsSupported(dev)
	require.NoError(t, err)
	if ok {
		t.Skipf("%s is an mlx5 device: this test is about other providers' devices", name)
	}

	mctx, err := mlx5dv.OpenDevice(dev, &mlx5dv.ContextAttr{})
	assert.Nil(t, mctx)
	var e *mlx5dv.Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "mlx5dv_open_device", e.Func)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)

	ctx, err := dev.Open()
	require.NoError(t, err)
	defer func() { require.NoError(t, ctx.CloseDevice()) }()
	pd, err := ctx.AllocPD()
	require.NoError(t, err)
	defer func() { require.NoError(t, pd.Dealloc()) }()
	cq, err := ctx.CreateCQ(16, nil, nil, 0)
	require.NoError(t, err)
	defer func() { require.NoError(t, cq.Destroy()) }()

	caps := mlx5dv.Context{CompMask: uint64(mlx5dv.ContextCompMaskDCODPCaps)}
	err = mlx5dv.QueryDevice(ctx, &caps)
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "mlx5dv_query_device", e.Func)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)

	qp, err := mlx5dv.CreateQP(ctx, &ibv.QPInitAttrEx{QPType: ibv.QPTypeDriver, SendCQ: cq, RecvCQ: cq, PD: pd,
		CompMask: uint32(ibv.QPInitAttrMaskPD), Cap: ibv.QPCap{MaxSendWR: 4, MaxSendSGE: 1}},
		&mlx5dv.QPInitAttr{CompMask: uint64(mlx5dv.QPInitAttrMaskDC), DCInitAttr: mlx5dv.DCInitAttr{DCType: mlx5dv.DCTypeDci}})
	assert.Nil(t, qp)
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "mlx5dv_create_qp", e.Func)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)

	refused := func(err error, fn, provider, check string) {
		t.Helper()
		var de *mlx5dv.DeviceError
		require.True(t, errors.As(err, &de), "%s: %v", fn, err)
		assert.Equal(t, mlx5dv.DeviceError{Func: fn, Device: name, Provider: provider, Check: check}, *de)
		assert.ErrorIs(t, err, unix.EOPNOTSUPP)
	}
	xqp, err := ctx.CreateQPEx(&ibv.QPInitAttrEx{QPType: ibv.QPTypeRC, SendCQ: cq, RecvCQ: cq, PD: pd,
		CompMask: uint32(ibv.QPInitAttrMaskPD | ibv.QPInitAttrMaskSendOpsFlags), SendOpsFlags: uint64(ibv.QPCreateSendOpsFlagsSend),
		Cap: ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}})
	require.NoError(t, err)
	defer func() { require.NoError(t, xqp.Destroy()) }()
	qpx, err := xqp.ToQPEx()
	require.NoError(t, err)
	view, err := mlx5dv.QPExFromIBVQPEx(qpx)
	assert.Nil(t, view)
	refused(err, "mlx5dv_qp_ex_from_ibv_qp_ex", "mlx5", "mlx5dv_is_supported")

	dom, err := mlx5dv.DrDomainCreate(ctx, mlx5dv.DrDomainTypeNicRx)
	assert.Nil(t, dom)
	refused(err, "mlx5dv_dr_domain_create", "mlx5", "mlx5dv_is_supported")

	const vfio = "a device mlx5dv_get_vfio_device_list lists has no kernel device, and no name"
	fd, err := mlx5dv.VfioGetEventsFD(ctx)
	assert.Equal(t, int32(0), fd)
	refused(err, "mlx5dv_vfio_get_events_fd", "mlx5 VFIO", vfio)
	refused(mlx5dv.VfioProcessEvents(ctx), "mlx5dv_vfio_process_events", "mlx5 VFIO", vfio)
}
