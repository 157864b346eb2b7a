package emit

// Hand lists spec functions whose exported Go binding is written by hand
// in the package, with the file holding it: static inline functions that
// are pure arithmetic or casts, that add a sizeof argument, or that build
// work requests in C memory and call other bindings (rdma_verbs.h), which
// no generated shape covers. The generator emits nothing for them and
// the coverage report names the file; TestHandWritten checks each exists.
var Hand = map[string]string{
	"ibv_inc_rkey":                "ibv/inline_pure.go",
	"ibv_flow_label_to_udp_sport": "ibv/inline_pure.go",
	"ibv_is_qpt_supported":        "ibv/inline_pure.go",
	"ibv_cq_ex_to_cq":             "ibv/inline_pure.go",
	"ibv_query_gid_ex":            "ibv/inline_sized.go",
	"ibv_query_gid_table":         "ibv/inline_sized.go",
	"ibv_query_comp_cntr_caps":    "ibv/inline_sized.go",
	"rdma_post_send":              "rdmacm/post.go",
	"rdma_post_sendv":             "rdmacm/post.go",
	"rdma_post_recv":              "rdmacm/post.go",
	"rdma_post_recvv":             "rdmacm/post.go",
	"rdma_post_write":             "rdmacm/post.go",
	"rdma_post_writev":            "rdmacm/post.go",
	"rdma_post_read":              "rdmacm/post.go",
	"rdma_post_readv":             "rdmacm/post.go",
	"rdma_post_ud_send":           "rdmacm/post.go",
	"rdma_get_send_comp":          "rdmacm/comp.go",
	"rdma_get_recv_comp":          "rdmacm/comp.go",
	"rdma_reg_msgs":               "rdmacm/reg.go",
	"rdma_reg_read":               "rdmacm/reg.go",
	"rdma_reg_write":              "rdmacm/reg.go",
	"rdma_dereg_mr":               "rdmacm/reg.go",
	"rdma_get_local_addr":         "rdmacm/addr.go",
	"rdma_get_peer_addr":          "rdmacm/addr.go",
	// The direct verbs' WQE and CQE builders: static inlines that store
	// fields, byte-swapped, into a work queue entry or a CQE the caller
	// owns (no call, no symbol), in pure Go over the generated segment
	// types; wqe_test.go compares each with its C inline byte for byte.
	"mlx4dv_get_cqe_owner":  "mlx4dv/wqe.go",
	"mlx4dv_set_cqe_owner":  "mlx4dv/wqe.go",
	"mlx4dv_get_cqe_opcode": "mlx4dv/wqe.go",
	"mlx4dv_set_ctrl_seg":   "mlx4dv/wqe.go",
	"mlx4dv_set_dgram_seg":  "mlx4dv/wqe.go",
	"mlx4dv_set_data_seg":   "mlx4dv/wqe.go",
	"mlx5dv_get_cqe_owner":  "mlx5dv/wqe.go",
	"mlx5dv_set_cqe_owner":  "mlx5dv/wqe.go",
	"mlx5dv_get_cqe_se":     "mlx5dv/wqe.go",
	"mlx5dv_get_cqe_format": "mlx5dv/wqe.go",
	"mlx5dv_get_cqe_opcode": "mlx5dv/wqe.go",
	"mlx5dv_set_ctrl_seg":   "mlx5dv/wqe.go",
	"mlx5dv_set_dgram_seg":  "mlx5dv/wqe.go",
	"mlx5dv_set_data_seg":   "mlx5dv/wqe.go",
	"mlx5dv_set_eth_seg":    "mlx5dv/wqe.go",
	"mlx5dv_ts_to_ns":       "mlx5dv/wqe.go",
	// mlx5dv.h's DEVX_SET/DEVX_GET accessors: the Go function drops the
	// spec's Impl suffix (the macros, whose arguments are the device
	// specification's layouts, are not bound).
	"_devx_set":   "mlx5dv/devx.go",
	"_devx_get":   "mlx5dv/devx.go",
	"_devx_set64": "mlx5dv/devx.go",
	"_devx_get64": "mlx5dv/devx.go",
}

// HandShims lists functions whose raw wrapper c_<name> is written by hand
// in the package (a static inline with a fallback the generator does not
// derive), with the file holding it; the exported API is generated on top
// of it as for any other raw wrapper. A spec function whose Impl is listed
// here binds the Impl, not the compatibility symbol of its public name.
var HandShims = map[string]string{
	"___ibv_query_port":   "ibv/shim_query_port.go",
	"ibv_query_device_ex": "ibv/shim_fallback.go",
	"ibv_create_qp_ex":    "ibv/shim_fallback.go",
	"ibv_create_srq_ex":   "ibv/shim_fallback.go",
	"ibv_close_xrcd":      "ibv/shim_fallback.go",
	"ibv_alloc_mw":        "ibv/shim_fallback.go",
	"ibv_bind_mw":         "ibv/shim_fallback.go",
	"ibv_create_wq":       "ibv/shim_fallback.go",
}

// Excluded lists spec functions without a binding yet, with the reason.
var Excluded = map[string]string{
	"rdma_seterrno": "internal helper of the rdma_verbs.h inlines (moves a return code into errno); the Go helpers return errors instead",
}
