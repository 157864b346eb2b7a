//go:build rxe

package rdma

import (
	"context"
	"errors"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestCloseOrder: parents with live children refuse to close (EBUSY, the
// children named, nothing destroyed); once the children are closed the
// parents close; every second Close is a no-op and every use after Close
// is ErrClosed.
func TestCloseOrder(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, err := Open(env.Nodes[0].Dev)
	require.NoError(t, err)
	pd, err := dev.AllocPD()
	require.NoError(t, err)
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	mr, err := pd.Register(buf.Bytes(), access)
	require.NoError(t, err)
	cc, err := dev.NewCompChannel()
	require.NoError(t, err)
	cq, err := dev.NewCQ(8, cc)
	require.NoError(t, err)
	qp, err := pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq})
	require.NoError(t, err)

	busy := func(err error, want string) {
		t.Helper()
		require.ErrorIs(t, err, unix.EBUSY)
		var b *BusyError
		require.True(t, errors.As(err, &b))
		assert.Contains(t, err.Error(), want)
	}
	busy(dev.Close(), "1 CQ, 1 CompChannel, 1 PD")
	busy(pd.Close(), "1 MR, 1 QP")
	busy(cq.Close(), "1 QP")
	busy(cc.Close(), "1 CQ")
	busy(buf.Free(), "1 MR")
	// Still usable after the refused closes.
	_, err = dev.Query()
	require.NoError(t, err)
	require.NoError(t, qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1}, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags))

	require.NoError(t, qp.Close())
	require.NoError(t, qp.Close())
	require.NoError(t, mr.Close())
	require.NoError(t, cq.Close())
	require.NoError(t, cc.Close())
	require.NoError(t, pd.Close())
	require.NoError(t, buf.Free())
	require.NoError(t, dev.Close())
	require.NoError(t, dev.Close())

	wcs := make([]ibv.WC, 1)
	for name, err := range map[string]error{
		"QP.PostSend":  qp.PostSend(SendWork{Op: ibv.WROpcodeSend}),
		"QP.PostRecv":  qp.PostRecv(RecvWork{}),
		"QP.Modify":    qp.Modify(&ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState),
		"CQ.Wait":      cq.Wait(context.Background()),
		"MR.SGE":       second(mr.SGE(0, 1)),
		"CQ.Poll":      second(cq.Poll(wcs)),
		"PD.Register":  second(pd.RegisterPinned(make([]byte, 8), access)),
		"Device.NewCQ": second(dev.NewCQ(1, nil)),
		"Device.Query": second(dev.Query()),
		"PD.NewQP":     second(pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq})),
		"CC.Wait":      second(cc.Wait(context.Background())),
		"AsyncEvent":   second(dev.AsyncEvent(context.Background())),
	} {
		assert.ErrorIs(t, err, ErrClosed, name)
	}
	// Every kind of poll.
	for name, err := range map[string]error{
		"CQ.Poll":         second(cq.Poll(wcs)),
		"CQ.PollBatch":    second(cq.PollBatch(4)),
		"CQ.PollBatch(0)": second(cq.PollBatch(0)),
		"CQ.PollSpin":     second(cq.PollSpin(wcs, 3)),
		"CQ.PollOne":      second(cq.PollOne()),
	} {
		assert.ErrorIs(t, err, ErrClosed, name)
	}
}

func second[T any](_ T, err error) error { return err }

