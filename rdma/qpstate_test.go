package rdma

import (
	"errors"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

// The required attributes are the tables of ibv_modify_qp(3); each case
// below is one row, with one attribute dropped or one added.
func TestCheckTransition(t *testing.T) {
	rcRTR := st | av | ibv.QPAttrMaskPathMTU | ibv.QPAttrMaskDestQPN | ibv.QPAttrMaskRQPSN | ibv.QPAttrMaskMaxDestRdAtomic | rnrT
	rcRTS := st | ibv.QPAttrMaskSQPSN | ibv.QPAttrMaskTimeout | ibv.QPAttrMaskRetryCnt | ibv.QPAttrMaskRNRRetry | ibv.QPAttrMaskMaxQPRdAtomic
	cases := []struct {
		name    string
		typ     ibv.QPType
		from    ibv.QPState
		to      ibv.QPState
		mask    ibv.QPAttrMask
		ok      bool
		noSuch  bool
		missing []string
		invalid []string
	}{
		{"RC reset->init", ibv.QPTypeRC, ibv.QPStateReset, ibv.QPStateInit, st | pkey | port | acc, true, false, nil, nil},
		{"RC reset->init without access", ibv.QPTypeRC, ibv.QPStateReset, ibv.QPStateInit, st | pkey | port, false, false, []string{"IBV_QP_ACCESS_FLAGS"}, nil},
		{"UD reset->init needs qkey, not access", ibv.QPTypeUD, ibv.QPStateReset, ibv.QPStateInit, st | pkey | port | acc, false, false, []string{"IBV_QP_QKEY"}, []string{"IBV_QP_ACCESS_FLAGS"}},
		{"RC init->rtr", ibv.QPTypeRC, ibv.QPStateInit, ibv.QPStateRTR, rcRTR, true, false, nil, nil},
		{"RC init->rtr without dest qpn", ibv.QPTypeRC, ibv.QPStateInit, ibv.QPStateRTR, rcRTR &^ ibv.QPAttrMaskDestQPN, false, false, []string{"IBV_QP_DEST_QPN"}, nil},
		{"RC init->rtr with sq psn", ibv.QPTypeRC, ibv.QPStateInit, ibv.QPStateRTR, rcRTR | ibv.QPAttrMaskSQPSN, false, false, nil, []string{"IBV_QP_SQ_PSN"}},
		{"UC init->rtr needs no rd atomic", ibv.QPTypeUC, ibv.QPStateInit, ibv.QPStateRTR, st | av | ibv.QPAttrMaskPathMTU | ibv.QPAttrMaskDestQPN | ibv.QPAttrMaskRQPSN, true, false, nil, nil},
		{"UD init->rtr", ibv.QPTypeUD, ibv.QPStateInit, ibv.QPStateRTR, st, true, false, nil, nil},
		{"RC rtr->rts", ibv.QPTypeRC, ibv.QPStateRTR, ibv.QPStateRTS, rcRTS, true, false, nil, nil},
		{"RC rtr->rts without timeout and retry", ibv.QPTypeRC, ibv.QPStateRTR, ibv.QPStateRTS, rcRTS &^ (ibv.QPAttrMaskTimeout | ibv.QPAttrMaskRetryCnt), false, false, []string{"IBV_QP_TIMEOUT", "IBV_QP_RETRY_CNT"}, nil},
		{"UD rtr->rts", ibv.QPTypeUD, ibv.QPStateRTR, ibv.QPStateRTS, st | ibv.QPAttrMaskSQPSN, true, false, nil, nil},
		{"RC reset->rtr skips init", ibv.QPTypeRC, ibv.QPStateReset, ibv.QPStateRTR, rcRTR, false, true, nil, nil},
		{"RC rts->init goes back", ibv.QPTypeRC, ibv.QPStateRTS, ibv.QPStateInit, st | pkey | port | acc, false, true, nil, nil},
		{"any -> err", ibv.QPTypeRC, ibv.QPStateRTR, ibv.QPStateErr, st, true, false, nil, nil},
		{"any -> reset", ibv.QPTypeUD, ibv.QPStateRTS, ibv.QPStateReset, st, true, false, nil, nil},
		// The device refuses it too (rxe: EINVAL), as the kernel's
		// ib_modify_qp_is_ok table has no RESET -> ERR.
		{"RC reset -> err does not exist", ibv.QPTypeRC, ibv.QPStateReset, ibv.QPStateErr, st, false, true, nil, nil},
		{"UD reset -> err does not exist", ibv.QPTypeUD, ibv.QPStateReset, ibv.QPStateErr, st, false, true, nil, nil},
		{"-> err with other attributes", ibv.QPTypeRC, ibv.QPStateRTS, ibv.QPStateErr, st | ibv.QPAttrMaskTimeout, false, false, nil, []string{"IBV_QP_TIMEOUT"}},
		{"rts attributes without a state change", ibv.QPTypeRC, ibv.QPStateRTS, ibv.QPStateRTS, rnrT | acc, true, false, nil, nil},
		{"raw packet is not checked", ibv.QPTypeRawPacket, ibv.QPStateReset, ibv.QPStateRTS, st, true, false, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkTransition(c.typ, c.from, &ibv.QPAttr{QPState: c.to}, c.mask)
			if c.ok {
				assert.Nil(t, err)
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, c.noSuch, err.NoSuch)
			assert.Equal(t, c.missing, err.Missing)
			assert.Equal(t, c.invalid, err.Invalid)
			var e error = err
			assert.ErrorIs(t, e, ErrBadState)
			assert.ErrorIs(t, e, unix.EINVAL)
			assert.Contains(t, e.Error(), "ibv_modify_qp not called")
			assert.Contains(t, e.Error(), c.from.String()+" -> "+c.to.String())
		})
	}
}

