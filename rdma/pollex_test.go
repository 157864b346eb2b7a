//go:build linux && cgo && !rxe

package rdma

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/cerr"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestPollEx polls a stub provider's extended CQ through CQ.PollEx: the
// completions, in order, with the fields the CQ was created with and no
// other; an empty CQ is 0; a plain CQ is refused; start_poll's error is
// the error, naming ibv_start_poll.
func TestPollEx(t *testing.T) {
	e := newStubEnv(t)
	cq, s := e.cq(t, 64, ibv.CreateCQWCFlagsByteLen|ibv.CreateCQWCFlagsQPNum)
	q, _ := e.qp(t, QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: 64, MaxRecv: 64}, s, s, nil, false)
	wcs := make([]ibv.WCEx, 8)
	n, err := cq.PollEx(wcs)
	require.NoError(t, err)
	assert.Zero(t, n)

	s.SetReady(5)
	n, err = cq.PollEx(wcs)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	for i, w := range wcs[:n] {
		assert.Equal(t, ibv.WCStatusSuccess, w.Status)
		assert.Equal(t, q.Num(), w.QPNum)
		if i%2 == 1 { // the stub's receives, in slots 1 and 3
			assert.Equal(t, 0x7000+uint64(i), w.WRID)
			assert.Equal(t, ibv.WCOpcodeRecv, w.Opcode)
			assert.Equal(t, uint32(64+i), w.ByteLen)
		} else {
			assert.Equal(t, 0x5000+uint64(i), w.WRID)
		}
		assert.Zero(t, w.SrcQP, "not a field of the CQ")
		assert.Zero(t, w.CompletionTS, "not a field of the CQ")
	}
	n, err = cq.PollEx(wcs[:0])
	require.NoError(t, err)
	assert.Zero(t, n)

	// One completion per poll (rxe before rdma-core 59): the same
	// completions, and the stub's poll count shows no batch.
	cq.exOne = true
	s.SetReady(0)
	s.Complete(3)
	calls := s.Calls()
	n, err = cq.PollEx(wcs)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	assert.Equal(t, uint64(4), s.Calls()-calls, "three polls of one, and one that found none")
	for i, w := range wcs[:n] {
		assert.Equal(t, uint64(0x5000+5+i)+uint64((5+i)%2)*0x2000, w.WRID, "completion %d", 5+i)
	}
	n, err = cq.PollEx(wcs)
	require.NoError(t, err)
	assert.Zero(t, n)
	cq.exOne = false

	plain, _ := e.cq(t, 8, 0)
	_, err = plain.PollEx(wcs)
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)

	lone, ls := e.cq(t, 8, ibv.CreateCQWCFlagsByteLen) // its device completes for a QP it does not know
	ls.SetReady(1)
	_, err = lone.PollEx(wcs)
	var ce *cerr.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "ibv_start_poll", ce.Func)
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)
}
