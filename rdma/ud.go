package rdma

import (
	"encoding/binary"
	"net/netip"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// GRHLen is the size of the Global Routing Header that a UD QP writes in
// front of every message it receives, in the first bytes of the receive's
// buffer (whether the message carried one or not: ibv_post_recv(3)).
const GRHLen = 40

// GRH is a received Global Routing Header, as ParseGRH reads it. On RoCE
// v2 over IPv4 the 40 bytes hold the message's IPv4 header in their last
// 20; then IPv4 is true and the GIDs are the IPv4-mapped addresses of the
// header's source and destination.
type GRH struct {
	SGID, DGID   ibv.GID
	TrafficClass uint8
	FlowLabel    uint32 // 20 bits; 0 over IPv4
	HopLimit     uint8  // the IPv4 header's TTL over IPv4
	NextHeader   uint8  // the IPv4 header's protocol over IPv4 (UDP, 17)
	PayloadLen   uint16 // the IPv4 header's total length, less its 20 bytes, over IPv4
	IPv4         bool
}

// ParseGRH reads the GRH at the start of a UD receive's buffer (its first
// GRHLen bytes), as ibv_create_ah_from_wc does: an IPv6-shaped GRH (version
// 6), or an IPv4 header in its last 20 bytes. Anything else, or fewer than
// GRHLen bytes, is an error wrapping unix.EINVAL.
func ParseGRH(b []byte) (GRH, error) {
	const op = "rdma.ParseGRH"
	var g GRH
	if len(b) < GRHLen {
		return g, invalid(op, "%d bytes: a GRH is %d", len(b), GRHLen)
	}
	if b[0]>>4 == 6 {
		vtf := binary.BigEndian.Uint32(b[0:4])
		g.TrafficClass = uint8(vtf >> 20)
		g.FlowLabel = vtf & 0xfffff
		g.PayloadLen = binary.BigEndian.Uint16(b[4:6])
		g.NextHeader, g.HopLimit = b[6], b[7]
		copy(g.SGID.Raw()[:], b[8:24])
		copy(g.DGID.Raw()[:], b[24:40])
		return g, nil
	}
	ip := b[20:40]
	if ip[0] != 0x45 || ipv4Checksum(ip) != 0 {
		return g, invalid(op, "neither an IPv6-shaped GRH nor an IPv4 header")
	}
	g.IPv4 = true
	g.TrafficClass = ip[1]
	g.PayloadLen = binary.BigEndian.Uint16(ip[2:4]) - 20
	g.HopLimit, g.NextHeader = ip[8], ip[9]
	s := netip.AddrFrom4([4]byte(ip[12:16])).As16()
	d := netip.AddrFrom4([4]byte(ip[16:20])).As16()
	*g.SGID.Raw(), *g.DGID.Raw() = s, d
	return g, nil
}

// ipv4Checksum is the one's-complement sum of an IPv4 header, 0 when its
// checksum is right.
func ipv4Checksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// grhBytes is g's memory.
func grhBytes(g *ibv.GRH) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(g)), unsafe.Sizeof(*g)) }

// ActivateUD moves a UD QP from RESET through INIT and RTR to RTS on port
// (ibv_modify_qp three times, each checked by Modify), receiving messages
// sent to qkey. Then its sends (SendWork.AH, RemoteQPN, RemoteQKey) and
// receives (which begin with a GRHLen-byte GRH) work; a send longer than
// the port's active MTU is refused.
func (q *QP) ActivateUD(port uint8, qkey uint32) error {
	const op = "rdma.QP.ActivateUD"
	if q == nil {
		return nilErr(op)
	}
	if q.typ != ibv.QPTypeUD {
		return invalid(op, "a %s QP is connected, not activated: use Connect", q.typ)
	}
	if port == 0 {
		port = 1
	}
	init := ibv.QPAttr{QPState: ibv.QPStateInit, PortNum: port, QKey: qkey}
	if err := q.Modify(&init, ibv.QPAttrMaskState|ibv.QPAttrMaskPKeyIndex|ibv.QPAttrMaskPort|ibv.QPAttrMaskQKey); err != nil {
		return opErr(op+": RESET -> INIT", err)
	}
	if err := q.Modify(&ibv.QPAttr{QPState: ibv.QPStateRTR}, ibv.QPAttrMaskState); err != nil {
		return opErr(op+": INIT -> RTR", err)
	}
	if err := q.Modify(&ibv.QPAttr{QPState: ibv.QPStateRTS}, ibv.QPAttrMaskState|ibv.QPAttrMaskSQPSN); err != nil {
		return opErr(op+": RTR -> RTS", err)
	}
	return nil
}

// learnUDMTU records port's active MTU as the longest UD message (the QP
// is held by its caller, Modify).
func (q *QP) learnUDMTU(port uint8) {
	if a, err := q.pd.dev.ctx.QueryPort(port); err == nil && a.ActiveMTU.Bytes() > 0 {
		q.udMTU.Store(int32(a.ActiveMTU.Bytes()))
	}
}

// AttachMulticast attaches the QP, a UD QP, to the multicast group gid
// (and, on InfiniBand, lid) (ibv_attach_mcast): sends to the group
// (SendWork.RemoteQPN 0xffffff, through an AH to gid) reach it. Close
// detaches what is still attached. The group must also be joined in the
// fabric, which this call does not do: on InfiniBand with the subnet
// manager, on RoCE v2 by joining the IP group on the netdev (as
// rdma_join_multicast does in the kernel).
func (q *QP) AttachMulticast(gid ibv.GID, lid uint16) error {
	const op = "rdma.QP.AttachMulticast"
	if err := q.use(op); err != nil {
		return err
	}
	defer q.done()
	if q.typ != ibv.QPTypeUD {
		return invalid(op, "only UD QPs join multicast groups, this is %s", q.typ)
	}
	q.mcastMu.Lock()
	defer q.mcastMu.Unlock()
	g := mcastGroup{gid, lid}
	if q.mcast[g] {
		return invalid(op, "the QP is attached to this group already")
	}
	if err := q.qp.AttachMcast(&gid, lid); err != nil {
		return err
	}
	if q.mcast == nil {
		q.mcast = map[mcastGroup]bool{}
	}
	q.mcast[g] = true
	return nil
}

// DetachMulticast detaches the QP from a group AttachMulticast attached
// it to (ibv_detach_mcast).
func (q *QP) DetachMulticast(gid ibv.GID, lid uint16) error {
	const op = "rdma.QP.DetachMulticast"
	if err := q.use(op); err != nil {
		return err
	}
	defer q.done()
	q.mcastMu.Lock()
	defer q.mcastMu.Unlock()
	g := mcastGroup{gid, lid}
	if !q.mcast[g] {
		return invalid(op, "the QP is not attached to this group")
	}
	if err := q.qp.DetachMcast(&gid, lid); err != nil {
		return err
	}
	delete(q.mcast, g)
	return nil
}

type mcastGroup struct {
	gid ibv.GID
	lid uint16
}

// detachAll detaches every group still attached (Close: a QP attached to
// a group cannot be destroyed, EBUSY).
func (q *QP) detachAll() error {
	q.mcastMu.Lock()
	defer q.mcastMu.Unlock()
	for g := range q.mcast {
		if err := q.qp.DetachMcast(&g.gid, g.lid); err != nil {
			return err
		}
		delete(q.mcast, g)
	}
	return nil
}