func TestBusyError(t *testing.T) {
	var l life
	l.kind = "PD"
	l.adopt("MR")
	l.adopt("MR")
	l.adopt("QP")
	destroyed := 0
	err := l.close(func() error { destroyed++; return nil })
	require.ErrorIs(t, err, unix.EBUSY)
	var busy *BusyError
	require.True(t, errors.As(err, &busy))
	assert.Equal(t, "rdma: cannot close PD: still used by 2 MR, 1 QP; close them first", err.Error())
	assert.Zero(t, destroyed, "nothing is destroyed while children live")
	require.NoError(t, l.use("op"))
	l.done()

	l.disown("MR")
	l.disown("MR")
	l.disown("QP")
	require.NoError(t, l.close(func() error { destroyed++; return nil }))
	require.NoError(t, l.close(func() error { destroyed++; return nil }), "second Close is a no-op")
	assert.Equal(t, 1, destroyed)
	err = l.use("rdma.PD.Register")
	require.ErrorIs(t, err, ErrClosed)
	assert.Equal(t, "rdma.PD.Register: rdma: resource is closed", err.Error())
}

func TestCloseFailureLeavesOpen(t *testing.T) {
	var l life
	fail := errors.New("ibv_dealloc_pd: device busy")
	require.ErrorIs(t, l.close(func() error { return fail }), fail)
	require.NoError(t, l.use("op"), "a failed destroy leaves the resource usable")
	l.done()
	require.NoError(t, l.close(func() error { return nil }))
}

func TestBufferRegistry(t *testing.T) {
	a, err := AllocBuffer(10000)
	require.NoError(t, err)
	b, err := AllocBuffer(1)
	require.NoError(t, err)
	assert.Equal(t, 10000, a.Len())
	as := a.Bytes()
	assert.Same(t, a, buffers.holding(a.start(), a.Len()))
	assert.Same(t, a, buffers.holding(a.start()+100, 50))
	assert.Nil(t, buffers.holding(a.start()+9990, 11), "runs past the end")
	assert.Same(t, b, buffers.holding(b.start(), 1))
	heap := make([]byte, 64)
	assert.Nil(t, buffers.holding(uintptr(unsafePointer(heap)), len(heap)))
	require.NoError(t, a.Free())
	require.NoError(t, a.Free(), "second Free is a no-op")
	assert.Nil(t, buffers.holding(uintptr(unsafePointer(as)), 1), "a freed buffer is gone")
	require.NoError(t, b.Free())

	_, err = AllocBuffer(0)
	require.ErrorIs(t, err, unix.EINVAL)
}

func TestBufferBusyWhileRegistered(t *testing.T) {
	b, err := AllocBuffer(4096)
	require.NoError(t, err)
	b.adopt("MR") // what PD.Register does
	require.ErrorIs(t, b.Free(), unix.EBUSY)
	b.disown("MR")
	require.NoError(t, b.Free())
}
