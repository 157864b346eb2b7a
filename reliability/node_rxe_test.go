//go:build rxe

package reliability

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

const access = ibv.AccessFlagsLocalWrite | ibv.AccessFlagsRemoteWrite | ibv.AccessFlagsRemoteRead

// node is one side of a test: a device, a PD, one Buffer registered as one
// MR, a completion channel and one CQ on it that all of the node's QPs
// share for sends and receives. Everything is closed, children first and
// each Close checked, at the end of the test.
type node struct {
	dev *rdma.Device
	pd  *rdma.PD
	buf *rdma.Buffer
	mr  *rdma.MR
	cc  *rdma.CompChannel
	cq  *rdma.CQ
}

func newNode(t testing.TB, devName string, bufSize, cqSize int) *node {
	t.Helper()
	n := &node{}
	var err error
	n.dev, err = rdma.Open(devName)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.dev.Close()) })
	n.pd, err = n.dev.AllocPD()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.pd.Close()) })
	n.buf, err = rdma.AllocBuffer(bufSize)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.buf.Free()) })
	n.mr, err = n.pd.Register(n.buf.Bytes(), access)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.mr.Close()) })
	n.cc, err = n.dev.NewCompChannel()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.cc.Close()) })
	n.cq, err = n.dev.NewCQ(cqSize, n.cc)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.cq.Close()) })
	return n
}

// qp creates an RC QP on the node's CQ, closed at the end of the test.
func (n *node) qp(t testing.TB, depth int) *rdma.QP {
	t.Helper()
	q, err := n.pd.NewQP(rdma.QPConfig{SendCQ: n.cq, RecvCQ: n.cq, MaxSend: depth, MaxRecv: depth})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, q.Close()) })
	return q
}

// connect connects qa (on node A) and qb (on node B) to each other.
func connect(t testing.TB, env *rxetest.Env, path rdma.Path, qa, qb *rdma.QP) {
	t.Helper()
	path.GIDIndex = env.GIDIndex
	ea, err := qa.Endpoint(path, 0x100+qa.Num())
	require.NoError(t, err)
	eb, err := qb.Endpoint(path, 0x200+qb.Num())
	require.NoError(t, err)
	require.NoError(t, qa.Connect(path, ea.PSN, eb))
	require.NoError(t, qb.Connect(path, eb.PSN, ea))
}

func (n *node) sge(t testing.TB, off, size int) ibv.SGE {
	t.Helper()
	sg, err := n.mr.SGE(off, size)
	require.NoError(t, err)
	return sg
}
