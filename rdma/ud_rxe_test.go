//go:build rxe

package rdma

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// udNode is one node of a UD test: a device, PD, Buffer and MR, one CQ and
// UD QPs activated on port 1 with udQKey.
type udNode struct {
	dev *Device
	pd  *PD
	buf *Buffer
	mr  *MR
	cq  *CQ
	qps []*QP
	gid ibv.GID
}

const udQKey = 0x11111111

func newUDNode(t *testing.T, env *rxetest.Env, devName string, qps int) *udNode {
	t.Helper()
	n := &udNode{}
	var err error
	n.dev, n.pd = devPD(t, devName)
	n.buf, err = AllocBuffer(1 << 16)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.buf.Free()) })
	n.mr, err = n.pd.Register(n.buf.Bytes(), access)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.mr.Close()) })
	n.cq, err = n.dev.NewCQ(256, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.cq.Close()) })
	for range qps {
		qp, err := n.pd.NewQP(QPConfig{Type: ibv.QPTypeUD, SendCQ: n.cq, RecvCQ: n.cq, MaxSend: 16, MaxRecv: 16})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, qp.Close()) })
		require.NoError(t, qp.ActivateUD(1, udQKey))
		require.Equal(t, ibv.QPStateRTS, qp.State())
		n.qps = append(n.qps, qp)
	}
	n.gid, err = n.dev.GID(1, env.GIDIndex)
	require.NoError(t, err)
	return n
}

// recvAt posts on qp a receive of n bytes (plus the GRH) at off.
func (n *udNode) recvAt(t *testing.T, qp *QP, id uint64, off, size int) {
	t.Helper()
	require.NoError(t, qp.PostRecv(RecvWork{ID: id, SGEs: []ibv.SGE{n.mr.sge(t, off, GRHLen+size)}}))
}

// oneWC waits for one completion on n's CQ and requires it successful.
func (n *udNode) oneWC(t *testing.T, what string) ibv.WC {
	t.Helper()
	wc := awaitWCs(t, n.cq, 1)[0]
	require.Equal(t, ibv.WCStatusSuccess, wc.Status, "%s: %s", what, ibv.WCStatusStr(wc.Status))
	return wc
}

// TestUDPingPong: A sends to B through an address handle made from B's
// GID; B answers through one made from the receive's completion and GRH;
// every size up to the path MTU arrives intact, its GRH naming both GIDs,
// and a send longer than the MTU is refused before C is called.
func TestUDPingPong(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a, b := newUDNode(t, env, na.Dev, 1), newUDNode(t, env, nb.Dev, 1)
	qa, qb := a.qps[0], b.qps[0]
	toB, err := a.pd.NewAH(Route{GIDIndex: env.GIDIndex, DGID: b.gid})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, toB.Close()) })

	pa, err := a.dev.QueryPort(1)
	require.NoError(t, err)
	mtu := 128 << pa.ActiveMTU
	for _, size := range []int{0, 1, 64, 500, mtu - 1, mtu} {
		what := fmt.Sprintf("%d bytes", size)
		msg := bytes.Repeat([]byte{byte(size)}, size)
		for i := range msg {
			msg[i] += byte(i)
		}
		copy(a.buf.Bytes()[8192:], msg)
		b.recvAt(t, qb, 1, 0, size)
		a.recvAt(t, qa, 2, 0, size)
		require.NoError(t, qa.PostSend(SendWork{ID: 3, Op: ibv.WROpcodeSendWithImm, Flags: ibv.SendFlagsSignaled, Imm: 0xabcd,
			SGEs: []ibv.SGE{a.mr.sge(t, 8192, size)}, AH: toB, RemoteQPN: qb.Num(), RemoteQKey: udQKey}))
		sent := a.oneWC(t, what+", send")
		require.Equal(t, ibv.WCOpcodeSend, sent.Opcode)
		wc := b.oneWC(t, what+", receive")
		require.Equal(t, ibv.WCOpcodeRecv, wc.Opcode)
		require.Equal(t, uint32(GRHLen+size), wc.ByteLen, what)
		require.Equal(t, qa.Num(), wc.SrcQP, what)
		require.NotZero(t, wc.WCFlags&uint32(ibv.WCFlagsGRH), "%s: a RoCE receive carries a GRH", what)
		require.NotZero(t, wc.WCFlags&uint32(ibv.WCFlagsWithImm), what)
		require.Equal(t, uint32(0xabcd), *wc.ImmData(), what)
		require.Equal(t, msg, b.buf.Bytes()[GRHLen:GRHLen+size], what)
		grh, err := ParseGRH(b.buf.Bytes()[:GRHLen])
		require.NoError(t, err, what)
		assert.True(t, grh.IPv4, "%s: RoCE v2 over IPv4", what)
		assert.Equal(t, a.gid, grh.SGID, what)
		assert.Equal(t, b.gid, grh.DGID, what)

		// The answer goes back through an AH made from what arrived.
		back, err := b.pd.NewAHFromWC(&wc, b.buf.Bytes()[:GRHLen], 1)
		require.NoError(t, err, what)
		copy(b.buf.Bytes()[8192:], msg)
		require.NoError(t, qb.PostSend(SendWork{ID: 4, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled,
			SGEs: []ibv.SGE{b.mr.sge(t, 8192, size)}, AH: back, RemoteQPN: wc.SrcQP, RemoteQKey: udQKey}))
		b.oneWC(t, what+", answer")
		got := a.oneWC(t, what+", answer received")
		require.Equal(t, qb.Num(), got.SrcQP, what)
		require.Equal(t, msg, a.buf.Bytes()[GRHLen:GRHLen+size], what)
		grh, err = ParseGRH(a.buf.Bytes()[:GRHLen])
		require.NoError(t, err)
		assert.Equal(t, b.gid, grh.SGID, what)
		require.NoError(t, back.Close())
	}

	// Longer than the path MTU: refused, nothing posted.
	err = qa.PostSend(SendWork{Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{a.mr.sge(t, 8192, mtu+1)}, AH: toB, RemoteQPN: qb.Num(), RemoteQKey: udQKey})
	var pe *PostError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, unix.EMSGSIZE)
	require.Zero(t, pe.Posted)
	var oe *OpError
	require.ErrorAs(t, err, &oe, "refused by rdma, before any C call")
	// Without an address handle, or with one of another PD: refused.
	for what, w := range map[string]SendWork{
		"no AH":        {Op: ibv.WROpcodeSend, RemoteQPN: qb.Num(), RemoteQKey: udQKey},
		"AH of B's PD": {Op: ibv.WROpcodeSend, AH: mustAH(t, b.pd, env, a.gid), RemoteQPN: qb.Num(), RemoteQKey: udQKey},
		"QPN too big":  {Op: ibv.WROpcodeSend, AH: toB, RemoteQPN: 1 << 24, RemoteQKey: udQKey},
		"RDMA write":   {Op: ibv.WROpcodeRDMAWrite, AH: toB, RemoteQPN: qb.Num()},
	} {
		err := qa.PostSend(w)
		require.ErrorIs(t, err, unix.EINVAL, what)
		require.ErrorAs(t, err, &oe, what)
	}
	// A receive without room for the GRH is refused.
	require.ErrorIs(t, qa.PostRecv(RecvWork{SGEs: []ibv.SGE{a.mr.sge(t, 0, GRHLen-1)}}), unix.EINVAL)
	// A closed AH is an error, not a use after free.
	closed := mustAH(t, a.pd, env, b.gid)
	require.NoError(t, closed.Close())
	require.ErrorIs(t, qa.PostSend(SendWork{Op: ibv.WROpcodeSend, AH: closed, RemoteQPN: qb.Num()}), ErrClosed)
	require.ErrorAs(t, a.pd.Close(), new(*BusyError), "a PD with an AH does not close")
}

