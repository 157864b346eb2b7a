//go:build rxe

package rdma

import (
	"context"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestExtendedVerbs: a QP made with SendOps posts through ibv_wr_* and an
// extended CQ is read through ibv_start_poll and through CQ.PollEx, on
// rdma's resources; a plain QP or CQ has no Ex. Before rdma-core RxeExtended librxe makes neither
// (EOPNOTSUPP).
func TestExtendedVerbs(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	b := newSide(t, nb.Dev, QPConfig{})
	a := newSide(t, na.Dev, QPConfig{})
	_, err := a.qp.Ex()
	require.ErrorIs(t, err, unix.EINVAL)
	_, err = a.cq.Ex()
	require.ErrorIs(t, err, unix.EINVAL)
	if !requireExtendedCQ(t, a.dev) {
		// Nor a QP with send ops (librxe has no create_qp_ex).
		qp, err := a.pd.NewQP(QPConfig{SendCQ: a.cq, RecvCQ: a.cq, SendOps: ibv.QPCreateSendOpsFlagsSend})
		if err == nil {
			require.NoError(t, qp.Close())
		}
		require.ErrorIs(t, err, unix.EOPNOTSUPP, "rdma-core %s: librxe has no create_qp_ex", env.RdmaCore)
		return
	}

	cqx, err := a.dev.NewCQEx(16, a.cc, ibv.CreateCQWCFlagsByteLen|ibv.CreateCQWCFlagsQPNum)
	require.NoError(t, err)
	defer func() { require.NoError(t, cqx.Close()) }()
	qpx, err := a.pd.NewQP(QPConfig{SendCQ: cqx, RecvCQ: cqx, SendOps: ibv.QPCreateSendOpsFlagsSend | ibv.QPCreateSendOpsFlagsRDMAWrite})
	require.NoError(t, err)
	defer func() { require.NoError(t, qpx.Close()) }()

	path := Path{GIDIndex: env.GIDIndex}
	ea, err := qpx.Endpoint(path, 11)
	require.NoError(t, err)
	eb, err := b.qp.Endpoint(path, 22)
	require.NoError(t, err)
	require.NoError(t, qpx.Connect(path, 11, eb))
	require.NoError(t, b.qp.Connect(path, 22, ea))

	// Two sends, their completions read by PollEx: the fields the CQ was
	// created with, the others 0. First: the ibv_next_poll that ends the
	// getters' poll below leaves librxe before rdma-core 55 with a
	// consumer index past the producer's (rxeNextPollFixed), whose entries
	// PollEx would read.
	assert.Equal(t, env.Release < rxeNextPollFixed, cqx.exOne, "one completion per poll on rxe before %d", rxeNextPollFixed)
	x, err := qpx.Ex()
	require.NoError(t, err)
	msg := "sent with ibv_wr_send"
	copy(a.buf.Bytes(), msg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wcs := make([]ibv.WC, 2)
	for id := uint64(78); id <= 79; id++ {
		require.NoError(t, b.qp.PostRecv(RecvWork{ID: id, SGEs: []ibv.SGE{b.sge(t, 0, 256)}}))
		require.NoError(t, x.Start())
		x.WRID, x.WRFlags = id, uint32(ibv.SendFlagsSignaled)
		require.NoError(t, x.Send())
		require.NoError(t, x.SetSGE(a.mr.LKey(), a.mr.Addr(), len(msg)))
		require.NoError(t, x.Complete())
	}
	var got []ibv.WCEx
	for wcx := make([]ibv.WCEx, 4); len(got) < 2; {
		n, err := cqx.PollEx(wcx)
		require.NoError(t, err)
		got = append(got, wcx[:n]...)
		require.NoError(t, ctx.Err())
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	require.Len(t, got, 2)
	for i, w := range got {
		assert.Equal(t, uint64(78+i), w.WRID)
		assert.Equal(t, ibv.WCStatusSuccess, w.Status)
		assert.Equal(t, ibv.WCOpcodeSend, w.Opcode)
		assert.Equal(t, qpx.Num(), w.QPNum)
		assert.Zero(t, w.SrcQP, "not a field of the CQ")
	}
	for drained := 0; drained < 2; {
		n, err := b.cq.Await(ctx, wcs)
		require.NoError(t, err)
		drained += n
	}
	require.NoError(t, b.qp.PostRecv(RecvWork{ID: 5, SGEs: []ibv.SGE{b.sge(t, 0, 256)}}))
	require.NoError(t, x.Start())
	x.WRID, x.WRFlags = 77, uint32(ibv.SendFlagsSignaled)
	require.NoError(t, x.Send())
	require.NoError(t, x.SetSGE(a.mr.LKey(), a.mr.Addr(), len(msg)))
	require.NoError(t, x.Complete())

	n, err := b.cq.Await(ctx, wcs)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, msg, string(b.buf.Bytes()[:wcs[0].ByteLen]))

	// The sender's completion, through the extended poll interface.
	cx, err := cqx.Ex()
	require.NoError(t, err)
	for {
		err = cx.CallStartPoll(&ibv.PollCQAttr{})
		if err == nil {
			break
		}
		require.ErrorIs(t, err, unix.ENOENT, "ibv_start_poll: ENOENT means empty")
		require.NoError(t, ctx.Err())
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, uint64(77), cx.WRID)
	assert.Equal(t, ibv.WCStatusSuccess, cx.Status)
	op, err := cx.WCReadOpcode()
	require.NoError(t, err)
	assert.Equal(t, ibv.WCOpcodeSend, op)
	qpn, err := cx.WCReadQPNum()
	require.NoError(t, err)
	assert.Equal(t, qpx.Num(), qpn)
	require.ErrorIs(t, cx.CallNextPoll(), unix.ENOENT)
	require.NoError(t, cx.CallEndPoll())

	_, err = a.cq.PollEx(make([]ibv.WCEx, 1))
	require.ErrorIs(t, err, unix.EINVAL, "a CQ not made by NewCQEx")
}

// TestAsyncEvents: pulling node A's link down raises IBV_EVENT_PORT_ERR and
// bringing it back IBV_EVENT_PORT_ACTIVE, both seen by Device.AsyncEvent on
// the netpoller; a cancelled context ends the wait.
func TestAsyncEvents(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, _ := env.Pair(t)
	dev, err := Open(na.Dev)
	require.NoError(t, err)
	defer func() { require.NoError(t, dev.Close()) }()

	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = dev.AsyncEvent(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel2()
	rxetest.SetLink(t, na.Netdev, "down")
	ev, err := dev.AsyncEvent(ctx)
	rxetest.SetLink(t, na.Netdev, "up")
	require.NoError(t, err)
	assert.Equal(t, ibv.EventTypePortErr, ev.Type, ev.String())
	assert.Equal(t, uint32(1), ev.Port)
	for {
		ev, err = dev.AsyncEvent(ctx)
		require.NoError(t, err)
		if ev.Type == ibv.EventTypePortActive {
			break
		}
	}
	assert.Equal(t, uint32(1), ev.Port)
	// Wait until the port is usable again for the tests after this one.
	for {
		pa, err := dev.QueryPort(1)
		require.NoError(t, err)
		if pa.State == ibv.PortStateActive {
			break
		}
		require.NoError(t, ctx.Err())
		time.Sleep(10 * time.Millisecond)
	}
}
