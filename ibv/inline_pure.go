package ibv

import "unsafe"

// IncRKey is ibv_inc_rkey (infiniband/verbs.h): the rkey with its low
// 8-bit tag (the key) incremented modulo 256, as used when rebinding a
// memory window. It cannot fail.
func IncRKey(rkey uint32) uint32 {
	const tag = 0xff
	return rkey&^tag | (rkey+1)&tag
}

// FlowLabelToUDPSport is ibv_flow_label_to_udp_sport (infiniband/verbs.h):
// the RoCEv2 UDP source port derived from a 20-bit IPv6 flow label,
// folding the high 6 bits into the low 14 and setting the two top bits
// (ports 0xC000-0xFFFF). It cannot fail.
func FlowLabelToUDPSport(fl uint32) uint16 {
	low, high := fl&0x03fff, fl&0xfc000
	low ^= high >> 14
	return uint16(low | 0xc000)
}

// IsQPTSupported is ibv_is_qpt_supported (infiniband/verbs.h): whether
// the capability mask caps (ibv_device_attr_ex.supported_qpts) has the bit
// of QP type qpt. It cannot fail.
func IsQPTSupported(caps uint32, qpt QPType) bool {
	return qpt < 32 && caps&(1<<uint32(qpt)) != 0
}

// CQExToCQ is ibv_cq_ex_to_cq (infiniband/verbs.h): the struct ibv_cq at the
// start of the extended CQ, for the calls taking a plain CQ
// ([CQ.ReqNotify], [CQ.Destroy], [CompChannel.GetCQEvent]).
func CQExToCQ(cq *CQEx) *CQ {
	return (*CQ)(unsafe.Pointer(cq))
}
