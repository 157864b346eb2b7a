//go:build rxe

package reliability

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// step is the attributes and mask of a move to one state of an RC QP,
// with every attribute the ibv_modify_qp(3) table requires.
type step struct {
	attr ibv.QPAttr
	mask ibv.QPAttrMask
}

func rcSteps(remote rdma.Endpoint, gidIndex int) map[ibv.QPState]step {
	return map[ibv.QPState]step{
		ibv.QPStateInit: {ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: 1, QPAccessFlags: uint32(access)},
			ibv.QPAttrMaskState | ibv.QPAttrMaskPKeyIndex | ibv.QPAttrMaskPort | ibv.QPAttrMaskAccessFlags},
		ibv.QPStateRTR: {ibv.QPAttr{QPState: ibv.QPStateRTR, PathMTU: ibv.MTU1024, DestQPNum: remote.QPN, RQPSN: remote.PSN,
			MaxDestRdAtomic: 1, MinRNRTimer: 12,
			AHAttr: ibv.AHAttr{IsGlobal: 1, PortNum: 1, GRH: ibv.GlobalRoute{DGID: remote.GID, SGIDIndex: uint8(gidIndex), HopLimit: 64}}},
			ibv.QPAttrMaskState | ibv.QPAttrMaskAv | ibv.QPAttrMaskPathMTU | ibv.QPAttrMaskDestQPN | ibv.QPAttrMaskRQPSN | ibv.QPAttrMaskMaxDestRdAtomic | ibv.QPAttrMaskMinRNRTimer},
		ibv.QPStateRTS: {ibv.QPAttr{QPState: ibv.QPStateRTS, SQPSN: 0x10, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1},
			ibv.QPAttrMaskState | ibv.QPAttrMaskSQPSN | ibv.QPAttrMaskTimeout | ibv.QPAttrMaskRetryCnt | ibv.QPAttrMaskRNRRetry | ibv.QPAttrMaskMaxQPRdAtomic},
		ibv.QPStateSQD: {ibv.QPAttr{QPState: ibv.QPStateSQD}, ibv.QPAttrMaskState},
		ibv.QPStateErr: {ibv.QPAttr{QPState: ibv.QPStateErr}, ibv.QPAttrMaskState},
	}
}

