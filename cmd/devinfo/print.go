package main

import (
	"fmt"
	"io"

	"github.com/goverbs/goverbs/ibv"
)

// The output follows ibv_devinfo's: each field a label, tabs and a value,
// the tabs as the tool prints them (mostly aligning values at column 40
// for the device and 48 for its ports); the rxe test compares it with the
// tool's on both rdma-core roots. Lines rxe cannot show follow published
// outputs of the tool on other hardware where there are some (board id,
// ODP, timestamps, raw packet caps) and are a best guess otherwise (TSO,
// RSS and pacing QP types, tag matching, CQ moderation, device memory,
// InfiniBand GIDs).

// printList prints the device names of -l.
func printList(w io.Writer, names []string) {
	plural := "s"
	if len(names) == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "%d HCA%s found:\n", len(names), plural)
	for _, n := range names {
		fmt.Fprintf(w, "\t%s\n", n)
	}
	fmt.Fprintln(w)
}

// printDevice prints one device and its ports, every attribute with verbose.
func printDevice(w io.Writer, d *deviceInfo, verbose bool) {
	a := &d.Attr.OrigAttr
	fmt.Fprintf(w, "hca_id:\t%s\n", d.Name)
	fmt.Fprintf(w, "\ttransport:\t\t\t%s (%d)\n", transportStr(d.Transport), d.Transport)
	if fw := cString(a.FwVer[:]); fw != "" {
		fmt.Fprintf(w, "\tfw_ver:\t\t\t\t%s\n", fw)
	}
	fmt.Fprintf(w, "\tnode_guid:\t\t\t%s\n", guidStr(a.NodeGUID))
	fmt.Fprintf(w, "\tsys_image_guid:\t\t\t%s\n", guidStr(a.SysImageGUID))
	fmt.Fprintf(w, "\tvendor_id:\t\t\t0x%04x\n", a.VendorID)
	fmt.Fprintf(w, "\tvendor_part_id:\t\t\t%d\n", a.VendorPartID)
	fmt.Fprintf(w, "\thw_ver:\t\t\t\t0x%X\n", a.HwVer)
	if d.BoardID != "" {
		fmt.Fprintf(w, "\tboard_id:\t\t\t%s\n", d.BoardID)
	}
	fmt.Fprintf(w, "\tphys_port_cnt:\t\t\t%d\n", a.PhysPortCnt)
	if verbose {
		printDeviceVerbose(w, d)
	}
	for i := range d.Ports {
		printPort(w, &d.Ports[i], verbose)
	}
	fmt.Fprintln(w)
}

// flagLines prints names, then the unknown bits, one per line under a flags field.
func flagLines(w io.Writer, f flags) {
	for _, n := range f.names {
		fmt.Fprintf(w, "\t\t\t\t\t%s\n", n)
	}
	if f.unknown != 0 {
		fmt.Fprintf(w, "\t\t\t\t\tUnknown flags: 0x%x\n", f.unknown)
	}
}

