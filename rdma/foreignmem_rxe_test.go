//go:build rxe

package rdma

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestDMABufAndODP: rxe (Linux 6.1) registers neither DMA-BUF memory nor
// on-demand paging: a registration of a real DMA-BUF fd (vgem's) and one of
// a Buffer with IBV_ACCESS_ON_DEMAND fail with errors matching
// unix.EOPNOTSUPP, and leave no MR behind (NoLeaks; the PD and Buffer
// close). Prefetch of an ordinary MR fails the same way.
func TestDMABufAndODP(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	env.SkipUnlessSoftRoCE(t, "refusing DMA-BUF and ODP registrations")
	dev, pd := devPD(t, env.Nodes[0].Dev)
	fd := rxetest.DMABuf(t, 1<<16)

	mr, err := pd.RegisterDMABuf(fd, 0, 1<<16, 0x10000, access)
	require.ErrorIs(t, err, unix.EOPNOTSUPP)
	require.Nil(t, mr)
	if env.Release >= 34 {
		var ce *ibv.Error
		require.ErrorAs(t, err, &ce, "the provider refuses")
		require.Equal(t, "ibv_reg_dmabuf_mr", ce.Func)
	} else {
		var me *ibv.MissingError
		require.ErrorAs(t, err, &me, "rdma-core %s has no ibv_reg_dmabuf_mr (34)", env.RdmaCore)
		require.Equal(t, "rdma-core 34", me.Since)
	}
	_, err = pd.RegisterDMABuf(-1, 0, 1, 0, access)
	require.ErrorIs(t, err, unix.EINVAL)
	_, err = pd.RegisterDMABuf(fd, 0, 0, 0, access)
	require.ErrorIs(t, err, unix.EINVAL)

	buf, err := AllocBuffer(1 << 16)
	require.NoError(t, err)
	mr, err = pd.Register(buf.Bytes(), access|ibv.AccessFlagsOnDemand)
	require.ErrorIs(t, err, unix.EOPNOTSUPP)
	require.ErrorContains(t, err, dev.Name())
	require.Nil(t, mr)
	_, err = pd.RegisterPinned(make([]byte, 4096), access|ibv.AccessFlagsOnDemand)
	require.ErrorIs(t, err, unix.EOPNOTSUPP)

	plain, err := pd.Register(buf.Bytes(), access)
	require.NoError(t, err)
	require.ErrorIs(t, plain.Prefetch(0, 4096, true), unix.EOPNOTSUPP)
	require.ErrorIs(t, plain.Prefetch(0, 1<<17, false), unix.EINVAL, "outside the MR")
	require.NoError(t, plain.Close())
	require.NoError(t, buf.Free(), "the failed registrations hold nothing")
}
