package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

func printed(d *deviceInfo, verbose bool) string {
	var b bytes.Buffer
	printDevice(&b, d, verbose)
	return b.String()
}

func TestPrintDevice(t *testing.T) {
	want := "hca_id:\trxe_x\n" +
		"\ttransport:\t\t\tInfiniBand (0)\n" +
		"\tfw_ver:\t\t\t\t1.2.3\n" +
		"\tnode_guid:\t\t\t0211:22ff:fe33:4455\n" +
		"\tsys_image_guid:\t\t\t0211:22ff:fe33:4456\n" +
		"\tvendor_id:\t\t\t0xffffff\n" +
		"\tvendor_part_id:\t\t\t7\n" +
		"\thw_ver:\t\t\t\t0x2A\n" +
		"\tphys_port_cnt:\t\t\t1\n" +
		"\t\tport:\t1\n" +
		"\t\t\tstate:\t\t\tPORT_DOWN (1)\n" +
		"\t\t\tmax_mtu:\t\t4096 (5)\n" +
		"\t\t\tactive_mtu:\t\t1024 (3)\n" +
		"\t\t\tsm_lid:\t\t\t0\n" +
		"\t\t\tport_lid:\t\t0\n" +
		"\t\t\tport_lmc:\t\t0x00\n" +
		"\t\t\tlink_layer:\t\tEthernet\n" +
		"\n"
	assert.Equal(t, want, printed(roceDevice(), false))
}

func TestPrintPortVerbose(t *testing.T) {
	want := "\t\t\tlink_layer:\t\tEthernet\n" +
		"\t\t\tmax_msg_sz:\t\t0x800000\n" +
		"\t\t\tport_cap_flags:\t\t0x00010000\n" +
		"\t\t\tport_cap_flags2:\t0x0000\n" +
		"\t\t\tmax_vl_num:\t\t1 (1)\n" +
		"\t\t\tbad_pkey_cntr:\t\t0x1\n" +
		"\t\t\tqkey_viol_cntr:\t\t0x2\n" +
		"\t\t\tsm_sl:\t\t\t0\n" +
		"\t\t\tpkey_tbl_len:\t\t1\n" +
		"\t\t\tgid_tbl_len:\t\t16\n" +
		"\t\t\tsubnet_timeout:\t\t0\n" +
		"\t\t\tinit_type_reply:\t0\n" +
		"\t\t\tactive_width:\t\t4X (2)\n" +
		"\t\t\tactive_speed:\t\t25.0 Gbps (32)\n" +
		"\t\t\tphys_state:\t\tDISABLED (3)\n" +
		"\t\t\tGID[  0]:\t\tfe80::11:22ff:fe33:4455, RoCE v1\n" +
		"\t\t\tGID[  3]:\t\t::ffff:192.0.2.9, RoCE v2\n" +
		"\n"
	assert.True(t, strings.HasSuffix(printed(roceDevice(), true), want), printed(roceDevice(), true))
}

func TestPrintDeviceVerbose(t *testing.T) {
	out := printed(roceDevice(), true)
	for _, want := range []string{
		"\tphys_port_cnt:\t\t\t1\n\tmax_mr_size:\t\t\t0x10000000000\n\tpage_size_cap:\t\t\t0xfffff000\n",
		"\tdevice_cap_flags:\t\t0x00100002\n\t\t\t\t\tBAD_PKEY_CNTR\n\t\t\t\t\tXRC\n\tmax_sge:\t\t\t30\n",
		"\tatomic_cap:\t\t\tATOMIC_GLOB (2)\n",
		"\tmax_fmr:\t\t\t0\n\tmax_srq:\t\t\t11\n\tmax_srq_wr:\t\t\t12\n",
		"\tgeneral_odp_caps:\n\trc_odp_caps:\n\t\t\t\t\tNO SUPPORT\n",
		"\txrc_odp_caps:\n\t\t\t\t\tNO SUPPORT\n\tcompletion_timestamp_mask not supported\n\tcore clock not supported\n\tdevice_cap_flags_ex:\t\t0x100002\n\ttso_caps:\n",
		"\ttag matching not supported\n\tnum_comp_vectors:\t\t3\n\t\tport:\t1\n",
	} {
		assert.Contains(t, out, want)
	}
	for _, absent := range []string{"board_id", "max_map_per_fmr", "raw packet caps", "supported_qp", "cq moderation", "device memory"} {
		assert.NotContains(t, out, absent)
	}
}