// printDeviceVerbose prints the attributes of ibv_query_device_ex beyond the default ones.
func printDeviceVerbose(w io.Writer, d *deviceInfo) {
	x := &d.Attr
	a := &x.OrigAttr
	fmt.Fprintf(w, "\tmax_mr_size:\t\t\t0x%x\n", a.MaxMRSize)
	fmt.Fprintf(w, "\tpage_size_cap:\t\t\t0x%x\n", a.PageSizeCap)
	fmt.Fprintf(w, "\tmax_qp:\t\t\t\t%d\n", a.MaxQP)
	fmt.Fprintf(w, "\tmax_qp_wr:\t\t\t%d\n", a.MaxQPWR)
	fmt.Fprintf(w, "\tdevice_cap_flags:\t\t0x%08x\n", a.DeviceCapFlags)
	flagLines(w, deviceCapNames(a.DeviceCapFlags))
	for _, f := range []struct {
		label string
		tabs  string
		v     int32
	}{
		{"max_sge", "\t\t\t", a.MaxSGE},
		{"max_sge_rd", "\t\t\t", a.MaxSGERd},
		{"max_cq", "\t\t\t\t", a.MaxCQ},
		{"max_cqe", "\t\t\t", a.MaxCQE},
		{"max_mr", "\t\t\t\t", a.MaxMR},
		{"max_pd", "\t\t\t\t", a.MaxPD},
		{"max_qp_rd_atom", "\t\t\t", a.MaxQPRdAtom},
		{"max_ee_rd_atom", "\t\t\t", a.MaxEeRdAtom},
		{"max_res_rd_atom", "\t\t", a.MaxResRdAtom},
		{"max_qp_init_rd_atom", "\t\t", a.MaxQPInitRdAtom},
		{"max_ee_init_rd_atom", "\t\t", a.MaxEeInitRdAtom},
	} {
		fmt.Fprintf(w, "\t%s:%s%d\n", f.label, f.tabs, f.v)
	}
	fmt.Fprintf(w, "\tatomic_cap:\t\t\t%s (%d)\n", atomicCapStr(a.AtomicCap), a.AtomicCap)
	for _, f := range []struct {
		label string
		tabs  string
		v     int32
	}{
		{"max_ee", "\t\t\t\t", a.MaxEe},
		{"max_rdd", "\t\t\t", a.MaxRdd},
		{"max_mw", "\t\t\t\t", a.MaxMW},
		{"max_raw_ipv6_qp", "\t\t", a.MaxRawIPV6QP},
		{"max_raw_ethy_qp", "\t\t", a.MaxRawEthyQP},
		{"max_mcast_grp", "\t\t\t", a.MaxMcastGrp},
		{"max_mcast_qp_attach", "\t\t", a.MaxMcastQPAttach},
		{"max_total_mcast_qp_attach", "\t", a.MaxTotalMcastQPAttach},
		{"max_ah", "\t\t\t\t", a.MaxAH},
		{"max_fmr", "\t\t\t", a.MaxFmr},
	} {
		fmt.Fprintf(w, "\t%s:%s%d\n", f.label, f.tabs, f.v)
	}
	if a.MaxFmr > 0 {
		fmt.Fprintf(w, "\tmax_map_per_fmr:\t\t%d\n", a.MaxMapPerFmr)
	}
	fmt.Fprintf(w, "\tmax_srq:\t\t\t%d\n", a.MaxSRQ)
	if a.MaxSRQ > 0 {
		fmt.Fprintf(w, "\tmax_srq_wr:\t\t\t%d\n", a.MaxSRQWR)
		fmt.Fprintf(w, "\tmax_srq_sge:\t\t\t%d\n", a.MaxSRQSGE)
	}
	fmt.Fprintf(w, "\tmax_pkeys:\t\t\t%d\n", a.MaxPkeys)
	fmt.Fprintf(w, "\tlocal_ca_ack_delay:\t\t%d\n", a.LocalCAAckDelay)

	fmt.Fprintf(w, "\tgeneral_odp_caps:\n")
	flagLines(w, odpGeneralNames(x.ODPCaps.GeneralCaps))
	for _, t := range []struct {
		label string
		caps  uint32
	}{
		{"rc_odp_caps", x.ODPCaps.PerTransportCaps.RCODPCaps},
		{"uc_odp_caps", x.ODPCaps.PerTransportCaps.UCODPCaps},
		{"ud_odp_caps", x.ODPCaps.PerTransportCaps.UDODPCaps},
		{"xrc_odp_caps", x.XRCODPCaps},
	} {
		fmt.Fprintf(w, "\t%s:\n", t.label)
		if t.caps == 0 {
			fmt.Fprintf(w, "\t\t\t\t\tNO SUPPORT\n")
			continue
		}
		flagLines(w, odpTransportNames(t.caps))
	}
	if x.CompletionTimestampMask != 0 {
		fmt.Fprintf(w, "\tcompletion timestamp_mask:\t\t\t0x%016x\n", x.CompletionTimestampMask)
	} else {
		fmt.Fprintf(w, "\tcompletion_timestamp_mask not supported\n")
	}
	if x.HCACoreClock != 0 {
		fmt.Fprintf(w, "\thca_core_clock:\t\t\t%dkHZ\n", x.HCACoreClock)
	} else {
		fmt.Fprintf(w, "\tcore clock not supported\n")
	}
	if x.RawPacketCaps != 0 {
		fmt.Fprintf(w, "\traw packet caps:\n")
		flagLines(w, rawPacketNames(x.RawPacketCaps))
	}
	fmt.Fprintf(w, "\tdevice_cap_flags_ex:\t\t0x%X\n", x.DeviceCapFlagsEx)
	flagLines(w, deviceCapExNames(x.DeviceCapFlagsEx))

	fmt.Fprintf(w, "\ttso_caps:\n")
	fmt.Fprintf(w, "\t\tmax_tso:\t\t\t%d\n", x.TSOCaps.MaxTSO)
	if x.TSOCaps.MaxTSO != 0 {
		fmt.Fprintf(w, "\t\tsupported_qp:\n")
		flagLines(w, qpTypeNames(x.TSOCaps.SupportedQpts))
	}
	fmt.Fprintf(w, "\trss_caps:\n")
	fmt.Fprintf(w, "\t\tmax_rwq_indirection_tables:\t\t\t%d\n", x.RSSCaps.MaxRWQIndirectionTables)
	fmt.Fprintf(w, "\t\tmax_rwq_indirection_table_size:\t\t\t%d\n", x.RSSCaps.MaxRWQIndirectionTableSize)
	fmt.Fprintf(w, "\t\trx_hash_function:\t\t\t\t0x%x\n", x.RSSCaps.RxHashFunction)
	fmt.Fprintf(w, "\t\trx_hash_fields_mask:\t\t\t\t0x%x\n", x.RSSCaps.RxHashFieldsMask)
	if x.RSSCaps.SupportedQpts != 0 {
		fmt.Fprintf(w, "\t\tsupported_qp:\n")
		flagLines(w, qpTypeNames(x.RSSCaps.SupportedQpts))
	}
	fmt.Fprintf(w, "\tmax_wq_type_rq:\t\t\t%d\n", x.MaxWQTypeRQ)
	fmt.Fprintf(w, "\tpacket_pacing_caps:\n")
	fmt.Fprintf(w, "\t\tqp_rate_limit_min:\t%dkbps\n", x.PacketPacingCaps.QPRateLimitMin)
	fmt.Fprintf(w, "\t\tqp_rate_limit_max:\t%dkbps\n", x.PacketPacingCaps.QPRateLimitMax)
	if x.PacketPacingCaps.QPRateLimitMax != 0 {
		fmt.Fprintf(w, "\t\tsupported_qp:\n")
		flagLines(w, qpTypeNames(x.PacketPacingCaps.SupportedQpts))
	}
	printTagMatching(w, &x.TMCaps)
	if c := x.CQModCaps; c.MaxCQCount != 0 || c.MaxCQPeriod != 0 {
		fmt.Fprintf(w, "\tcq moderation caps:\n")
		fmt.Fprintf(w, "\t\tmax_cq_count:\t%d\n", c.MaxCQCount)
		fmt.Fprintf(w, "\t\tmax_cq_period:\t%d us\n\n", c.MaxCQPeriod)
	}
	if x.MaxDMSize != 0 {
		fmt.Fprintf(w, "\tmaximum available device memory:\t%dBytes\n\n", x.MaxDMSize)
	}
	fmt.Fprintf(w, "\tnum_comp_vectors:\t\t%d\n", d.CompVectors)
}