// mustAH is an AH on pd to gid, closed at the end of the test.
func mustAH(t *testing.T, pd *PD, env *rxetest.Env, gid ibv.GID) *AH {
	t.Helper()
	ah, err := pd.NewAH(Route{GIDIndex: env.GIDIndex, DGID: gid})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ah.Close()) })
	return ah
}

// TestUDMulticast: two UD QPs of node B attached to one multicast group
// both receive a send A addresses to the group; they detach, and an RC QP
// cannot attach.
func TestUDMulticast(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a, b := newUDNode(t, env, na.Dev, 1), newUDNode(t, env, nb.Dev, 2)
	// An IPv4 multicast group, as a RoCE v2 GID (IPv4-mapped).
	var mgid ibv.GID
	copy(mgid.Raw()[:], []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3})
	for _, qp := range b.qps {
		require.NoError(t, qp.AttachMulticast(mgid, 0))
	}
	require.ErrorIs(t, b.qps[0].AttachMulticast(mgid, 0), unix.EINVAL, "attached twice")
	rxetest.JoinMulticast(t, nb.Netdev, "239.1.2.3")
	toGroup := mustAH(t, a.pd, env, mgid)
	for i, qp := range b.qps {
		b.recvAt(t, qp, uint64(i), 4096*i, 64)
	}
	copy(a.buf.Bytes()[8192:], "to the group")
	require.NoError(t, a.qps[0].PostSend(SendWork{ID: 9, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled,
		SGEs: []ibv.SGE{a.mr.sge(t, 8192, 12)}, AH: toGroup, RemoteQPN: 0xffffff, RemoteQKey: udQKey}))
	a.oneWC(t, "multicast send")
	got := map[uint32]bool{}
	for _, wc := range awaitWCs(t, b.cq, 2) {
		require.Equal(t, ibv.WCStatusSuccess, wc.Status, ibv.WCStatusStr(wc.Status))
		got[wc.QPNum] = true
		require.Equal(t, "to the group", string(b.buf.Bytes()[4096*int(wc.WRID)+GRHLen:][:12]))
	}
	assert.Len(t, got, 2, "both attached QPs received the send")
	require.NoError(t, b.qps[0].DetachMulticast(mgid, 0))
	require.ErrorIs(t, b.qps[0].DetachMulticast(mgid, 0), unix.EINVAL, "detached twice")
	// b.qps[1] stays attached: its Close detaches it.
	rc, err := a.pd.NewQP(QPConfig{SendCQ: a.cq, RecvCQ: a.cq})
	require.NoError(t, err)
	defer func() { require.NoError(t, rc.Close()) }()
	require.ErrorIs(t, rc.AttachMulticast(mgid, 0), unix.EINVAL)
}
