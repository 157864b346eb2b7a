package main

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/goverbs/goverbs/ibv"
)

// The words ibv_devinfo prints for enumerated values. Names of flag bits
// come from the generated enums (their C names less the prefix); the rest
// are the spellings of the tool's output and of the verbs man pages.

// transportStr is the transport of a device.
func transportStr(t ibv.TransportType) string {
	switch t {
	case ibv.TransportTypeIB:
		return "InfiniBand"
	case ibv.TransportTypeIWARP:
		return "iWARP"
	case ibv.TransportTypeUsnic:
		return "usNIC"
	case ibv.TransportTypeUsnicUDP:
		return "usNIC UDP"
	case ibv.TransportTypeUnspecified:
		return "unspecified"
	}
	return "invalid transport"
}

// mtuStr is an enum ibv_mtu in bytes.
func mtuStr(m ibv.MTU) string {
	if m < ibv.MTU256 || m > ibv.MTU4096 {
		return "invalid MTU"
	}
	return fmt.Sprint(128 << m)
}

// linkLayerStr is a port's link layer; kernels that do not report it
// (unspecified) have InfiniBand ports.
func linkLayerStr(l uint8) string {
	switch uint32(l) {
	case ibv.LinkLayerUnspecified, ibv.LinkLayerInfiniband:
		return "InfiniBand"
	case ibv.LinkLayerEthernet:
		return "Ethernet"
	}
	return "Unknown"
}

// vlStr is a port's max_vl_num: the number of data VLs it encodes.
func vlStr(v uint8) string {
	switch v {
	case 1:
		return "1"
	case 2:
		return "2"
	case 3:
		return "4"
	case 4:
		return "8"
	case 5:
		return "15"
	}
	return "invalid value"
}

// widthStr is a port's active_width (IBA PortInfo LinkWidthActive).
func widthStr(w uint8) string {
	switch w {
	case 1:
		return "1X"
	case 2:
		return "4X"
	case 4:
		return "8X"
	case 8:
		return "12X"
	case 16:
		return "2X"
	}
	return "invalid width"
}

// speedStr is a port's active_speed (or active_speed_ex), per lane.
func speedStr(s uint32) string {
	switch s {
	case 1:
		return "2.5 Gbps"
	case 2:
		return "5.0 Gbps"
	case 4, 8:
		return "10.0 Gbps"
	case 16:
		return "14.0 Gbps"
	case 32:
		return "25.0 Gbps"
	case 64:
		return "50.0 Gbps"
	case 128:
		return "100.0 Gbps"
	case 256:
		return "200.0 Gbps"
	}
	return "invalid speed"
}

// physStateStr is a port's phys_state (IBA PortInfo PortPhysicalState).
func physStateStr(s uint8) string {
	switch s {
	case 1:
		return "SLEEP"
	case 2:
		return "POLLING"
	case 3:
		return "DISABLED"
	case 4:
		return "PORT_CONFIGURATION TRAINNING"
	case 5:
		return "LINK_UP"
	case 6:
		return "LINK_ERROR_RECOVERY"
	case 7:
		return "PHY TEST"
	}
	return "invalid physical state"
}

// portStateStr is a port's state by its C name (IBV_PORT_ACTIVE ->
// PORT_ACTIVE), not ibv_port_state_str's word ("active").
func portStateStr(st ibv.PortState) string {
	s := st.String()
	if !strings.HasPrefix(s, "IBV_PORT_") {
		return "invalid state"
	}
	return strings.TrimPrefix(s, "IBV_")
}

// atomicCapStr is the device's atomic_cap (IBV_ATOMIC_HCA -> ATOMIC_HCA).
func atomicCapStr(a ibv.AtomicCap) string {
	s := a.String()
	if !strings.HasPrefix(s, "IBV_ATOMIC_") {
		return "invalid atomic capability"
	}
	return strings.TrimPrefix(s, "IBV_")
}

