package main

import (
	"encoding/binary"

	"github.com/goverbs/goverbs/ibv"
)

// Fake devices for the formatting tests: no RDMA device is needed.

// beGUID is a GUID as ibv_device_attr holds it: big-endian in memory.
func beGUID(b [8]byte) uint64 {
	return binary.NativeEndian.Uint64(b[:])
}

// gidEntry is a GID table entry of the given bytes and type.
func gidEntry(index uint32, raw [16]byte, typ ibv.GIDType) ibv.GIDEntry {
	var e ibv.GIDEntry
	*e.GID.Raw() = raw
	e.GIDIndex, e.GIDType = index, uint32(typ)
	return e
}

// roceDevice is a soft-RoCE-like device with one Ethernet port.
func roceDevice() *deviceInfo {
	d := &deviceInfo{Name: "rxe_x", Transport: ibv.TransportTypeIB, CompVectors: 3}
	a := &d.Attr.OrigAttr
	copy(a.FwVer[:], "1.2.3")
	a.NodeGUID = beGUID([8]byte{0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55})
	a.SysImageGUID = beGUID([8]byte{0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x56})
	a.VendorID, a.VendorPartID, a.HwVer, a.PhysPortCnt = 0xffffff, 7, 0x2a, 1
	a.MaxMRSize, a.PageSizeCap = 1<<40, 0xfffff000
	a.MaxQP, a.MaxQPWR, a.MaxSGE, a.MaxSGERd, a.MaxCQ, a.MaxCQE = 100, 200, 30, 31, 300, 400
	a.DeviceCapFlags = uint32(ibv.DeviceCapFlagsBadPKeyCntr | ibv.DeviceCapFlagsXRC)
	a.MaxMR, a.MaxPD, a.MaxQPRdAtom, a.MaxResRdAtom, a.MaxQPInitRdAtom = 500, 600, 16, 700, 17
	a.AtomicCap = ibv.AtomicCapGlob
	a.MaxMW, a.MaxMcastGrp, a.MaxMcastQPAttach, a.MaxTotalMcastQPAttach, a.MaxAH = 800, 9, 10, 90, 1000
	a.MaxSRQ, a.MaxSRQWR, a.MaxSRQSGE, a.MaxPkeys, a.LocalCAAckDelay = 11, 12, 13, 64, 15
	d.Attr.DeviceCapFlagsEx = uint64(a.DeviceCapFlags)
	d.Ports = []portInfo{{Num: 1, Attr: ibv.PortAttr{
		State: ibv.PortStateDown, MaxMTU: ibv.MTU4096, ActiveMTU: ibv.MTU1024, GIDTblLen: 16,
		PortCapFlags: uint32(ibv.PortCapFlagsCMSup), MaxMsgSz: 1 << 23, BadPKeyCntr: 1, QKeyViolCntr: 2,
		PKeyTblLen: 1, MaxVlNum: 1, ActiveWidth: 2, ActiveSpeed: 32, PhysState: 3,
		LinkLayer: uint8(ibv.LinkLayerEthernet),
	}, GIDs: []ibv.GIDEntry{
		gidEntry(0, [16]byte{0xfe, 0x80, 8: 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55}, ibv.GIDTypeRoCEV1),
		gidEntry(3, [16]byte{10: 0xff, 0xff, 192, 0, 2, 9}, ibv.GIDTypeRoCEV2),
	}}}
	return d
}

// ibDevice is an InfiniBand HCA with two ports and the capabilities rxe lacks.
func ibDevice() *deviceInfo {
	d := &deviceInfo{Name: "mlx_y", Transport: ibv.TransportTypeIB, BoardID: "MT_0000000001", CompVectors: 8}
	a := &d.Attr.OrigAttr
	copy(a.FwVer[:], "20.1.1000")
	a.NodeGUID = beGUID([8]byte{0xb8, 0x59, 0x9f, 0x03, 0x00, 0x0a, 0x0b, 0x0c})
	a.SysImageGUID = a.NodeGUID
	a.VendorID, a.VendorPartID, a.PhysPortCnt = 0x02c9, 4123, 2
	a.MaxFmr, a.MaxMapPerFmr = 4, 5
	a.DeviceCapFlags = 0x80000000 | uint32(ibv.DeviceCapFlagsResizeMaxWR)
	x := &d.Attr
	x.ODPCaps.GeneralCaps = uint64(ibv.ODPGeneralCapsSupport | ibv.ODPGeneralCapsSupportImplicit)
	x.ODPCaps.PerTransportCaps.RCODPCaps = uint32(ibv.ODPTransportCapBitsSend | ibv.ODPTransportCapBitsSRQRecv)
	x.XRCODPCaps = uint32(ibv.ODPTransportCapBitsRead)
	x.CompletionTimestampMask, x.HCACoreClock = 0x7fffffffffffffff, 156250
	x.RawPacketCaps = uint32(ibv.RawPacketCapsCVLANStripping | ibv.RawPacketCapsDelayDrop)
	x.DeviceCapFlagsEx = uint64(a.DeviceCapFlags) | ibv.DeviceRawScatterFCS | 1<<40
	x.TSOCaps.MaxTSO, x.TSOCaps.SupportedQpts = 262144, 1<<ibv.QPTypeRawPacket
	x.RSSCaps.SupportedQpts, x.RSSCaps.MaxRWQIndirectionTables = 1<<ibv.QPTypeRawPacket, 1024
	x.PacketPacingCaps.QPRateLimitMin, x.PacketPacingCaps.QPRateLimitMax = 1, 100000000
	x.PacketPacingCaps.SupportedQpts = 1 << ibv.QPTypeRawPacket
	x.TMCaps.MaxNumTags, x.TMCaps.MaxRndvHdrSize, x.TMCaps.MaxOps, x.TMCaps.MaxSGE = 127, 64, 32768, 1
	x.TMCaps.Flags = uint32(ibv.TMCapFlagsRC)
	x.CQModCaps.MaxCQCount, x.CQModCaps.MaxCQPeriod = 65535, 4095
	x.MaxDMSize = 131072
	for n := uint8(1); n <= 2; n++ {
		d.Ports = append(d.Ports, portInfo{Num: n, Attr: ibv.PortAttr{
			State: ibv.PortStateActive, MaxMTU: ibv.MTU4096, ActiveMTU: ibv.MTU4096,
			LID: uint16(n), SmLID: 1, Lmc: 2, MaxVlNum: 4, ActiveWidth: 2,
			ActiveSpeed: 0, ActiveSpeedEx: 256, PhysState: 5,
			LinkLayer: uint8(ibv.LinkLayerInfiniband),
		}, GIDs: []ibv.GIDEntry{
			gidEntry(0, [16]byte{0xfe, 0x80, 8: 0xb8, 0x59, 0x9f, 0x03, 0x00, 0x0a, 0x0b, n}, ibv.GIDTypeIB),
		}})
	}
	return d
}