// TestNilHandles: every method on a nil handle is ErrNilHandle, never a
// nil dereference.
func TestNilHandles(t *testing.T) {
	var (
		dev *Device
		pd  *PD
		mr  *MR
		buf *Buffer
		cc  *CompChannel
		cq  *CQ
		qp  *QP
	)
	wcs := make([]ibv.WC, 1)
	for name, err := range map[string]error{
		"Device.Close":      dev.Close(),
		"Device.AllocPD":    second(dev.AllocPD()),
		"Device.NewCQ":      second(dev.NewCQ(1, nil)),
		"Device.Async":      second(dev.AsyncEvent(context.Background())),
		"PD.Close":          pd.Close(),
		"PD.NewQP":          second(pd.NewQP(QPConfig{})),
		"PD.RegisterPin":    second(pd.RegisterPinned(make([]byte, 1), access)),
		"MR.Close":          mr.Close(),
		"MR.SGE":            second(mr.SGE(0, 1)),
		"Buffer.Free":       buf.Free(),
		"CompChannel.Wait":  second(cc.Wait(context.Background())),
		"CompChannel.Close": cc.Close(),
		"CQ.Poll":           second(cq.Poll(wcs)),
		"CQ.PollBatch":      second(cq.PollBatch(4)),
		"CQ.PollBatch(0)":   second(cq.PollBatch(0)),
		"CQ.PollSpin":       second(cq.PollSpin(wcs, 3)),
		"CQ.PollOne":        second(cq.PollOne()),
		"CQ.Wait":           cq.Wait(context.Background()),
		"CQ.Close":          cq.Close(),
		"QP.PostSend":       qp.PostSend(SendWork{}),
		"QP.Modify":         qp.Modify(&ibv.QPAttr{}, 0),
		"QP.Connect":        qp.Connect(Path{}, 0, Endpoint{}),
		"QP.Close":          qp.Close(),
	} {
		assert.ErrorIs(t, err, ErrNilHandle, name)
	}
}

// TestBadInput: oversized requests reach C and fail with its errno named;
// what this package can check it refuses before C, with the reason.
func TestBadInput(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	dev, err := Open(env.Nodes[0].Dev)
	require.NoError(t, err)
	defer func() { require.NoError(t, dev.Close()) }()
	attr, err := dev.Query()
	require.NoError(t, err)
	pd, err := dev.AllocPD()
	require.NoError(t, err)
	defer func() { require.NoError(t, pd.Close()) }()

	_, err = Open("no-such-device")
	require.ErrorIs(t, err, unix.ENODEV)
	assert.Contains(t, err.Error(), env.Nodes[0].Dev, "the error lists the devices there are")

	_, err = dev.NewCQ(int(attr.MaxCQE)+1, nil)
	require.ErrorIs(t, err, unix.EINVAL)
	var cerr *ibv.Error
	require.True(t, errors.As(err, &cerr))
	assert.Equal(t, "ibv_create_cq", cerr.Func)
	_, err = dev.NewCQ(0, nil)
	require.ErrorIs(t, err, unix.EINVAL)

	cq, err := dev.NewCQ(8, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, cq.Close()) }()
	_, err = pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: int(attr.MaxQPWR) + 1})
	require.ErrorIs(t, err, unix.EINVAL)
	require.True(t, errors.As(err, &cerr))
	assert.Equal(t, "ibv_create_qp", cerr.Func)
	_, err = pd.NewQP(QPConfig{SendCQ: cq})
	require.ErrorIs(t, err, unix.EINVAL)
	_, err = pd.NewQP(QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: -1})
	require.ErrorIs(t, err, unix.EINVAL)

	// Memory: heap memory is refused, zero length is refused, a pinned
	// range at an odd offset registers exactly.
	_, err = pd.Register(make([]byte, 4096), access)
	require.ErrorIs(t, err, ErrUnpinnedMemory)
	_, err = pd.Register(nil, access)
	require.ErrorIs(t, err, unix.EINVAL)
	_, err = pd.RegisterPinned([]byte{}, access)
	require.ErrorIs(t, err, unix.EINVAL)
	heap := make([]byte, 1000)
	mr, err := pd.RegisterPinned(heap[3:700], access)
	require.NoError(t, err)
	assert.Equal(t, uint64(uintptr(unsafePointer(heap))+3), mr.Addr())
	_, err = mr.SGE(690, 8)
	require.ErrorIs(t, err, unix.EINVAL)
	require.NoError(t, mr.Close())
	buf, err := AllocBuffer(4096)
	require.NoError(t, err)
	mr, err = pd.Register(buf.Bytes()[4000:], access)
	require.NoError(t, err, "a range inside the buffer")
	require.ErrorIs(t, buf.Free(), unix.EBUSY, "the MR keeps its buffer")
	require.NoError(t, mr.Close())
	require.NoError(t, buf.Free())
	_, err = pd.Register(buf.Bytes()[:8], access)
	require.ErrorIs(t, err, ErrUnpinnedMemory, "a freed buffer is no longer registrable")
}
