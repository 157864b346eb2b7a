//go:build rxe

package reliability

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// TestOddAndEmptyBuffers: zero-length and misaligned buffers, local and
// remote, on connected QPs. Empty sends and writes and odd addresses and
// lengths work and move exactly the bytes asked (neighbours untouched);
// a wrong key or a range past a registration completes with the
// documented error status — never a crash, never a lost work request;
// what rdma can check is refused before C.
func TestOddAndEmptyBuffers(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, b := newNode(t, na.Dev, 8192, 64), newNode(t, nb.Dev, 8192, 64)
	wcs := make([]ibv.WC, 4)
	await := func(cq *rdma.CQ) ibv.WC {
		t.Helper()
		n, err := cq.Await(ctx, wcs[:1])
		require.NoError(t, err)
		require.Equal(t, 1, n)
		return wcs[0]
	}
	pairQPs := func() (qa, qb *rdma.QP) {
		qa, qb = a.qp(t, 4), b.qp(t, 4)
		connect(t, env, rdma.Path{}, qa, qb)
		return qa, qb
	}
	fill := func(n *node, v byte) {
		for i := range n.buf.Bytes() {
			n.buf.Bytes()[i] = v
		}
	}

	qa, qb := pairQPs()
	// Zero-length sends: no SGE at all, and one SGE of length 0.
	for _, sges := range [][]ibv.SGE{nil, {a.sge(t, 0, 0)}} {
		badInputs.Add(1)
		require.NoError(t, qb.PostRecv(rdma.RecvWork{ID: 1, SGEs: []ibv.SGE{b.sge(t, 0, 64)}}))
		require.NoError(t, qa.PostSend(rdma.SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sges}))
		assert.Equal(t, ibv.WCStatusSuccess, await(a.cq).Status)
		wc := await(b.cq)
		assert.Equal(t, ibv.WCStatusSuccess, wc.Status)
		assert.Zero(t, wc.ByteLen)
	}
	// Odd address and length, both ends.
	badInputs.Add(1)
	fill(a, 0xaa)
	fill(b, 0x55)
	copy(a.buf.Bytes()[3:], "thirteen byte")
	require.NoError(t, qb.PostRecv(rdma.RecvWork{ID: 3, SGEs: []ibv.SGE{b.sge(t, 5, 13)}}))
	require.NoError(t, qa.PostSend(rdma.SendWork{ID: 4, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.sge(t, 3, 13)}}))
	assert.Equal(t, ibv.WCStatusSuccess, await(a.cq).Status)
	wc := await(b.cq)
	assert.Equal(t, ibv.WCStatusSuccess, wc.Status)
	assert.Equal(t, uint32(13), wc.ByteLen)
	assert.Equal(t, "\x55thirteen byte\x55", string(b.buf.Bytes()[4:19]))
	// An RDMA write of 7 bytes to an odd remote address; one of 0 bytes.
	badInputs.Add(2)
	copy(a.buf.Bytes()[1:], "seven b")
	for _, n := range []int{7, 0} {
		require.NoError(t, qa.PostSend(rdma.SendWork{ID: 5, Op: ibv.WROpcodeRDMAWrite, Flags: ibv.SendFlagsSignaled,
			SGEs: []ibv.SGE{a.sge(t, 1, n)}, RemoteAddr: b.mr.Addr() + 4097, RKey: b.mr.RKey()}))
		assert.Equal(t, ibv.WCStatusSuccess, await(a.cq).Status)
	}
	assert.Equal(t, "\x55seven b\x55", string(b.buf.Bytes()[4096:4105]))

	// Errors, each on a new pair (the first error ends a QP), with the
	// statuses rxe (Linux 6.1) gives them: a wrong lkey is a local QP
	// operation error, a range past the MR a local protection error, a
	// receive too short fails the receive (local QP operation error) and
	// the send (remote operation error).
	for _, c := range []struct {
		name       string
		w          func() rdma.SendWork
		recv       int          // bytes of the receive posted at B (0: none)
		want, peer ibv.WCStatus // at A, and at B when recv > 0
	}{
		{"send, wrong lkey", func() rdma.SendWork {
			sg := a.sge(t, 0, 8)
			sg.LKey ^= 0x5a5a00
			return rdma.SendWork{Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{sg}}
		}, 0, ibv.WCStatusLocQPOpErr, 0},
		{"send, past the end of the MR", func() rdma.SendWork {
			sg := a.sge(t, 8192-8, 8)
			sg.Length = 64
			return rdma.SendWork{Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{sg}}
		}, 0, ibv.WCStatusLocProtErr, 0},
		{"RDMA write, wrong rkey", func() rdma.SendWork {
			return rdma.SendWork{Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{a.sge(t, 0, 8)}, RemoteAddr: b.mr.Addr(), RKey: b.mr.RKey() ^ 0x5a5a00}
		}, 0, ibv.WCStatusRemAccessErr, 0},
		{"RDMA write, past the end of the remote MR", func() rdma.SendWork {
			return rdma.SendWork{Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{a.sge(t, 0, 64)}, RemoteAddr: b.mr.Addr() + 8192 - 8, RKey: b.mr.RKey()}
		}, 0, ibv.WCStatusRemAccessErr, 0},
		{"send larger than the receive", func() rdma.SendWork {
			return rdma.SendWork{Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{a.sge(t, 0, 64)}}
		}, 8, ibv.WCStatusRemOpErr, ibv.WCStatusLocQPOpErr},
	} {
		badInputs.Add(1)
		qa, qb := pairQPs()
		if c.recv > 0 {
			require.NoError(t, qb.PostRecv(rdma.RecvWork{ID: 7, SGEs: []ibv.SGE{b.sge(t, 0, c.recv)}}))
		}
		w := c.w()
		w.ID, w.Flags = 6, ibv.SendFlagsSignaled
		require.NoError(t, qa.PostSend(w), c.name)
		wc := await(a.cq)
		assert.Equal(t, uint64(6), wc.WRID, c.name)
		assert.Equal(t, ibv.WCStatusStr(c.want), ibv.WCStatusStr(wc.Status), c.name)
		if c.recv > 0 {
			wc := await(b.cq)
			assert.Equal(t, ibv.WCStatusStr(c.peer), ibv.WCStatusStr(wc.Status), c.name)
		}
	}
	assert.True(t, bytes.Equal(b.buf.Bytes()[8192-8:], bytes.Repeat([]byte{0x55}, 8)), "a refused write left the remote memory alone")

	// Refused before C.
	tryBad(t, []badCase{
		{"AllocBuffer(0)", func() error { _, err := rdma.AllocBuffer(0); return err }, []error{unix.EINVAL}},
		{"AllocBuffer(-1)", func() error { _, err := rdma.AllocBuffer(-1); return err }, []error{unix.EINVAL}},
		{"MR.SGE(-1, 8)", func() error { _, err := a.mr.SGE(-1, 8); return err }, []error{unix.EINVAL}},
		{"MR.SGE(0, -1)", func() error { _, err := a.mr.SGE(0, -1); return err }, []error{unix.EINVAL}},
		{"MR.SGE past the end", func() error { _, err := a.mr.SGE(8190, 8); return err }, []error{unix.EINVAL}},
		{"PD.Register of nothing", func() error { _, err := a.pd.Register(a.buf.Bytes()[:0], access); return err }, []error{unix.EINVAL}},
		{"PD.RegisterPinned of nothing", func() error { _, err := a.pd.RegisterPinned(nil, access); return err }, []error{unix.EINVAL}},
		{"PD.Register of Go memory", func() error { _, err := a.pd.Register(make([]byte, 64), access); return err }, []error{rdma.ErrUnpinnedMemory}},
		{"QP.PostSend of nothing", func() error { return qa.PostSend() }, []error{unix.EINVAL}},
		{"QP.PostRecv with too many SGEs", func() error {
			return qb.PostRecv(rdma.RecvWork{SGEs: []ibv.SGE{b.sge(t, 0, 8), b.sge(t, 8, 8)}})
		}, []error{unix.EINVAL}},
	})
}
