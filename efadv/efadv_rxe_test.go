//go:build rxe

package efadv_test

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/efadv"
	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/dvguard"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// On a device that is not EFA, the efadv functions that check their device fail with
// EOPNOTSUPP (the queries by the errno they return, the creates by a NULL whose error
// names them), and the guarded ones refuse before C with a *DeviceError naming the
// function and the device: the EFA view of rxe's extended CQ (and, from rdma-core 65, of
// its extended QP) would be a pointer into rxe's object, whose operations crash.
func TestNotEFA(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	name := env.Nodes[0].Dev
	if id, err := dvguard.Driver(name); err == nil && id == ibv.RDMADriverIDEfa {
		t.Skipf("%s is an EFA device: this test is about other providers' devices", name)
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
	cq, err := ctx.CreateCQ(16, nil, nil, 0)
	require.NoError(t, err)
	defer func() { require.NoError(t, cq.Destroy()) }()

	_, err = efadv.QueryDevice(ctx)
	var e *efadv.Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "efadv_query_device", e.Func)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)

	qp, err := efadv.CreateQPEx(ctx, &ibv.QPInitAttrEx{QPType: ibv.QPTypeDriver, SendCQ: cq, RecvCQ: cq, PD: pd,
		CompMask: uint32(ibv.QPInitAttrMaskPD), Cap: ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}},
		&efadv.QPInitAttr{DriverQPType: efadv.QPDriverTypeSrd})
	assert.Nil(t, qp)
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "efadv_create_qp_ex", e.Func)

	cqx, err := ctx.CreateCQEx(&ibv.CQInitAttrEx{CQE: 16})
	require.NoError(t, err)
	defer func() { require.NoError(t, ibv.CQExToCQ(cqx).Destroy()) }()
	view, err := efadv.CQFromIBVCQEx(cqx)
	assert.Nil(t, view)
	var de *efadv.DeviceError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, efadv.DeviceError{Func: "efadv_cq_from_ibv_cq_ex", Device: name, Provider: "efa",
		Found: dvguard.DriverName(mustDriver(t, name)), Check: "the kernel's driver id"}, *de)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)

	xqp, err := ctx.CreateQPEx(&ibv.QPInitAttrEx{QPType: ibv.QPTypeRC, SendCQ: cq, RecvCQ: cq, PD: pd,
		CompMask: uint32(ibv.QPInitAttrMaskPD | ibv.QPInitAttrMaskSendOpsFlags), SendOpsFlags: uint64(ibv.QPCreateSendOpsFlagsSend),
		Cap: ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}})
	require.NoError(t, err)
	defer func() { require.NoError(t, xqp.Destroy()) }()
	qpx, err := xqp.ToQPEx()
	require.NoError(t, err)
	v, err := efadv.QPFromIBVQPEx(qpx)
	assert.Nil(t, v)
	require.True(t, errors.As(err, &de), "%v (the guard comes before the symbol's look-up, new in rdma-core 65)", err)
	assert.Equal(t, "efadv_qp_from_ibv_qp_ex", de.Func)
	assert.ErrorIs(t, err, unix.EOPNOTSUPP)
}

func mustDriver(t *testing.T, name string) ibv.RDMADriverID {
	id, err := dvguard.Driver(name)
	require.NoError(t, err)
	return id
}
