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
	st   = ibv.QPAttrMaskState
	cur  = ibv.QPAttrMaskCurState
	pkey = ibv.QPAttrMaskPKeyIndex
	port = ibv.QPAttrMaskPort
	acc  = ibv.QPAttrMaskAccessFlags
	qkey = ibv.QPAttrMaskQKey
	av   = ibv.QPAttrMaskAv
	alt  = ibv.QPAttrMaskAltPath
	mig  = ibv.QPAttrMaskPathMigState
	rnrT = ibv.QPAttrMaskMinRNRTimer
)

// Rules per QP type family.
var (
	rcRules = map[transition]rule{
		{ibv.QPStateReset, ibv.QPStateInit}: {req: st | pkey | port | acc},
		{ibv.QPStateInit, ibv.QPStateInit}:  {req: st, opt: pkey | port | acc},
		{ibv.QPStateInit, ibv.QPStateRTR}: {
			req: st | av | ibv.QPAttrMaskPathMTU | ibv.QPAttrMaskDestQPN | ibv.QPAttrMaskRQPSN | ibv.QPAttrMaskMaxDestRdAtomic | rnrT,
			opt: alt | acc | pkey},
		{ibv.QPStateRTR, ibv.QPStateRTS}: {
			req: st | ibv.QPAttrMaskSQPSN | ibv.QPAttrMaskTimeout | ibv.QPAttrMaskRetryCnt | ibv.QPAttrMaskRNRRetry | ibv.QPAttrMaskMaxQPRdAtomic,
			opt: cur | acc | rnrT | alt | mig},
		{ibv.QPStateRTS, ibv.QPStateRTS}: {req: st, opt: cur | acc | rnrT | alt | mig},
		{ibv.QPStateRTS, ibv.QPStateSQD}: {req: st, opt: ibv.QPAttrMaskEnSQDAsyncNotify},
		{ibv.QPStateSQD, ibv.QPStateRTS}: {req: st, opt: cur | acc | rnrT | alt | mig},
		{ibv.QPStateSQD, ibv.QPStateSQD}: {req: st, opt: av | alt | acc | pkey | port | ibv.QPAttrMaskMaxQPRdAtomic |
			ibv.QPAttrMaskMaxDestRdAtomic | rnrT | ibv.QPAttrMaskTimeout | ibv.QPAttrMaskRetryCnt | ibv.QPAttrMaskRNRRetry | mig},
	}
	ucRules = map[transition]rule{
		{ibv.QPStateReset, ibv.QPStateInit}: {req: st | pkey | port | acc},
		{ibv.QPStateInit, ibv.QPStateInit}:  {req: st, opt: pkey | port | acc},
		{ibv.QPStateInit, ibv.QPStateRTR}: {
			req: st | av | ibv.QPAttrMaskPathMTU | ibv.QPAttrMaskDestQPN | ibv.QPAttrMaskRQPSN,
			opt: alt | acc | pkey},
		{ibv.QPStateRTR, ibv.QPStateRTS}: {req: st | ibv.QPAttrMaskSQPSN, opt: cur | acc | alt | mig},
		{ibv.QPStateRTS, ibv.QPStateRTS}: {req: st, opt: cur | acc | alt | mig},
		{ibv.QPStateRTS, ibv.QPStateSQD}: {req: st, opt: ibv.QPAttrMaskEnSQDAsyncNotify},
		{ibv.QPStateSQD, ibv.QPStateRTS}: {req: st, opt: cur | acc | alt | mig},
		{ibv.QPStateSQD, ibv.QPStateSQD}: {req: st, opt: av | alt | acc | pkey | port | mig},
		{ibv.QPStateSQE, ibv.QPStateRTS}: {req: st, opt: cur | acc},
	}
	udRules = map[transition]rule{
		{ibv.QPStateReset, ibv.QPStateInit}: {req: st | pkey | port | qkey},
		{ibv.QPStateInit, ibv.QPStateInit}:  {req: st, opt: pkey | port | qkey},
		{ibv.QPStateInit, ibv.QPStateRTR}:   {req: st, opt: pkey | qkey},
		{ibv.QPStateRTR, ibv.QPStateRTS}:    {req: st | ibv.QPAttrMaskSQPSN, opt: cur | qkey},
		{ibv.QPStateRTS, ibv.QPStateRTS}:    {req: st, opt: cur | qkey},
		{ibv.QPStateRTS, ibv.QPStateSQD}:    {req: st, opt: ibv.QPAttrMaskEnSQDAsyncNotify},
		{ibv.QPStateSQD, ibv.QPStateRTS}:    {req: st, opt: cur | qkey},
		{ibv.QPStateSQD, ibv.QPStateSQD}:    {req: st, opt: pkey | qkey},
		{ibv.QPStateSQE, ibv.QPStateRTS}:    {req: st, opt: cur | qkey},
	}
)

func rulesFor(t ibv.QPType) map[transition]rule {
	switch t {
	case ibv.QPTypeRC, ibv.QPTypeXRCSend, ibv.QPTypeXRCRecv:
		return rcRules
	case ibv.QPTypeUC:
		return ucRules
	case ibv.QPTypeUD:
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
	if to == ibv.QPStateReset || to == ibv.QPStateErr {
		// Any state may go to RESET, any but RESET to ERR, with only the
		// state.
		if mask&st == 0 {
			e.Missing = maskNames(st)
			return e
		}
		if from == ibv.QPStateReset && to == ibv.QPStateErr {
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
