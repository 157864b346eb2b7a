package mlx4dv

import (
	"encoding/binary"
	"unsafe"
)

// The static inline WQE and CQE helpers of mlx4dv.h in Go. Each stores the
// same bytes as its C inline: the big-endian (__be) members through
// encoding/binary, whatever the host's byte order, the others as they are.
// They call nothing and cannot fail; the segment is the caller's memory (a
// send queue entry, a CQE), typically reached as
// (*WqeCtrlSeg)(unsafe.Pointer(&sq[off])). wqe_test.go compiles each C
// inline against the pinned headers of rdma-core 44 and 65 and compares the
// bytes, on a table and a fuzz target.

// be32 stores v big-endian in the 4 bytes of p.
func be32(p *uint32, v uint32) { binary.BigEndian.PutUint32((*[4]byte)(unsafe.Pointer(p))[:], v) }

// be16 stores v big-endian in the 2 bytes of p.
func be16(p *uint16, v uint16) { binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(p))[:], v) }

// be64 stores v big-endian in the 8 bytes of p.
func be64(p *uint64, v uint64) { binary.BigEndian.PutUint64((*[8]byte)(unsafe.Pointer(p))[:], v) }

// GetCQEOwner is mlx4dv_get_cqe_owner (infiniband/mlx4dv.h): the owner bit of
// a CQE (owner_sr_opcode & [CQEOwnerMask], 0x80 or 0), which the hardware
// flips on each pass of the ring.
func GetCQEOwner(cqe *CQE) uint8 { return cqe.OwnerSrOpcode & uint8(CQEOwnerMask) }

// SetCQEOwner is mlx4dv_set_cqe_owner (infiniband/mlx4dv.h): it sets the owner
// bit of a CQE to the [CQEOwnerMask] bit of val, keeping the other bits.
func SetCQEOwner(cqe *CQE, val uint8) {
	cqe.OwnerSrOpcode = val&uint8(CQEOwnerMask) | cqe.OwnerSrOpcode&^uint8(CQEOwnerMask)
}

// GetCQEOpcode is mlx4dv_get_cqe_opcode (infiniband/mlx4dv.h): the CQE opcode
// (owner_sr_opcode & [CQEOpcodeMask]).
func GetCQEOpcode(cqe *CQE) uint8 { return cqe.OwnerSrOpcode & uint8(CQEOpcodeMask) }

// SetCtrlSeg is mlx4dv_set_ctrl_seg (infiniband/mlx4dv.h): it fills the
// control segment of a WQE: ownerOpcode (the owner bit and the opcode),
// fenceSize (the fence bit and the WQE size in 16-byte units), srcrbFlags
// (the high 24 bits the source remote buffer, the low 8 flags:
// [WqeCtrlSolicit], [WqeCtrlCQUpdate], ...). imm is stored as it is, not
// byte-swapped: the caller prepares it for the opcode (as is for immediate
// data, big-endian for an invalidation key), as the header says. The three
// reserved bytes before fence_size are left as they were.
func SetCtrlSeg(seg *WqeCtrlSeg, ownerOpcode uint32, fenceSize uint8, srcrbFlags, imm uint32) {
	be32(&seg.OwnerOpcode, ownerOpcode)
	seg.WqeCtrlSegAnon0.Anon0().FenceSize = fenceSize
	be32(seg.SrcrbFlags(), srcrbFlags)
	seg.Imm = imm
}

// SetDgramSeg is mlx4dv_set_dgram_seg (infiniband/mlx4dv.h): it fills a
// datagram segment: the address vector (portPD the port number and protection
// domain, gSLID the GRH bit and source LID, dlid the remote LID, gidIndex the
// index into the port's GID table, statRate the static rate, hopLimit,
// slTclassFlowlabel, dgid the remote GID), dqpn the destination QP number,
// qkey, vlan and mac the remote MAC. The reserved bytes of the address vector
// are left as they were.
func SetDgramSeg(seg *WqeDatagramSeg, portPD uint32, gSLID uint8, dlid uint16, gidIndex, statRate, hopLimit uint8,
	slTclassFlowlabel uint32, dgid [16]byte, dqpn, qkey uint32, vlan uint16, mac [6]byte) {
	be32(&seg.Av.PortPD, portPD)
	seg.Av.GSLID = gSLID
	be16(&seg.Av.DLID, dlid)
	seg.Av.GIDIndex = gidIndex
	seg.Av.StatRate = statRate
	seg.Av.HopLimit = hopLimit
	be32(&seg.Av.SLTclassFlowlabel, slTclassFlowlabel)
	seg.Av.DGID = dgid
	be32(&seg.Dqpn, dqpn)
	be32(&seg.QKey, qkey)
	be16(&seg.VLAN, vlan)
	seg.MAC = mac
}

// SetDataSeg is mlx4dv_set_data_seg (infiniband/mlx4dv.h): it fills a data
// (scatter/gather) segment with a byte count, the memory key and the address.
func SetDataSeg(seg *WqeDataSeg, length, lkey uint32, address uint64) {
	be32(&seg.ByteCount, length)
	be32(&seg.LKey, lkey)
	be64(&seg.Addr, address)
}