// printTagMatching prints the tag matching capabilities, when there are any.
func printTagMatching(w io.Writer, tm *ibv.TMCaps) {
	if tm.MaxNumTags == 0 {
		fmt.Fprintf(w, "\ttag matching not supported\n")
		return
	}
	fmt.Fprintf(w, "\ttag matching caps:\n")
	fmt.Fprintf(w, "\t\tmax_rndv_hdr_size:\t%d\n", tm.MaxRndvHdrSize)
	fmt.Fprintf(w, "\t\tmax_num_tags:\t\t%d\n", tm.MaxNumTags)
	fmt.Fprintf(w, "\t\tmax_ops:\t\t%d\n", tm.MaxOps)
	fmt.Fprintf(w, "\t\tmax_sge:\t\t%d\n", tm.MaxSGE)
	fmt.Fprintf(w, "\t\tflags:\n")
	if ibv.TMCapFlags(tm.Flags).Has(ibv.TMCapFlagsRC) {
		fmt.Fprintf(w, "\t\t\t\t\tIBV_TM_CAP_RC\n")
	}
}

// printPort prints one port, every attribute and its GIDs with verbose.
func printPort(w io.Writer, p *portInfo, verbose bool) {
	a := &p.Attr
	fmt.Fprintf(w, "\t\tport:\t%d\n", p.Num)
	fmt.Fprintf(w, "\t\t\tstate:\t\t\t%s (%d)\n", portStateStr(a.State), a.State)
	fmt.Fprintf(w, "\t\t\tmax_mtu:\t\t%s (%d)\n", mtuStr(a.MaxMTU), a.MaxMTU)
	fmt.Fprintf(w, "\t\t\tactive_mtu:\t\t%s (%d)\n", mtuStr(a.ActiveMTU), a.ActiveMTU)
	fmt.Fprintf(w, "\t\t\tsm_lid:\t\t\t%d\n", a.SmLID)
	fmt.Fprintf(w, "\t\t\tport_lid:\t\t%d\n", a.LID)
	fmt.Fprintf(w, "\t\t\tport_lmc:\t\t0x%02x\n", a.Lmc)
	fmt.Fprintf(w, "\t\t\tlink_layer:\t\t%s\n", linkLayerStr(a.LinkLayer))
	if !verbose {
		return
	}
	speed := uint32(a.ActiveSpeed)
	if a.ActiveSpeedEx != 0 {
		speed = a.ActiveSpeedEx
	}
	fmt.Fprintf(w, "\t\t\tmax_msg_sz:\t\t0x%x\n", a.MaxMsgSz)
	fmt.Fprintf(w, "\t\t\tport_cap_flags:\t\t0x%08x\n", a.PortCapFlags)
	fmt.Fprintf(w, "\t\t\tport_cap_flags2:\t0x%04x\n", a.PortCapFlags2)
	fmt.Fprintf(w, "\t\t\tmax_vl_num:\t\t%s (%d)\n", vlStr(a.MaxVlNum), a.MaxVlNum)
	fmt.Fprintf(w, "\t\t\tbad_pkey_cntr:\t\t0x%x\n", a.BadPKeyCntr)
	fmt.Fprintf(w, "\t\t\tqkey_viol_cntr:\t\t0x%x\n", a.QKeyViolCntr)
	fmt.Fprintf(w, "\t\t\tsm_sl:\t\t\t%d\n", a.SmSL)
	fmt.Fprintf(w, "\t\t\tpkey_tbl_len:\t\t%d\n", a.PKeyTblLen)
	fmt.Fprintf(w, "\t\t\tgid_tbl_len:\t\t%d\n", a.GIDTblLen)
	fmt.Fprintf(w, "\t\t\tsubnet_timeout:\t\t%d\n", a.SubnetTimeout)
	fmt.Fprintf(w, "\t\t\tinit_type_reply:\t%d\n", a.InitTypeReply)
	fmt.Fprintf(w, "\t\t\tactive_width:\t\t%s (%d)\n", widthStr(a.ActiveWidth), a.ActiveWidth)
	fmt.Fprintf(w, "\t\t\tactive_speed:\t\t%s (%d)\n", speedStr(speed), speed)
	if a.PhysState != 0 {
		fmt.Fprintf(w, "\t\t\tphys_state:\t\t%s (%d)\n", physStateStr(a.PhysState), a.PhysState)
	}
	for _, g := range p.GIDs {
		fmt.Fprintf(w, "\t\t\tGID[%3d]:\t\t%s", g.GIDIndex, gidStr(*g.GID.Raw()))
		if uint32(a.LinkLayer) == ibv.LinkLayerEthernet {
			fmt.Fprintf(w, ", %s", gidTypeStr(g.GIDType))
		}
		fmt.Fprintln(w)
	}
}

// cString is the NUL-terminated string at the start of b.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
