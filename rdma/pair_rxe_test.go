//go:build rxe

package rdma

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// side is one node of a test connection: device, PD, a 64 KiB Buffer and
// its MR, a channel, one CQ and an RC QP, all closed at the end of the test
// (children first, each Close checked).
type side struct {
	dev *Device
	pd  *PD
	buf *Buffer
	mr  *MR
	cc  *CompChannel
	cq  *CQ
	qp  *QP
}

const access = ibv.AccessFlagsLocalWrite | ibv.AccessFlagsRemoteWrite | ibv.AccessFlagsRemoteRead

func newSide(t testing.TB, dev string, cfg QPConfig) *side {
	t.Helper()
	return newSideAccess(t, dev, cfg, access)
}

// newSideAccess is newSide with the MR registered for acc.
func newSideAccess(t testing.TB, dev string, cfg QPConfig, acc ibv.AccessFlags) *side {
	t.Helper()
	s := &side{}
	var err error
	s.dev, err = Open(dev)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.dev.Close()) })
	s.pd, err = s.dev.AllocPD()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.pd.Close()) })
	s.buf, err = AllocBuffer(64 << 10)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.buf.Free()) })
	s.mr, err = s.pd.Register(s.buf.Bytes(), acc)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.mr.Close()) })
	s.cc, err = s.dev.NewCompChannel()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.cc.Close()) })
	s.cq, err = s.dev.NewCQ(256, s.cc)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.cq.Close()) })
	cfg.SendCQ, cfg.RecvCQ = s.cq, s.cq
	s.qp, err = s.pd.NewQP(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.qp.Close()) })
	return s
}

// pair connects an RC QP on node A to one on node B.
func pair(t testing.TB, cfg QPConfig) (a, b *side) {
	t.Helper()
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a, b = newSide(t, na.Dev, cfg), newSide(t, nb.Dev, cfg)
	connect(t, env, a, b)
	return a, b
}

// connect connects a's QP to b's, both to RTS.
func connect(t testing.TB, env *rxetest.Env, a, b *side) {
	t.Helper()
	path := Path{GIDIndex: env.GIDIndex}
	ea, err := a.qp.Endpoint(path, 0x1234)
	require.NoError(t, err)
	eb, err := b.qp.Endpoint(path, 0x5678)
	require.NoError(t, err)
	require.NoError(t, a.qp.Connect(path, ea.PSN, eb))
	require.NoError(t, b.qp.Connect(path, eb.PSN, ea))
	require.Equal(t, ibv.QPStateRTS, a.qp.State())
}

func (s *side) sge(t testing.TB, off, n int) ibv.SGE {
	t.Helper()
	sg, err := s.mr.SGE(off, n)
	require.NoError(t, err)
	return sg
}

// devPD opens dev and allocates a PD on it, both closed (and checked) at the
// end of the test.
func devPD(t testing.TB, dev string) (*Device, *PD) {
	t.Helper()
	d, err := Open(dev)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	pd, err := d.AllocPD()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pd.Close()) })
	return d, pd
}