// TestPrintHardwareCaps covers what rxe never shows: a board id, ODP,
// timestamps, raw packet and extended capabilities, tag matching, CQ
// moderation, device memory, InfiniBand ports and their GIDs.
func TestPrintHardwareCaps(t *testing.T) {
	out := printed(ibDevice(), true)
	for _, want := range []string{
		"\thw_ver:\t\t\t\t0x0\n\tboard_id:\t\t\tMT_0000000001\n\tphys_port_cnt:\t\t\t2\n",
		"\tdevice_cap_flags:\t\t0x80000001\n\t\t\t\t\tRESIZE_MAX_WR\n\t\t\t\t\tUnknown flags: 0x80000000\n",
		"\tmax_fmr:\t\t\t4\n\tmax_map_per_fmr:\t\t5\n\tmax_srq:\t\t\t0\n\tmax_pkeys:",
		"\tgeneral_odp_caps:\n\t\t\t\t\tODP_SUPPORT\n\t\t\t\t\tODP_SUPPORT_IMPLICIT\n" +
			"\trc_odp_caps:\n\t\t\t\t\tSUPPORT_SEND\n\t\t\t\t\tSUPPORT_SRQ\n" +
			"\tuc_odp_caps:\n\t\t\t\t\tNO SUPPORT\n\tud_odp_caps:\n\t\t\t\t\tNO SUPPORT\n" +
			"\txrc_odp_caps:\n\t\t\t\t\tSUPPORT_READ\n",
		"\tcompletion timestamp_mask:\t\t\t0x7fffffffffffffff\n\thca_core_clock:\t\t\t156250kHZ\n",
		"\traw packet caps:\n\t\t\t\t\tC-VLAN stripping offload\n\t\t\t\t\tDelay drop\n",
		"\tdevice_cap_flags_ex:\t\t0x10480000001\n\t\t\t\t\tRAW_SCATTER_FCS\n\t\t\t\t\tUnknown flags: 0x10000000000\n",
		"\t\tmax_tso:\t\t\t262144\n\t\tsupported_qp:\n\t\t\t\t\tSUPPORT_RAW_PACKET\n\trss_caps:\n",
		"\t\tmax_rwq_indirection_tables:\t\t\t1024\n",
		"\t\trx_hash_fields_mask:\t\t\t\t0x0\n\t\tsupported_qp:\n\t\t\t\t\tSUPPORT_RAW_PACKET\n",
		"\t\tqp_rate_limit_min:\t1kbps\n\t\tqp_rate_limit_max:\t100000000kbps\n\t\tsupported_qp:\n\t\t\t\t\tSUPPORT_RAW_PACKET\n",
		"\ttag matching caps:\n\t\tmax_rndv_hdr_size:\t64\n\t\tmax_num_tags:\t\t127\n\t\tmax_ops:\t\t32768\n\t\tmax_sge:\t\t1\n\t\tflags:\n\t\t\t\t\tIBV_TM_CAP_RC\n",
		"\tcq moderation caps:\n\t\tmax_cq_count:\t65535\n\t\tmax_cq_period:\t4095 us\n\n",
		"\tmaximum available device memory:\t131072Bytes\n\n\tnum_comp_vectors:\t\t8\n",
		"\t\tport:\t2\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n",
		"\t\t\tsm_lid:\t\t\t1\n\t\t\tport_lid:\t\t2\n\t\t\tport_lmc:\t\t0x02\n\t\t\tlink_layer:\t\tInfiniBand\n",
		"\t\t\tmax_vl_num:\t\t8 (4)\n",
		"\t\t\tactive_speed:\t\t200.0 Gbps (256)\n\t\t\tphys_state:\t\tLINK_UP (5)\n",
		"\t\t\tGID[  0]:\t\tfe80::b859:9f03:a:b02\n\n",
	} {
		assert.Contains(t, out, want)
	}
}

// TestAlignment checks that the value of every "label:<tabs>value" line
// starts at the column ibv_devinfo aligns its section at (tabs every 8
// columns): 40 for the device, 48 for its ports, and their own columns
// for the sub-sections the tool aligns otherwise (seen on rxe, and the
// timestamp mask in published outputs). Tag matching, CQ moderation and
// device memory lines, never seen, are not checked.
func TestAlignment(t *testing.T) {
	other := map[string]int{
		"hca_id": 8, "port": 24, "completion timestamp_mask": 56, "max_tso": 48,
		"max_rwq_indirection_tables": 64, "max_rwq_indirection_table_size": 64,
		"rx_hash_function": 64, "rx_hash_fields_mask": 64,
		"qp_rate_limit_min": 40, "qp_rate_limit_max": 40,
	}
	unseen := map[string]bool{
		"max_rndv_hdr_size": true, "max_num_tags": true, "max_ops": true, "max_cq_count": true,
		"max_cq_period": true, "maximum available device memory": true,
	}
	checked := 0
	for _, d := range []*deviceInfo{roceDevice(), ibDevice()} {
		for _, line := range strings.Split(printed(d, true), "\n") {
			label, value, ok := strings.Cut(line, ":\t")
			if !ok {
				continue
			}
			indent := len(label) - len(strings.TrimLeft(label, "\t"))
			name := label[indent:]
			if unseen[name] || (name == "max_sge" && indent == 2) {
				continue
			}
			col := (indent*8+len(name)+1)/8*8 + 8 // the tab Cut consumed
			for strings.HasPrefix(value, "\t") {
				value = value[1:]
				col = col/8*8 + 8
			}
			want := 40
			if indent == 3 {
				want = 48
			}
			if c, ok := other[name]; ok {
				want = c
			}
			require.Equal(t, want, col, "value of %q starts at column %d", line, col)
			checked++
		}
	}
	require.Greater(t, checked, 100)
}

func TestPrintList(t *testing.T) {
	var b bytes.Buffer
	printList(&b, []string{"rxe_a", "mlx5_0"})
	assert.Equal(t, "2 HCAs found:\n\trxe_a\n\tmlx5_0\n\n", b.String())
	b.Reset()
	printList(&b, []string{"rxe0"})
	assert.Equal(t, "1 HCA found:\n\trxe0\n\n", b.String())
	b.Reset()
	printList(&b, nil)
	assert.Equal(t, "0 HCAs found:\n\n", b.String())
}
