//go:build rxe

package ibv

import (
	"errors"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestExtendedVerbs drives the hand-written shims of the ctx-op inlines
// on rxe: ibv_query_device_ex (the op, and its EINVAL check),
// ibv_create_qp_ex through both its paths (ibv_create_qp when only the PD
// is set, the op create_qp_ex with send ops flags) and ibv_alloc_mw. Before
// rdma-core RxeExtended librxe has no create_qp_ex: the call fails with
// the library's EOPNOTSUPP.
func TestExtendedVerbs(t *testing.T) {
	env := rxetest.Guest(t)
	ctx := openDevice(t, env.Nodes[0].Dev)
	defer func() { require.NoError(t, ctx.CloseDevice()) }()

	attr, err := ctx.QueryDevice()
	require.NoError(t, err)
	ex, err := ctx.QueryDeviceEx(nil)
	require.NoError(t, err)
	assert.Equal(t, attr.MaxCQE, ex.OrigAttr.MaxCQE)
	assert.Equal(t, attr.MaxQP, ex.OrigAttr.MaxQP)

	_, err = ctx.QueryDeviceEx(&QueryDeviceExInput{CompMask: 1})
	assert.ErrorIs(t, err, unix.EINVAL)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "ibv_query_device_ex", e.Func)

	pd, err := ctx.AllocPD()
	require.NoError(t, err)
	defer func() { require.NoError(t, pd.Dealloc()) }()
	cq, err := ctx.CreateCQ(8, nil, nil, 0)
	require.NoError(t, err)
	defer func() { require.NoError(t, cq.Destroy()) }()

	for _, c := range []struct {
		name string
		mask QPInitAttrMask
		ops  QPCreateSendOpsFlags
	}{
		{"pd only: ibv_create_qp", QPInitAttrMaskPD, 0},
		{"send ops: create_qp_ex", QPInitAttrMaskPD | QPInitAttrMaskSendOpsFlags, QPCreateSendOpsFlagsSend},
	} {
		qp, err := ctx.CreateQPEx(&QPInitAttrEx{
			SendCQ: cq, RecvCQ: cq, QPType: QPTypeRC, PD: pd,
			Cap:      QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1},
			CompMask: uint32(c.mask), SendOpsFlags: uint64(c.ops),
		})
		if c.ops != 0 && env.Release < rxetest.RxeExtended {
			if err == nil {
				require.NoError(t, qp.Destroy())
			}
			require.ErrorIs(t, err, unix.EOPNOTSUPP, "%s: rdma-core %s's librxe has no create_qp_ex", c.name, env.RdmaCore)
			require.True(t, errors.As(err, &e), "%T: %v", err, err)
			assert.Equal(t, "ibv_create_qp_ex", e.Func)
			continue
		}
		require.NoError(t, err, c.name)
		assert.NotZero(t, qp.QPNum, c.name)
		if c.ops != 0 {
			qpx, err := qp.ToQPEx()
			require.NoError(t, err, c.name)
			assert.NotNil(t, qpx.WRSend, "%s: the provider's wr_send", c.name)
		}
		require.NoError(t, qp.Destroy(), c.name)
	}

	mw, err := pd.AllocMW(MWType2)
	if env.Release < rxetest.RxeMW {
		require.ErrorIs(t, err, unix.EOPNOTSUPP, "rdma-core %s's librxe has no memory windows", env.RdmaCore)
		require.True(t, errors.As(err, &e), "%T: %v", err, err)
		assert.Equal(t, "ibv_alloc_mw", e.Func)
		return
	}
	require.NoError(t, err)
	assert.Equal(t, MWType2, mw.Type)
	defer func() { require.NoError(t, mw.Dealloc()) }()

	// ibv_bind_mw binds type 1 windows only: EINVAL before the provider.
	qp, err := pd.CreateQP(&QPInitAttr{SendCQ: cq, RecvCQ: cq, QPType: QPTypeRC,
		Cap: QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}})
	require.NoError(t, err)
	defer func() { require.NoError(t, qp.Destroy()) }()
	err = qp.BindMW(mw, &MWBind{})
	assert.ErrorIs(t, err, unix.EINVAL)
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "ibv_bind_mw", e.Func)

	// rxe has no work queues: ibv_create_wq fails (pointer_or_null: the
	// cause is not promised), an *Error naming it.
	wq, err := ctx.CreateWQ(&WQInitAttr{WQType: WQTypeWqtRQ, MaxWR: 4, MaxSGE: 1, PD: pd, CQ: cq})
	assert.Nil(t, wq)
	require.Error(t, err)
	require.True(t, errors.As(err, &e), "%T: %v", err, err)
	assert.Equal(t, "ibv_create_wq", e.Func)
}