// TestInvalidTransitions: on real RC QPs brought to each state (RESET,
// INIT, RTR, RTS, ERR), every move the ibv_modify_qp(3) table does not
// allow — a transition that does not exist, a required attribute missing,
// an attribute the transition does not take — is refused twice: by
// QP.Modify's table check (a *StateError, C not called) and, called raw
// (ibv_modify_qp through QP.Raw), by the device itself (EINVAL). Neither
// changes the QP's state, and a valid move still works afterwards.
func TestInvalidTransitions(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a, b := newNode(t, na.Dev, 4096, 64), newNode(t, nb.Dev, 4096, 64)
	peer := b.qp(t, 4)
	remote, err := peer.Endpoint(rdma.Path{GIDIndex: env.GIDIndex}, 0x20)
	require.NoError(t, err)
	steps := rcSteps(remote, env.GIDIndex)
	path := map[ibv.QPState][]ibv.QPState{
		ibv.QPStateReset: nil,
		ibv.QPStateInit:  {ibv.QPStateInit},
		ibv.QPStateRTR:   {ibv.QPStateInit, ibv.QPStateRTR},
		ibv.QPStateRTS:   {ibv.QPStateInit, ibv.QPStateRTR, ibv.QPStateRTS},
		ibv.QPStateErr:   {ibv.QPStateInit},
	}
	// at returns a new QP in state s.
	at := func(s ibv.QPState) *rdma.QP {
		q := a.qp(t, 4)
		for _, to := range path[s] {
			st := steps[to]
			require.NoError(t, q.Modify(&st.attr, st.mask), "to %s", to)
		}
		if s == ibv.QPStateErr {
			toError(t, q)
		}
		return q
	}
	type bad struct {
		from, to ibv.QPState
		drop     ibv.QPAttrMask // a required attribute left out
		add      ibv.QPAttrMask // an attribute the move does not take
	}
	var cases []bad
	targets := []ibv.QPState{ibv.QPStateInit, ibv.QPStateRTR, ibv.QPStateRTS, ibv.QPStateSQD, ibv.QPStateErr}
	allowed := map[[2]ibv.QPState]bool{
		{ibv.QPStateReset, ibv.QPStateInit}: true, {ibv.QPStateInit, ibv.QPStateInit}: true, {ibv.QPStateInit, ibv.QPStateRTR}: true,
		{ibv.QPStateRTR, ibv.QPStateRTS}: true, {ibv.QPStateRTS, ibv.QPStateRTS}: true, {ibv.QPStateRTS, ibv.QPStateSQD}: true,
		// Any state but RESET may go to ERR.
		{ibv.QPStateInit, ibv.QPStateErr}: true, {ibv.QPStateRTR, ibv.QPStateErr}: true, {ibv.QPStateRTS, ibv.QPStateErr}: true,
		{ibv.QPStateErr, ibv.QPStateErr}: true,
	}
	for _, from := range []ibv.QPState{ibv.QPStateReset, ibv.QPStateInit, ibv.QPStateRTR, ibv.QPStateRTS, ibv.QPStateErr} {
		for _, to := range targets {
			if !allowed[[2]ibv.QPState{from, to}] {
				cases = append(cases, bad{from: from, to: to})
			}
		}
	}
	cases = append(cases,
		bad{from: ibv.QPStateReset, to: ibv.QPStateInit, drop: ibv.QPAttrMaskAccessFlags},
		bad{from: ibv.QPStateReset, to: ibv.QPStateInit, drop: ibv.QPAttrMaskPort},
		bad{from: ibv.QPStateReset, to: ibv.QPStateInit, add: ibv.QPAttrMaskSQPSN},
		bad{from: ibv.QPStateReset, to: ibv.QPStateInit, add: ibv.QPAttrMaskQKey},
		bad{from: ibv.QPStateInit, to: ibv.QPStateRTR, drop: ibv.QPAttrMaskDestQPN},
		bad{from: ibv.QPStateInit, to: ibv.QPStateRTR, drop: ibv.QPAttrMaskAv},
		bad{from: ibv.QPStateInit, to: ibv.QPStateRTR, drop: ibv.QPAttrMaskRQPSN},
		bad{from: ibv.QPStateInit, to: ibv.QPStateRTR, add: ibv.QPAttrMaskSQPSN},
		bad{from: ibv.QPStateRTR, to: ibv.QPStateRTS, drop: ibv.QPAttrMaskSQPSN},
		bad{from: ibv.QPStateRTR, to: ibv.QPStateRTS, drop: ibv.QPAttrMaskTimeout},
		bad{from: ibv.QPStateRTR, to: ibv.QPStateRTS, drop: ibv.QPAttrMaskRetryCnt},
		bad{from: ibv.QPStateRTR, to: ibv.QPStateRTS, add: ibv.QPAttrMaskDestQPN},
	)

	var disagree []string
	for _, c := range cases {
		name := fmt.Sprintf("%s -> %s", c.from, c.to)
		if c.drop != 0 {
			name += " without " + c.drop.String()
		}
		if c.add != 0 {
			name += " with " + c.add.String()
		}
		q := at(c.from)
		st := steps[c.to]
		mask := st.mask&^c.drop | c.add
		if c.add == ibv.QPAttrMaskQKey {
			st.attr.QKey = 0x1111
		}

		// The table.
		badInputs.Add(1)
		err := q.Modify(&st.attr, mask)
		var se *rdma.StateError
		if assert.ErrorAs(t, err, &se, name) {
			assert.ErrorIs(t, err, rdma.ErrBadState, name)
			assert.ErrorIs(t, err, unix.EINVAL, name)
		}
		// The device.
		badInputs.Add(1)
		raw := q.Raw().Modify(&st.attr, mask)
		if raw == nil || !errors.Is(raw, unix.EINVAL) {
			disagree = append(disagree, fmt.Sprintf("%s: device: %v", name, raw))
		}
		cur, _, err := q.Query(0)
		require.NoError(t, err)
		if raw == nil {
			continue // the device moved it
		}
		assert.Equal(t, c.from, cur.QPState, "%s: state changed", name)
		// A valid move still works.
		if c.from == ibv.QPStateReset {
			st := steps[ibv.QPStateInit]
			require.NoError(t, q.Modify(&st.attr, st.mask), "%s: then to INIT", name)
		} else {
			toError(t, q)
		}
	}
	assert.Empty(t, disagree, "moves the table refuses but the device accepts (or refuses otherwise)")
	t.Logf("%d invalid moves tried on real QPs, each refused by the table and by the device", len(cases))
}
