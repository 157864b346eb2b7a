//go:build linux && cgo

package stubprovider

/*
#include "stub.h"
*/
import "C"

import "unsafe"

// Layout is, for TestLayout, the size of each C structure stub.h mirrors
// and the offset of each of its members, keyed by the generated Go type
// and field they mirror ("WC", "WC.ByteLen"), and the enum values stub.h
// states, keyed by the Go constant they must equal.
func Layout() (layout map[string]uintptr, enums map[string]uint64) {
	var (
		ctx  C.struct_gvs_context
		ops  C.struct_gvs_context_ops
		sge  C.struct_gvs_sge
		swr  C.struct_gvs_send_wr
		rwr  C.struct_gvs_recv_wr
		wc   C.struct_gvs_wc
		tm   C.struct_gvs_tm_info
		cqx  C.struct_gvs_ibv_cq_ex
		qp   C.struct_gvs_ibv_qp
		qpx  C.struct_gvs_ibv_qp_ex
		srq  C.struct_gvs_ibv_srq
		pcqa C.struct_gvs_poll_cq_attr
		wcx  C.struct_gvs_wc_ex
	)
	layout = map[string]uintptr{
		"Context": unsafe.Sizeof(ctx), "Context.Device": unsafe.Offsetof(ctx.device), "Context.Ops": unsafe.Offsetof(ctx.ops),
		"Context.CmdFD": unsafe.Offsetof(ctx.cmd_fd), "Context.AsyncFD": unsafe.Offsetof(ctx.async_fd),
		"Context.NumCompVectors": unsafe.Offsetof(ctx.num_comp_vectors), "Context.Mutex": unsafe.Offsetof(ctx.mutex),
		"Context.ABICompat": unsafe.Offsetof(ctx.abi_compat),

		"ContextOps": unsafe.Sizeof(ops), "ContextOps.PollCQ": unsafe.Offsetof(ops.poll_cq),
		"ContextOps.ReqNotifyCQ": unsafe.Offsetof(ops.req_notify_cq), "ContextOps.PostSRQRecv": unsafe.Offsetof(ops.post_srq_recv),
		"ContextOps.PostSend": unsafe.Offsetof(ops.post_send), "ContextOps.PostRecv": unsafe.Offsetof(ops.post_recv),

		"SGE": unsafe.Sizeof(sge), "SGE.Addr": unsafe.Offsetof(sge.addr), "SGE.Length": unsafe.Offsetof(sge.length), "SGE.LKey": unsafe.Offsetof(sge.lkey),

		"SendWR": unsafe.Sizeof(swr), "SendWR.WRID": unsafe.Offsetof(swr.wr_id), "SendWR.Next": unsafe.Offsetof(swr.next),
		"SendWR.SgList": unsafe.Offsetof(swr.sg_list), "SendWR.NumSGE": unsafe.Offsetof(swr.num_sge),
		"SendWR.Opcode": unsafe.Offsetof(swr.opcode), "SendWR.SendFlags": unsafe.Offsetof(swr.send_flags),
		"SendWR.SendWRAnon0": unsafe.Offsetof(swr.imm_data), "SendWR.WR": unsafe.Offsetof(swr.wr),
		"SendWR.QPType": unsafe.Offsetof(swr.qp_type), "SendWR.SendWRAnon1": unsafe.Offsetof(swr.u),

		"RecvWR": unsafe.Sizeof(rwr), "RecvWR.WRID": unsafe.Offsetof(rwr.wr_id), "RecvWR.Next": unsafe.Offsetof(rwr.next),
		"RecvWR.SgList": unsafe.Offsetof(rwr.sg_list), "RecvWR.NumSGE": unsafe.Offsetof(rwr.num_sge),

		"WC": unsafe.Sizeof(wc), "WC.WRID": unsafe.Offsetof(wc.wr_id), "WC.Status": unsafe.Offsetof(wc.status),
		"WC.Opcode": unsafe.Offsetof(wc.opcode), "WC.VendorErr": unsafe.Offsetof(wc.vendor_err),
		"WC.ByteLen": unsafe.Offsetof(wc.byte_len), "WC.WCAnon0": unsafe.Offsetof(wc.imm_data),
		"WC.QPNum": unsafe.Offsetof(wc.qp_num), "WC.SrcQP": unsafe.Offsetof(wc.src_qp), "WC.WCFlags": unsafe.Offsetof(wc.wc_flags),
		"WC.PKeyIndex": unsafe.Offsetof(wc.pkey_index), "WC.SLID": unsafe.Offsetof(wc.slid), "WC.SL": unsafe.Offsetof(wc.sl),
		"WC.DLIDPathBits": unsafe.Offsetof(wc.dlid_path_bits),

		"WCTMInfo": unsafe.Sizeof(tm), "WCTMInfo.Tag": unsafe.Offsetof(tm.tag), "WCTMInfo.Priv": unsafe.Offsetof(tm.priv),
		"PollCQAttr": unsafe.Sizeof(pcqa), "PollCQAttr.CompMask": unsafe.Offsetof(pcqa.comp_mask),

		"CQEx": unsafe.Sizeof(cqx), "CQEx.Context": unsafe.Offsetof(cqx.context), "CQEx.Channel": unsafe.Offsetof(cqx.channel),
		"CQEx.CQContext": unsafe.Offsetof(cqx.cq_context), "CQEx.Handle": unsafe.Offsetof(cqx.handle), "CQEx.CQE": unsafe.Offsetof(cqx.cqe),
		"CQEx.Mutex": unsafe.Offsetof(cqx.mutex), "CQEx.Cond": unsafe.Offsetof(cqx.cond),
		"CQEx.CompEventsCompleted": unsafe.Offsetof(cqx.comp_events_completed), "CQEx.AsyncEventsCompleted": unsafe.Offsetof(cqx.async_events_completed),
		"CQEx.CompMask": unsafe.Offsetof(cqx.comp_mask), "CQEx.Status": unsafe.Offsetof(cqx.status), "CQEx.WRID": unsafe.Offsetof(cqx.wr_id),
		"CQEx.StartPoll": unsafe.Offsetof(cqx.start_poll), "CQEx.NextPoll": unsafe.Offsetof(cqx.next_poll), "CQEx.EndPoll": unsafe.Offsetof(cqx.end_poll),
		"CQEx.ReadOpcode": unsafe.Offsetof(cqx.read_opcode), "CQEx.ReadVendorErr": unsafe.Offsetof(cqx.read_vendor_err),
		"CQEx.ReadByteLen": unsafe.Offsetof(cqx.read_byte_len), "CQEx.ReadImmData": unsafe.Offsetof(cqx.read_imm_data),
		"CQEx.ReadQPNum": unsafe.Offsetof(cqx.read_qp_num), "CQEx.ReadSrcQP": unsafe.Offsetof(cqx.read_src_qp),
		"CQEx.ReadWCFlags": unsafe.Offsetof(cqx.read_wc_flags), "CQEx.ReadSLID": unsafe.Offsetof(cqx.read_slid),
		"CQEx.ReadSL": unsafe.Offsetof(cqx.read_sl), "CQEx.ReadDLIDPathBits": unsafe.Offsetof(cqx.read_dlid_path_bits),
		"CQEx.ReadCompletionTS": unsafe.Offsetof(cqx.read_completion_ts), "CQEx.ReadCVLAN": unsafe.Offsetof(cqx.read_cvlan),
		"CQEx.ReadFlowTag": unsafe.Offsetof(cqx.read_flow_tag), "CQEx.ReadTMInfo": unsafe.Offsetof(cqx.read_tm_info),
		"CQEx.ReadCompletionWallclockNS": unsafe.Offsetof(cqx.read_completion_wallclock_ns),

		"QP": unsafe.Sizeof(qp), "QP.Context": unsafe.Offsetof(qp.context), "QP.QPContext": unsafe.Offsetof(qp.qp_context),
		"QP.PD": unsafe.Offsetof(qp.pd), "QP.SendCQ": unsafe.Offsetof(qp.send_cq), "QP.RecvCQ": unsafe.Offsetof(qp.recv_cq),
		"QP.SRQ": unsafe.Offsetof(qp.srq), "QP.Handle": unsafe.Offsetof(qp.handle), "QP.QPNum": unsafe.Offsetof(qp.qp_num),
		"QP.State": unsafe.Offsetof(qp.state), "QP.QPType": unsafe.Offsetof(qp.qp_type), "QP.Mutex": unsafe.Offsetof(qp.mutex),
		"QP.Cond": unsafe.Offsetof(qp.cond), "QP.EventsCompleted": unsafe.Offsetof(qp.events_completed),

		"QPEx": unsafe.Sizeof(qpx), "QPEx.QPBase": unsafe.Offsetof(qpx.qp_base), "QPEx.CompMask": unsafe.Offsetof(qpx.comp_mask),
		"QPEx.WRID": unsafe.Offsetof(qpx.wr_id), "QPEx.WRFlags": unsafe.Offsetof(qpx.wr_flags),
		"QPEx.WRAtomicCmpSwp": unsafe.Offsetof(qpx.wr_atomic_cmp_swp), "QPEx.WRAtomicFetchAdd": unsafe.Offsetof(qpx.wr_atomic_fetch_add),
		"QPEx.WRBindMW": unsafe.Offsetof(qpx.wr_bind_mw), "QPEx.WRLocalInv": unsafe.Offsetof(qpx.wr_local_inv),
		"QPEx.WRRDMARead": unsafe.Offsetof(qpx.wr_rdma_read), "QPEx.WRRDMAWrite": unsafe.Offsetof(qpx.wr_rdma_write),
		"QPEx.WRRDMAWriteImm": unsafe.Offsetof(qpx.wr_rdma_write_imm), "QPEx.WRSend": unsafe.Offsetof(qpx.wr_send),
		"QPEx.WRSendImm": unsafe.Offsetof(qpx.wr_send_imm), "QPEx.WRSendInv": unsafe.Offsetof(qpx.wr_send_inv),
		"QPEx.WRSendTSO": unsafe.Offsetof(qpx.wr_send_tso), "QPEx.WRSetUDAddr": unsafe.Offsetof(qpx.wr_set_ud_addr),
		"QPEx.WRSetXRCSRQN": unsafe.Offsetof(qpx.wr_set_xrc_srqn), "QPEx.WRSetInlineData": unsafe.Offsetof(qpx.wr_set_inline_data),
		"QPEx.WRSetInlineDataList": unsafe.Offsetof(qpx.wr_set_inline_data_list), "QPEx.WRSetSGE": unsafe.Offsetof(qpx.wr_set_sge),
		"QPEx.WRSetSGEList": unsafe.Offsetof(qpx.wr_set_sge_list), "QPEx.WRStart": unsafe.Offsetof(qpx.wr_start),
		"QPEx.WRComplete": unsafe.Offsetof(qpx.wr_complete), "QPEx.WRAbort": unsafe.Offsetof(qpx.wr_abort),
		"QPEx.WRAtomicWrite": unsafe.Offsetof(qpx.wr_atomic_write), "QPEx.WRFlush": unsafe.Offsetof(qpx.wr_flush),

		"SRQ": unsafe.Sizeof(srq), "SRQ.Context": unsafe.Offsetof(srq.context), "SRQ.SRQContext": unsafe.Offsetof(srq.srq_context),
		"SRQ.PD": unsafe.Offsetof(srq.pd), "SRQ.Handle": unsafe.Offsetof(srq.handle), "SRQ.Mutex": unsafe.Offsetof(srq.mutex),
		"SRQ.Cond": unsafe.Offsetof(srq.cond), "SRQ.EventsCompleted": unsafe.Offsetof(srq.events_completed),

		// Not libibverbs': the C loop's record of an extended completion, mirrored by WCEx.
		"stub.WCEx": unsafe.Sizeof(wcx), "stub.WCEx.WRID": unsafe.Offsetof(wcx.wr_id), "stub.WCEx.CompletionTS": unsafe.Offsetof(wcx.completion_ts),
		"stub.WCEx.Status": unsafe.Offsetof(wcx.status), "stub.WCEx.Opcode": unsafe.Offsetof(wcx.opcode),
		"stub.WCEx.VendorErr": unsafe.Offsetof(wcx.vendor_err), "stub.WCEx.ByteLen": unsafe.Offsetof(wcx.byte_len),
		"stub.WCEx.ImmData": unsafe.Offsetof(wcx.imm_data), "stub.WCEx.QPNum": unsafe.Offsetof(wcx.qp_num),
		"stub.WCEx.SrcQP": unsafe.Offsetof(wcx.src_qp), "stub.WCEx.WCFlags": unsafe.Offsetof(wcx.wc_flags),
		"stub.WCEx.SLID": unsafe.Offsetof(wcx.slid), "stub.WCEx.SL": unsafe.Offsetof(wcx.sl),
		"stub.WCEx.DLIDPathBits": unsafe.Offsetof(wcx.dlid_path_bits),
	}
	enums = map[string]uint64{
		"WCStatusSuccess": C.GVS_WC_SUCCESS, "WCStatusLocLenErr": C.GVS_WC_LOC_LEN_ERR, "WCStatusLocProtErr": C.GVS_WC_LOC_PROT_ERR,
		"WCStatusWRFlushErr": C.GVS_WC_WR_FLUSH_ERR, "WCStatusGeneralErr": C.GVS_WC_GENERAL_ERR,
		"WCOpcodeSend": C.GVS_WC_SEND, "WCOpcodeRDMAWrite": C.GVS_WC_RDMA_WRITE, "WCOpcodeRDMARead": C.GVS_WC_RDMA_READ,
		"WCOpcodeRecv": C.GVS_WC_RECV, "WCOpcodeRecvRDMAWithImm": C.GVS_WC_RECV_RDMA_WITH_IMM,
		"WCFlagsGRH": C.GVS_WC_GRH, "WCFlagsWithImm": C.GVS_WC_WITH_IMM,
		"WROpcodeRDMAWrite": C.GVS_WR_RDMA_WRITE, "WROpcodeRDMAWriteWithImm": C.GVS_WR_RDMA_WRITE_WITH_IMM,
		"WROpcodeSend": C.GVS_WR_SEND, "WROpcodeSendWithImm": C.GVS_WR_SEND_WITH_IMM, "WROpcodeRDMARead": C.GVS_WR_RDMA_READ,
		"SendFlagsFence": C.GVS_SEND_FENCE, "SendFlagsSignaled": C.GVS_SEND_SIGNALED, "SendFlagsSolicited": C.GVS_SEND_SOLICITED,
		"SendFlagsInline":        C.GVS_SEND_INLINE,
		"CreateCQWCFlagsByteLen": C.GVS_WC_EX_WITH_BYTE_LEN, "CreateCQWCFlagsImm": C.GVS_WC_EX_WITH_IMM,
		"CreateCQWCFlagsQPNum": C.GVS_WC_EX_WITH_QP_NUM, "CreateCQWCFlagsSrcQP": C.GVS_WC_EX_WITH_SRC_QP,
		"CreateCQWCFlagsSLID": C.GVS_WC_EX_WITH_SLID, "CreateCQWCFlagsSL": C.GVS_WC_EX_WITH_SL,
		"CreateCQWCFlagsDLIDPathBits":        C.GVS_WC_EX_WITH_DLID_PATH_BITS,
		"CreateCQWCFlagsCompletionTimestamp": C.GVS_WC_EX_WITH_COMPLETION_TIMESTAMP,
		"CreateCQWCFlagsCVLAN":               C.GVS_WC_EX_WITH_CVLAN, "CreateCQWCFlagsFlowTag": C.GVS_WC_EX_WITH_FLOW_TAG,
		"CreateCQWCFlagsTMInfo":                       C.GVS_WC_EX_WITH_TM_INFO,
		"CreateCQWCFlagsCompletionTimestampWallclock": C.GVS_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
		"QPTypeRC": C.GVS_QPT_RC,
	}
	return layout, enums
}
