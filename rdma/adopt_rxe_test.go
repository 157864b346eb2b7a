//go:build rxe

package rdma

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestAdopt: a QP and an AH made with ibv on a PD's and CQ's Raw handles,
// adopted, keep their parents open (a *BusyError naming them) until their
// Close, which destroys them; adopting on a closed parent fails; an
// unadopted raw QP makes the PD's Close fail in C (EBUSY) and the PD stays
// usable.
func TestAdopt(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, pd := devPD(t, env.Nodes[0].Dev)
	cq, err := dev.NewCQ(16, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cq.Close()) })

	init := ibv.QPInitAttr{SendCQ: cq.Raw(), RecvCQ: cq.Raw(), QPType: ibv.QPTypeRC,
		Cap: ibv.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}}
	raw, err := pd.Raw().CreateQP(&init)
	require.NoError(t, err)
	qp, err := Adopt("ibv.QP", raw.Destroy, pd, cq, (*SRQ)(nil))
	require.NoError(t, err)
	gid, err := dev.GID(1, env.GIDIndex)
	require.NoError(t, err)
	attr := ibv.AHAttr{IsGlobal: 1, PortNum: 1, GRH: ibv.GlobalRoute{DGID: gid, SGIDIndex: uint8(env.GIDIndex), HopLimit: 1}}
	rawAH, err := pd.Raw().CreateAH(&attr)
	require.NoError(t, err)
	ah, err := Adopt("ibv.AH", rawAH.Destroy, pd)
	require.NoError(t, err)

	var busy *BusyError
	require.ErrorAs(t, pd.Close(), &busy)
	assert.Equal(t, map[string]int{"ibv.QP": 1, "ibv.AH": 1}, busy.Children)
	require.ErrorAs(t, cq.Close(), &busy)
	assert.Equal(t, map[string]int{"ibv.QP": 1}, busy.Children)
	require.NoError(t, qp.Close())
	require.NoError(t, qp.Close(), "a second Close does nothing")
	require.NoError(t, ah.Close())

	// Not adopted: the kernel refuses the PD's dealloc; nothing breaks.
	raw, err = pd.Raw().CreateQP(&init)
	require.NoError(t, err)
	var ce *ibv.Error
	require.ErrorAs(t, pd.Close(), &ce)
	assert.Equal(t, "ibv_dealloc_pd", ce.Func)
	require.NoError(t, raw.Destroy())
	other, err := dev.AllocPD()
	require.NoError(t, err, "the device is fine")
	require.NoError(t, other.Close())
	_, err = Adopt("ibv.QP", func() error { return nil }, other)
	require.ErrorIs(t, err, ErrClosed)
	_, err = Adopt("x", nil, pd)
	require.Error(t, err)
}
