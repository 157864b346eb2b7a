package rdma

import (
	"math/bits"
	"strings"

	"github.com/goverbs/goverbs/ibv"
)

// The QP state table: for each QP type and transition, the attributes
// ibv_modify_qp requires (the tables of the ibv_modify_qp(3) page, rdma-core
// 65) and those it also accepts (the InfiniBand specification's optional
// attributes, as the kernel's ib_modify_qp_is_ok enforces them). QP.Modify
// checks a call against it before reaching C, so a mistake is named
// ("missing IBV_QP_DEST_QPN") instead of a bare EINVAL.

type transition struct{ from, to ibv.QPState }

type rule struct{ req, opt ibv.QPAttrMask }

const (
	st   = ibv.QPStateValue
	cur  = ibv.QPCurState
	pkey = ibv.QPPkeyIndex
	port = ibv.QPPort
	acc  = ibv.QPAccessFlags
	qkey = ibv.QPQkey
	av   = ibv.QPAv
	alt  = ibv.QPAltPath
	mig  = ibv.QPPathMigState
	rnrT = ibv.QPMinRNRTimer
)

// Rules per QP type family.
var (
	rcRules = map[transition]rule{
		{ibv.QpsReset, ibv.QpsInit}: {req: st | pkey | port | acc},
		{ibv.QpsInit, ibv.QpsInit}:  {req: st, opt: pkey | port | acc},
		{ibv.QpsInit, ibv.QpsRtr}: {
			req: st | av | ibv.QPPathMTU | ibv.QPDestQPN | ibv.QPRqPSN | ibv.QPMaxDestRdAtomic | rnrT,
			opt: alt | acc | pkey},
		{ibv.QpsRtr, ibv.QpsRts}: {
			req: st | ibv.QPSqPSN | ibv.QPTimeout | ibv.QPRetryCnt | ibv.QPRNRRetry | ibv.QPMaxQPRdAtomic,
			opt: cur | acc | rnrT | alt | mig},
		{ibv.QpsRts, ibv.QpsRts}: {req: st, opt: cur | acc | rnrT | alt | mig},
		{ibv.QpsRts, ibv.QpsSqd}: {req: st, opt: ibv.QPEnSqdAsyncNotify},
		{ibv.QpsSqd, ibv.QpsRts}: {req: st, opt: cur | acc | rnrT | alt | mig},
		{ibv.QpsSqd, ibv.QpsSqd}: {req: st, opt: av | alt | acc | pkey | port | ibv.QPMaxQPRdAtomic |
			ibv.QPMaxDestRdAtomic | rnrT | ibv.QPTimeout | ibv.QPRetryCnt | ibv.QPRNRRetry | mig},
	}
	ucRules = map[transition]rule{
		{ibv.QpsReset, ibv.QpsInit}: {req: st | pkey | port | acc},
		{ibv.QpsInit, ibv.QpsInit}:  {req: st, opt: pkey | port | acc},
		{ibv.QpsInit, ibv.QpsRtr}: {
			req: st | av | ibv.QPPathMTU | ibv.QPDestQPN | ibv.QPRqPSN,
			opt: alt | acc | pkey},
		{ibv.QpsRtr, ibv.QpsRts}: {req: st | ibv.QPSqPSN, opt: cur | acc | alt | mig},
		{ibv.QpsRts, ibv.QpsRts}: {req: st, opt: cur | acc | alt | mig},
		{ibv.QpsRts, ibv.QpsSqd}: {req: st, opt: ibv.QPEnSqdAsyncNotify},
		{ibv.QpsSqd, ibv.QpsRts}: {req: st, opt: cur | acc | alt | mig},
		{ibv.QpsSqd, ibv.QpsSqd}: {req: st, opt: av | alt | acc | pkey | port | mig},
		{ibv.QpsSqe, ibv.QpsRts}: {req: st, opt: cur | acc},
	}
	udRules = map[transition]rule{
		{ibv.QpsReset, ibv.QpsInit}: {req: st | pkey | port | qkey},
		{ibv.QpsInit, ibv.QpsInit}:  {req: st, opt: pkey | port | qkey},
		{ibv.QpsInit, ibv.QpsRtr}:   {req: st, opt: pkey | qkey},
		{ibv.QpsRtr, ibv.QpsRts}:    {req: st | ibv.QPSqPSN, opt: cur | qkey},
		{ibv.QpsRts, ibv.QpsRts}:    {req: st, opt: cur | qkey},
		{ibv.QpsRts, ibv.QpsSqd}:    {req: st, opt: ibv.QPEnSqdAsyncNotify},
		{ibv.QpsSqd, ibv.QpsRts}:    {req: st, opt: cur | qkey},
		{ibv.QpsSqd, ibv.QpsSqd}:    {req: st, opt: pkey | qkey},
		{ibv.QpsSqe, ibv.QpsRts}:    {req: st, opt: cur | qkey},
	}
)

func rulesFor(t ibv.QPType) map[transition]rule {
	switch t {
	case ibv.QptRC, ibv.QptXRCSend, ibv.QptXRCRecv:
		return rcRules
	case ibv.QptUC:
		return ucRules
	case ibv.QptUD:
		return udRules
	}
	return nil // other types (raw packet, driver): not checked here
}

// checkTransition checks a modify of a QP of type typ in state from with
// attr's state and mask; nil when the table allows it or does not cover
// the QP type. A mask without IBV_QP_STATE modifies attributes within the
// current state (from -> from).
func checkTransition(typ ibv.QPType, from ibv.QPState, attr *ibv.QPAttr, mask ibv.QPAttrMask) *StateError {
	rules := rulesFor(typ)
	if rules == nil {
		return nil
	}
	to := from
	if mask&st != 0 {
		to = attr.QPState
	}
	e := &StateError{QPType: typ.String(), From: from.String(), To: to.String()}
	if to == ibv.QpsReset || to == ibv.QpsErr {
		// Any state may go to RESET, any but RESET to ERR, with only the
		// state.
		if mask&st == 0 {
			e.Missing = maskNames(st)
			return e
		}
		if from == ibv.QpsReset && to == ibv.QpsErr {
			e.NoSuch = true
			return e
		}
		if extra := mask &^ (st | cur); extra != 0 {
			e.Invalid = maskNames(extra)
			return e
		}
		return nil
	}
	r, ok := rules[transition{from, to}]
	if !ok {
		e.NoSuch = true
		return e
	}
	// IBV_QP_STATE is implied by a change of state and allowed always (a
	// same-state modify may repeat it).
	if missing := r.req &^ st &^ mask; missing != 0 {
		e.Missing = maskNames(missing)
	}
	if extra := mask &^ (r.req | r.opt | st); extra != 0 {
		e.Invalid = maskNames(extra)
	}
	if e.Missing != nil || e.Invalid != nil {
		return e
	}
	return nil
}

// maskNames spells each bit of m as its C name.
func maskNames(m ibv.QPAttrMask) []string {
	var out []string
	for m != 0 {
		b := ibv.QPAttrMask(1) << bits.TrailingZeros32(uint32(m))
		m &^= b
		out = append(out, strings.TrimSpace(b.String()))
	}
	return out
}
