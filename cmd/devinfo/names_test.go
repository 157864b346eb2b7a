package main

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"

	"github.com/goverbs/goverbs/ibv"
)

func TestFlagNames(t *testing.T) {
	// rxe's device_cap_flags, as ibv_devinfo lists them.
	f := deviceCapNames(0x01223c76)
	assert.Equal(t, []string{
		"BAD_PKEY_CNTR", "BAD_QKEY_CNTR", "AUTO_PATH_MIG", "CHANGE_PHY_PORT", "UD_AV_PORT_ENFORCE",
		"PORT_ACTIVE_EVENT", "SYS_IMAGE_GUID", "RC_RNR_NAK_GEN", "SRQ_RESIZE", "MEM_WINDOW",
		"MEM_MGT_EXTENSIONS", "MEM_WINDOW_TYPE_2B",
	}, f.names)
	assert.Zero(t, f.unknown)

	// Bits 15, 16 and 31 have no IBV_DEVICE_ name.
	f = deviceCapNames(1<<15 | 1<<16 | 1<<31 | uint32(ibv.DeviceCapFlagsManagedFlowSteering))
	assert.Equal(t, []string{"MANAGED_FLOW_STEERING"}, f.names)
	assert.Equal(t, uint64(1<<15|1<<16|1<<31), f.unknown)

	// The extended flags name only the bits above device_cap_flags.
	f = deviceCapExNames(0xffffffff | ibv.DevicePCIWriteEndPadding | 1<<63)
	assert.Equal(t, []string{"PCI_WRITE_END_PADDING"}, f.names)
	assert.Equal(t, uint64(1<<63), f.unknown)

	f = odpTransportNames(uint32(ibv.ODPTransportCapBitsRecv|ibv.ODPTransportCapBitsAtomic|ibv.ODPTransportCapBitsSRQRecv) | 1<<30)
	assert.Equal(t, []string{"SUPPORT_RECV", "SUPPORT_ATOMIC", "SUPPORT_SRQ"}, f.names)
	assert.Equal(t, uint64(1<<30), f.unknown)

	f = odpGeneralNames(uint64(ibv.ODPGeneralCapsSupportImplicit) | 1<<40)
	assert.Equal(t, []string{"ODP_SUPPORT_IMPLICIT"}, f.names)
	assert.Equal(t, uint64(1<<40), f.unknown)

	f = qpTypeNames(1<<ibv.QPTypeUD | 1<<ibv.QPTypeRawPacket | 1<<0)
	assert.Equal(t, []string{"SUPPORT_UD", "SUPPORT_RAW_PACKET"}, f.names)
	assert.Equal(t, uint64(1), f.unknown)

	f = rawPacketNames(uint32(ibv.RawPacketCapsScatterFCS|ibv.RawPacketCapsIPCsum) | 1<<20)
	assert.Equal(t, []string{"Scatter FCS offload", "IP csum offload"}, f.names)
	assert.Equal(t, uint64(1<<20), f.unknown)
}

func TestValueNames(t *testing.T) {
	assert.Equal(t, "256", mtuStr(ibv.MTU256))
	assert.Equal(t, "4096", mtuStr(ibv.MTU4096))
	assert.Equal(t, "invalid MTU", mtuStr(0))
	assert.Equal(t, "invalid MTU", mtuStr(6))

	assert.Equal(t, "PORT_ACTIVE", portStateStr(ibv.PortStateActive))
	assert.Equal(t, "PORT_ACTIVE_DEFER", portStateStr(ibv.PortStateActiveDefer))
	assert.Equal(t, "invalid state", portStateStr(9))

	assert.Equal(t, "ATOMIC_HCA", atomicCapStr(ibv.AtomicCapHCA))
	assert.Equal(t, "invalid atomic capability", atomicCapStr(7))

	assert.Equal(t, "InfiniBand", transportStr(ibv.TransportTypeIB))
	assert.Equal(t, "iWARP", transportStr(ibv.TransportTypeIWARP))
	assert.Equal(t, "invalid transport", transportStr(ibv.TransportTypeUnknown))

	assert.Equal(t, "InfiniBand", linkLayerStr(0))
	assert.Equal(t, "Ethernet", linkLayerStr(2))
	assert.Equal(t, "Unknown", linkLayerStr(3))

	assert.Equal(t, "15", vlStr(5))
	assert.Equal(t, "invalid value", vlStr(0))
	assert.Equal(t, "12X", widthStr(8))
	assert.Equal(t, "invalid width", widthStr(3))
	assert.Equal(t, "10.0 Gbps", speedStr(8)) // rxe's FDR10 lane
	assert.Equal(t, "14.0 Gbps", speedStr(16))
	assert.Equal(t, "invalid speed", speedStr(3))
	assert.Equal(t, "LINK_UP", physStateStr(5))
	assert.Equal(t, "invalid physical state", physStateStr(8))

	assert.Equal(t, "RoCE v1", gidTypeStr(uint32(ibv.GIDTypeRoCEV1)))
	assert.Equal(t, "RoCE v2", gidTypeStr(uint32(ibv.GIDTypeRoCEV2)))
}
