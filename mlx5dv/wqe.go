package mlx5dv

import (
	"encoding/binary"
	"unsafe"
)

// The static inline WQE and CQE helpers of mlx5dv.h in Go. Each stores the
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

// SetCtrlSeg is mlx5dv_set_ctrl_seg (infiniband/mlx5dv.h): it fills the
// control segment of a WQE. pi is the WQEBB number of the WQE's first block
// (wrapping at 0xffff), opcode and opmod the operation and its modifier,
// qpNum the QP or SQ number (its low 24 bits), fmCeSe the fence mode,
// completion and solicited-event bits ([WqeCtrlCQUpdate], [WqeCtrlSolicited], [WqeCtrlFence]), ds the
// WQE size in 16-byte units, signature the WQE signature. imm is stored as it
// is, not byte-swapped: the caller prepares it for the opcode (as is for
// immediate data, big-endian for an invalidation key), as the header says.
// The two bytes of dci_stream_channel_id are left as they were; the SSE3
// version mlx5dv_x86_set_ctrl_seg writes the same bytes and zeroes those.
func SetCtrlSeg(seg *WqeCtrlSeg, pi uint16, opcode, opmod uint8, qpNum uint32, fmCeSe, ds, signature uint8, imm uint32) {
	be32(&seg.OpmodIdxOpcode, uint32(opmod)<<24|uint32(pi)<<8|uint32(opcode))
	be32(&seg.QPNDs, qpNum<<8|uint32(ds))
	seg.FmCeSe = fmCeSe
	seg.Signature = signature
	seg.Imm = imm
}

// SetDgramSeg is mlx5dv_set_dgram_seg (infiniband/mlx5dv.h): it fills the
// address vector of a datagram segment (UD, or DC with the access key). key
// is the Q_Key or DC access key (64 bits, the reserved half of a Q_Key 0),
// dqpDct the destination QP or DCT number, ext the address vector extension
// bit (its low bit), statRateSL the static rate and SL or Ethernet priority,
// flMlid force-loopback and source LID bits, rlid the remote LID, rmac the
// remote MAC, tclass and hopLimit the GRH or IP traffic class and hop limit,
// grhGIDFl the GRH, source GID index and flow label word, rgid the remote
// GID or IP address.
func SetDgramSeg(seg *WqeDatagramSeg, key uint64, dqpDct uint32, ext, statRateSL, flMlid uint8, rlid uint16,
	rmac [6]byte, tclass, hopLimit uint8, grhGIDFl uint32, rgid [16]byte) {
	be64(seg.Av.Key.DCKey(), key)
	be32(&seg.Av.DqpDCT, uint32(ext)<<31|dqpDct)
	seg.Av.StatRateSL = statRateSL
	seg.Av.FlMlid = flMlid
	be16(&seg.Av.Rlid, rlid)
	seg.Av.Rmac = rmac
	seg.Av.Tclass = tclass
	seg.Av.HopLimit = hopLimit
	be32(&seg.Av.GRHGIDFl, grhGIDFl)
	seg.Av.Rgid = rgid
}

// SetDataSeg is mlx5dv_set_data_seg (infiniband/mlx5dv.h): it fills a data
// (scatter/gather) segment with a byte count, the memory key and the address.
// The SSE3 version mlx5dv_x86_set_data_seg writes the same 16 bytes.
func SetDataSeg(seg *WqeDataSeg, length, lkey uint32, address uint64) {
	be32(&seg.ByteCount, length)
	be32(&seg.LKey, lkey)
	be64(&seg.Addr, address)
}

// SetEthSeg is mlx5dv_set_eth_seg (infiniband/mlx5dv.h): it fills the
// Ethernet segment of a raw packet WQE: csFlags ([EthWqeL3Csum],
// [EthWqeL4Csum]), mss (the TCP payload per packet of a TSO WQE, else 0) and
// the inlined packet headers, whose length is stored as inline_hdr_sz and
// which are copied from inline_hdr_start on. As in C, headers longer than the
// segment's 18 bytes of inline_hdr_start and inline_hdr continue past the
// segment, into the WQE memory that follows: the caller owns it. It panics
// when inlineHdr is longer than 65535 bytes, which inline_hdr_sz cannot hold.
func SetEthSeg(seg *WqeEthSeg, csFlags uint8, mss uint16, inlineHdr []byte) {
	if len(inlineHdr) > 0xffff {
		panic("mlx5dv.SetEthSeg: more than 65535 bytes of inline headers")
	}
	seg.CsFlags = csFlags
	be16(&seg.Mss, mss)
	be16(&seg.InlineHdrSz, uint16(len(inlineHdr)))
	if len(inlineHdr) > 0 {
		copy(unsafe.Slice(&seg.InlineHdrStart[0], len(inlineHdr)), inlineHdr)
	}
}

// GetCQEOwner is mlx5dv_get_cqe_owner (infiniband/mlx5dv.h): the owner bit of
// a CQE (op_own bit 0), which the hardware flips on each pass of the ring.
func GetCQEOwner(cqe *Cqe64) uint8 { return cqe.OpOwn & 0x1 }

// SetCQEOwner is mlx5dv_set_cqe_owner (infiniband/mlx5dv.h): it sets the owner
// bit of a CQE to the low bit of val, keeping the other bits of op_own.
func SetCQEOwner(cqe *Cqe64, val uint8) { cqe.OpOwn = val&0x1 | cqe.OpOwn&^0x1 }

// GetCQESe is mlx5dv_get_cqe_se (infiniband/mlx5dv.h): the solicited-event
// bit of a CQE (op_own bit 1).
func GetCQESe(cqe *Cqe64) uint8 { return cqe.OpOwn >> 1 & 0x1 }

// GetCQEFormat is mlx5dv_get_cqe_format (infiniband/mlx5dv.h): the CQE format
// (op_own bits 2-3; compressed CQEs have their own).
func GetCQEFormat(cqe *Cqe64) uint8 { return cqe.OpOwn >> 2 & 0x3 }

// GetCQEOpcode is mlx5dv_get_cqe_opcode (infiniband/mlx5dv.h): the CQE opcode
// (op_own bits 4-7: [CQEReq], [CQERespSend], [CQEReqErr], ...).
func GetCQEOpcode(cqe *Cqe64) uint8 { return cqe.OpOwn >> 4 }

// TSToNS is mlx5dv_ts_to_ns (infiniband/mlx5dv.h): a device timestamp (host
// byte order, in HCA core clock cycles) as nanoseconds of wall-clock time,
// from the clock info [GetClockInfo] returned. The further the timestamp is
// from the clock info's last update, the less accurate the conversion; a
// timestamp more than half the counter's range after it is taken as older.
// The arithmetic is C's, in uint64 (modulo 2^64); a shift of 64 or more, which
// C leaves undefined, gives 0 here.
func TSToNS(clockInfo *ClockInfo, deviceTimestamp uint64) uint64 {
	delta := (deviceTimestamp - clockInfo.LastCycles) & clockInfo.Mask
	nsec := clockInfo.Nsec
	if delta > clockInfo.Mask/2 {
		delta = (clockInfo.LastCycles - deviceTimestamp) & clockInfo.Mask
		nsec -= (delta*uint64(clockInfo.Mult) - clockInfo.Frac) >> clockInfo.Shift
	} else {
		nsec += (delta*uint64(clockInfo.Mult) + clockInfo.Frac) >> clockInfo.Shift
	}
	return nsec
}
