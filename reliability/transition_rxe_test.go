//go:build rxe

package reliability

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		ibv.QpsInit: {ibv.QPAttr{QPState: ibv.QpsInit, PortNum: 1, QPAccessFlags: uint32(access)},
			ibv.QPStateValue | ibv.QPPkeyIndex | ibv.QPPort | ibv.QPAccessFlags},
		ibv.QpsRtr: {ibv.QPAttr{QPState: ibv.QpsRtr, PathMTU: ibv.MTU1024, DestQPNum: remote.QPN, RqPSN: remote.PSN,
			MaxDestRdAtomic: 1, MinRNRTimer: 12,
			AHAttr: ibv.AHAttr{IsGlobal: 1, PortNum: 1, GRH: ibv.GlobalRoute{DGID: remote.GID, SGIDIndex: uint8(gidIndex), HopLimit: 64}}},
			ibv.QPStateValue | ibv.QPAv | ibv.QPPathMTU | ibv.QPDestQPN | ibv.QPRqPSN | ibv.QPMaxDestRdAtomic | ibv.QPMinRNRTimer},
		ibv.QpsRts: {ibv.QPAttr{QPState: ibv.QpsRts, SqPSN: 0x10, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1},
			ibv.QPStateValue | ibv.QPSqPSN | ibv.QPTimeout | ibv.QPRetryCnt | ibv.QPRNRRetry | ibv.QPMaxQPRdAtomic},
		ibv.QpsSqd: {ibv.QPAttr{QPState: ibv.QpsSqd}, ibv.QPStateValue},
		ibv.QpsErr: {ibv.QPAttr{QPState: ibv.QpsErr}, ibv.QPStateValue},
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
		ibv.QpsReset: nil,
		ibv.QpsInit:  {ibv.QpsInit},
		ibv.QpsRtr:   {ibv.QpsInit, ibv.QpsRtr},
		ibv.QpsRts:   {ibv.QpsInit, ibv.QpsRtr, ibv.QpsRts},
		ibv.QpsErr:   {ibv.QpsInit},
	}
	// at returns a new QP in state s.
	at := func(s ibv.QPState) *rdma.QP {
		q := a.qp(t, 4)
		for _, to := range path[s] {
			st := steps[to]
			require.NoError(t, q.Modify(&st.attr, st.mask), "to %s", to)
		}
		if s == ibv.QpsErr {
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
	targets := []ibv.QPState{ibv.QpsInit, ibv.QpsRtr, ibv.QpsRts, ibv.QpsSqd, ibv.QpsErr}
	allowed := map[[2]ibv.QPState]bool{
		{ibv.QpsReset, ibv.QpsInit}: true, {ibv.QpsInit, ibv.QpsInit}: true, {ibv.QpsInit, ibv.QpsRtr}: true,
		{ibv.QpsRtr, ibv.QpsRts}: true, {ibv.QpsRts, ibv.QpsRts}: true, {ibv.QpsRts, ibv.QpsSqd}: true,
		// Any state but RESET may go to ERR.
		{ibv.QpsInit, ibv.QpsErr}: true, {ibv.QpsRtr, ibv.QpsErr}: true, {ibv.QpsRts, ibv.QpsErr}: true,
		{ibv.QpsErr, ibv.QpsErr}: true,
	}
	for _, from := range []ibv.QPState{ibv.QpsReset, ibv.QpsInit, ibv.QpsRtr, ibv.QpsRts, ibv.QpsErr} {
		for _, to := range targets {
			if !allowed[[2]ibv.QPState{from, to}] {
				cases = append(cases, bad{from: from, to: to})
			}
		}
	}
	cases = append(cases,
		bad{from: ibv.QpsReset, to: ibv.QpsInit, drop: ibv.QPAccessFlags},
		bad{from: ibv.QpsReset, to: ibv.QpsInit, drop: ibv.QPPort},
		bad{from: ibv.QpsReset, to: ibv.QpsInit, add: ibv.QPSqPSN},
		bad{from: ibv.QpsReset, to: ibv.QpsInit, add: ibv.QPQkey},
		bad{from: ibv.QpsInit, to: ibv.QpsRtr, drop: ibv.QPDestQPN},
		bad{from: ibv.QpsInit, to: ibv.QpsRtr, drop: ibv.QPAv},
		bad{from: ibv.QpsInit, to: ibv.QpsRtr, drop: ibv.QPRqPSN},
		bad{from: ibv.QpsInit, to: ibv.QpsRtr, add: ibv.QPSqPSN},
		bad{from: ibv.QpsRtr, to: ibv.QpsRts, drop: ibv.QPSqPSN},
		bad{from: ibv.QpsRtr, to: ibv.QpsRts, drop: ibv.QPTimeout},
		bad{from: ibv.QpsRtr, to: ibv.QpsRts, drop: ibv.QPRetryCnt},
		bad{from: ibv.QpsRtr, to: ibv.QpsRts, add: ibv.QPDestQPN},
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
		if c.add == ibv.QPQkey {
			st.attr.Qkey = 0x1111
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
		raw := q.Raw().Modify(&st.attr, int32(mask))
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
		if c.from == ibv.QpsReset {
			st := steps[ibv.QpsInit]
			require.NoError(t, q.Modify(&st.attr, st.mask), "%s: then to INIT", name)
		} else {
			toError(t, q)
		}
	}
	assert.Empty(t, disagree, "moves the table refuses but the device accepts (or refuses otherwise)")
	t.Logf("%d invalid moves tried on real QPs, each refused by the table and by the device", len(cases))
}
