package rdma

import (
	"github.com/goverbs/goverbs/ibv"
)

// Endpoint is what a peer needs to connect an RC or UC QP to this one: its
// number, first packet sequence number and address. Exchange it out of band
// (TCP, rdmacm private data, ...).
type Endpoint struct {
	QPN uint32
	PSN uint32 // 24 bits
	LID uint16 // 0 on RoCE
	GID ibv.GID
}

// Path is the local side of a connection and its reliability budget. The
// zero value of a field takes the default in brackets.
type Path struct {
	Port     uint8   // port number [1]
	GIDIndex int     // source GID index; on RoCE the IPv4-mapped RoCEv2 GID is usually 1
	MTU      ibv.MTU // path MTU [IBV_MTU_1024]
	// Timeout is the local ACK timeout exponent: 4.096 µs × 2^Timeout [14,
	// about 67 ms]. RetryCnt [7] and RNRRetry [7] bound the retries before
	// the QP fails its work requests with IBV_WC_RETRY_EXC_ERR: a dead peer
	// is noticed after about Timeout × (RetryCnt+1).
	Timeout, RetryCnt, RNRRetry uint8
	MinRNRTimer                 uint8 // [12]
	MaxRdAtomic                 uint8 // outstanding RDMA reads/atomics each way [1]
	Access                      ibv.AccessFlags
	// Access defaults to local write, remote read and remote write.
}

func (p Path) withDefaults() Path {
	if p.Port == 0 {
		p.Port = 1
	}
	if p.MTU == 0 {
		p.MTU = ibv.MTU1024
	}
	if p.Timeout == 0 {
		p.Timeout = 14
	}
	if p.RetryCnt == 0 {
		p.RetryCnt = 7
	}
	if p.RNRRetry == 0 {
		p.RNRRetry = 7
	}
	if p.MinRNRTimer == 0 {
		p.MinRNRTimer = 12
	}
	if p.MaxRdAtomic == 0 {
		p.MaxRdAtomic = 1
	}
	if p.Access == 0 {
		p.Access = ibv.AccessFlagsLocalWrite | ibv.AccessFlagsRemoteRead | ibv.AccessFlagsRemoteWrite
	}
	return p
}

// Endpoint returns this QP's endpoint for path, with psn as its first send
// PSN (ibv_query_port, ibv_query_gid).
func (q *QP) Endpoint(path Path, psn uint32) (Endpoint, error) {
	if err := q.use("rdma.QP.Endpoint"); err != nil {
		return Endpoint{}, err
	}
	q.done()
	path = path.withDefaults()
	pa, err := q.pd.dev.QueryPort(path.Port)
	if err != nil {
		return Endpoint{}, err
	}
	gid, err := q.pd.dev.GID(path.Port, path.GIDIndex)
	if err != nil {
		return Endpoint{}, err
	}
	return Endpoint{QPN: q.Num(), PSN: psn & 0xffffff, LID: pa.LID, GID: gid}, nil
}

// Connect moves an RC or UC QP from RESET through INIT and RTR to RTS,
// towards remote, sending from psn (each step an ibv_modify_qp checked by
// Modify). The route is global (GRH) whenever the remote GID is set, as
// RoCE requires.
func (q *QP) Connect(path Path, psn uint32, remote Endpoint) error {
	if q == nil {
		return nilErr("rdma.QP.Connect")
	}
	path = path.withDefaults()
	if q.typ == ibv.QPTypeUD {
		return invalid("rdma.QP.Connect", "a UD QP has no connection: move it to RTS with Modify and address each send")
	}
	init := ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: path.Port, QPAccessFlags: uint32(path.Access)}
	if err := q.Modify(&init, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskAccessFlags); err != nil {
		return opErr("rdma.QP.Connect: RESET -> INIT", err)
	}
	rtr := ibv.QPAttr{
		QPState: ibv.QPStateRTR, PathMTU: path.MTU, DestQPNum: remote.QPN, RQPSN: remote.PSN & 0xffffff,
		AHAttr: ibv.AHAttr{DLID: remote.LID, PortNum: path.Port},
	}
	// (GID's bytes are a blank field, which == ignores: compare Raw.)
	if *remote.GID.Raw() != [16]byte{} {
		rtr.AHAttr.IsGlobal = 1
		rtr.AHAttr.GRH = ibv.GlobalRoute{DGID: remote.GID, SGIDIndex: uint8(path.GIDIndex), HopLimit: 64}
	}
	mask := ibv.QPAttrMaskState | ibv.QPAttrMaskAv | ibv.QPAttrMaskPathMTU | ibv.QPAttrMaskDestQPN | ibv.QPAttrMaskRQPSN
	if q.typ != ibv.QPTypeUC {
		rtr.MaxDestRdAtomic = path.MaxRdAtomic
		rtr.MinRNRTimer = path.MinRNRTimer
		mask |= ibv.QPAttrMaskMaxDestRdAtomic | ibv.QPAttrMaskMinRNRTimer
	}
	if err := q.Modify(&rtr, mask); err != nil {
		return opErr("rdma.QP.Connect: INIT -> RTR", err)
	}
	rts := ibv.QPAttr{QPState: ibv.QPStateRTS, SQPSN: psn & 0xffffff}
	mask = ibv.QPAttrMaskState | ibv.QPAttrMaskSQPSN
	if q.typ != ibv.QPTypeUC {
		rts.Timeout, rts.RetryCnt, rts.RNRRetry, rts.MaxRdAtomic = path.Timeout, path.RetryCnt, path.RNRRetry, path.MaxRdAtomic
		mask |= ibv.QPAttrMaskTimeout | ibv.QPAttrMaskRetryCnt | ibv.QPAttrMaskRNRRetry | ibv.QPAttrMaskMaxQPRdAtomic
	}
	if err := q.Modify(&rts, mask); err != nil {
		return opErr("rdma.QP.Connect: RTR -> RTS", err)
	}
	return nil
}