// gidTypeStr is the type of a RoCE GID.
func gidTypeStr(t uint32) string {
	switch ibv.GIDType(t) {
	case ibv.GIDTypeRoCEV1:
		return "RoCE v1"
	case ibv.GIDTypeRoCEV2:
		return "RoCE v2"
	}
	return "IB"
}

// flags is a flag word split into the names of its known bits, lowest
// first, and the bits without a name.
type flags struct {
	names   []string
	unknown uint64
}

// flagNames splits v. name returns the name of one bit (the generated
// String, or a spelling of the tool's); a bit is known when that is not
// empty and starts with prefix, which is dropped.
func flagNames(v uint64, prefix string, name func(bit uint64) string) flags {
	var f flags
	for v != 0 {
		bit := uint64(1) << bits.TrailingZeros64(v)
		v &^= bit
		if s := name(bit); s != "" && strings.HasPrefix(s, prefix) {
			f.names = append(f.names, strings.TrimPrefix(s, prefix))
		} else {
			f.unknown |= bit
		}
	}
	return f
}

// deviceCapNames are the names of device_cap_flags' bits.
func deviceCapNames(v uint32) flags {
	return flagNames(uint64(v), "IBV_DEVICE_", func(b uint64) string { return ibv.DeviceCapFlags(b).String() })
}

// deviceCapExNames are the names of the bits of device_cap_flags_ex above
// the 32 of device_cap_flags (macros in verbs.h, not an enum).
func deviceCapExNames(v uint64) flags {
	return flagNames(v>>32<<32, "", func(b uint64) string {
		switch b {
		case ibv.DeviceRawScatterFCS:
			return "RAW_SCATTER_FCS"
		case ibv.DevicePCIWriteEndPadding:
			return "PCI_WRITE_END_PADDING"
		}
		return ""
	})
}

// odpGeneralNames are the names of general_odp_caps' bits (ODP_SUPPORT, ...).
func odpGeneralNames(v uint64) flags {
	return flagNames(v, "IBV_", func(b uint64) string {
		if b > 1<<31 {
			return ""
		}
		return ibv.ODPGeneralCaps(b).String()
	})
}

// odpTransportNames are the names of a transport's ODP bits (SUPPORT_SEND,
// ...; IBV_ODP_SUPPORT_SRQ_RECV is SUPPORT_SRQ).
func odpTransportNames(v uint32) flags {
	return flagNames(uint64(v), "IBV_ODP_", func(b uint64) string {
		if ibv.ODPTransportCapBits(b) == ibv.ODPTransportCapBitsSRQRecv {
			return "IBV_ODP_SUPPORT_SRQ"
		}
		return ibv.ODPTransportCapBits(b).String()
	})
}

// rawPacketNames are the descriptions of raw_packet_caps' bits.
func rawPacketNames(v uint32) flags {
	return flagNames(uint64(v), "", func(b uint64) string {
		switch ibv.RawPacketCaps(b) {
		case ibv.RawPacketCapsCVLANStripping:
			return "C-VLAN stripping offload"
		case ibv.RawPacketCapsScatterFCS:
			return "Scatter FCS offload"
		case ibv.RawPacketCapsIPCsum:
			return "IP csum offload"
		case ibv.RawPacketCapsDelayDrop:
			return "Delay drop"
		}
		return ""
	})
}

// qpTypeNames are the QP types of a supported_qpts mask (bit n: QP type
// n), as SUPPORT_RAW_PACKET.
func qpTypeNames(v uint32) flags {
	return flagNames(uint64(v), "IBV_QPT_", func(b uint64) string {
		if s := ibv.QPType(bits.TrailingZeros64(b)).String(); strings.HasPrefix(s, "IBV_QPT_") {
			return "IBV_QPT_SUPPORT_" + strings.TrimPrefix(s, "IBV_QPT_")
		}
		return ""
	})
}
