/*
 * A stub RDMA provider in C memory, for timing what the bindings add to each
 * data-path verb on the host CPU (no device, no guest). See doc.go.
 *
 * The first part mirrors, in our own declarations, the libibverbs structures
 * the stub reads and writes (struct ibv_context and its ops, ibv_cq/ibv_cq_ex,
 * ibv_qp/ibv_qp_ex, ibv_srq, ibv_wc, ibv_sge, ibv_send_wr, ibv_recv_wr): no
 * rdma-core header is included. Every size and member offset here is checked
 * against the generated ibv package's layout, itself proven against gcc and
 * the pinned headers (stubprovider's TestLayout), and pthread's types come
 * from libc, so the mirror holds on amd64 and arm64 alike.
 */
#ifndef GVS_STUB_H
#define GVS_STUB_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

/* ---- The libibverbs ABI, as the stub and its C loops use it. ---- */

struct gvs_wc;
struct gvs_cq;
struct gvs_qp;
struct gvs_srq;
struct gvs_send_wr;
struct gvs_recv_wr;

/* struct ibv_context_ops: 32 function pointers; the stub fills the five of
 * the data path. */
struct gvs_context_ops {
	void *compat0[11];	/* _compat_query_device .. _compat_create_cq */
	int (*poll_cq)(struct gvs_cq *cq, int num_entries, struct gvs_wc *wc);
	int (*req_notify_cq)(struct gvs_cq *cq, int solicited_only);
	void *compat1[7];	/* _compat_cq_event .. _compat_destroy_srq */
	int (*post_srq_recv)(struct gvs_srq *srq, struct gvs_recv_wr *wr, struct gvs_recv_wr **bad);
	void *compat2[4];	/* _compat_create_qp .. _compat_destroy_qp */
	int (*post_send)(struct gvs_qp *qp, struct gvs_send_wr *wr, struct gvs_send_wr **bad);
	int (*post_recv)(struct gvs_qp *qp, struct gvs_recv_wr *wr, struct gvs_recv_wr **bad);
	void *compat3[5];	/* _compat_create_ah .. _compat_async_event */
};

struct gvs_context {	/* struct ibv_context */
	void *device;
	struct gvs_context_ops ops;
	int cmd_fd;
	int async_fd;
	int num_comp_vectors;
	pthread_mutex_t mutex;
	void *abi_compat;
};

struct gvs_sge {	/* struct ibv_sge */
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct gvs_send_wr {	/* struct ibv_send_wr */
	uint64_t wr_id;
	struct gvs_send_wr *next;
	struct gvs_sge *sg_list;
	int num_sge;
	uint32_t opcode;	/* enum ibv_wr_opcode */
	unsigned int send_flags;
	uint32_t imm_data;	/* union with invalidate_rkey */
	union {
		struct { uint64_t remote_addr; uint32_t rkey; } rdma;
		struct { uint64_t remote_addr, compare_add, swap; uint32_t rkey; } atomic;
		struct { void *ah; uint32_t remote_qpn, remote_qkey; } ud;
	} wr;
	uint32_t qp_type;	/* union { struct { uint32_t remote_srqn; } xrc; } */
	union {
		struct { void *mw; uint32_t rkey; struct { void *mr; uint64_t addr, length; unsigned int mw_access_flags; } bind_info; } bind_mw;
		struct { void *hdr; uint16_t hdr_sz, mss; } tso;
	} u;
};

struct gvs_recv_wr {	/* struct ibv_recv_wr */
	uint64_t wr_id;
	struct gvs_recv_wr *next;
	struct gvs_sge *sg_list;
	int num_sge;
};

struct gvs_wc {		/* struct ibv_wc */
	uint64_t wr_id;
	uint32_t status;	/* enum ibv_wc_status */
	uint32_t opcode;	/* enum ibv_wc_opcode */
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;	/* union with invalidated_rkey */
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

struct gvs_tm_info {	/* struct ibv_wc_tm_info */
	uint64_t tag;
	uint32_t priv;
};

struct gvs_poll_cq_attr { uint32_t comp_mask; };

struct gvs_ibv_cq_ex {	/* struct ibv_cq_ex; struct ibv_cq is its head, to async_events_completed */
	struct gvs_context *context;
	void *channel;
	void *cq_context;
	uint32_t handle;
	int cqe;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;
	uint32_t comp_mask;
	uint32_t status;	/* enum ibv_wc_status */
	uint64_t wr_id;
	int (*start_poll)(struct gvs_ibv_cq_ex *cq, struct gvs_poll_cq_attr *attr);
	int (*next_poll)(struct gvs_ibv_cq_ex *cq);
	void (*end_poll)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_opcode)(struct gvs_ibv_cq_ex *cq);	/* enum ibv_wc_opcode */
	uint32_t (*read_vendor_err)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_byte_len)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_imm_data)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_qp_num)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_src_qp)(struct gvs_ibv_cq_ex *cq);
	unsigned int (*read_wc_flags)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_slid)(struct gvs_ibv_cq_ex *cq);
	uint8_t (*read_sl)(struct gvs_ibv_cq_ex *cq);
	uint8_t (*read_dlid_path_bits)(struct gvs_ibv_cq_ex *cq);
	uint64_t (*read_completion_ts)(struct gvs_ibv_cq_ex *cq);
	uint16_t (*read_cvlan)(struct gvs_ibv_cq_ex *cq);
	uint32_t (*read_flow_tag)(struct gvs_ibv_cq_ex *cq);
	void (*read_tm_info)(struct gvs_ibv_cq_ex *cq, struct gvs_tm_info *tm_info);
	uint64_t (*read_completion_wallclock_ns)(struct gvs_ibv_cq_ex *cq);
};

struct gvs_ibv_qp {	/* struct ibv_qp */
	struct gvs_context *context;
	void *qp_context;
	void *pd;
	void *send_cq;
	void *recv_cq;
	void *srq;
	uint32_t handle;
	uint32_t qp_num;
	uint32_t state;		/* enum ibv_qp_state */
	uint32_t qp_type;	/* enum ibv_qp_type */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

struct gvs_ibv_qp_ex;
typedef struct gvs_ibv_qp_ex gvs_qpx;

struct gvs_ibv_qp_ex {	/* struct ibv_qp_ex */
	struct gvs_ibv_qp qp_base;
	uint64_t comp_mask;
	uint64_t wr_id;
	unsigned int wr_flags;
	void (*wr_atomic_cmp_swp)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap);
	void (*wr_atomic_fetch_add)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add);
	void (*wr_bind_mw)(gvs_qpx *qp, void *mw, uint32_t rkey, const void *bind_info);
	void (*wr_local_inv)(gvs_qpx *qp, uint32_t invalidate_rkey);
	void (*wr_rdma_read)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr);
	void (*wr_rdma_write)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr);
	void (*wr_rdma_write_imm)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr, uint32_t imm_data);
	void (*wr_send)(gvs_qpx *qp);
	void (*wr_send_imm)(gvs_qpx *qp, uint32_t imm_data);
	void (*wr_send_inv)(gvs_qpx *qp, uint32_t invalidate_rkey);
	void (*wr_send_tso)(gvs_qpx *qp, void *hdr, uint16_t hdr_sz, uint16_t mss);
	void (*wr_set_ud_addr)(gvs_qpx *qp, void *ah, uint32_t remote_qpn, uint32_t remote_qkey);
	void (*wr_set_xrc_srqn)(gvs_qpx *qp, uint32_t remote_srqn);
	void (*wr_set_inline_data)(gvs_qpx *qp, void *addr, size_t length);
	void (*wr_set_inline_data_list)(gvs_qpx *qp, size_t num_buf, const void *buf_list);
	void (*wr_set_sge)(gvs_qpx *qp, uint32_t lkey, uint64_t addr, uint32_t length);
	void (*wr_set_sge_list)(gvs_qpx *qp, size_t num_sge, const struct gvs_sge *sg_list);
	void (*wr_start)(gvs_qpx *qp);
	int (*wr_complete)(gvs_qpx *qp);
	void (*wr_abort)(gvs_qpx *qp);
	void (*wr_atomic_write)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr);
	void (*wr_flush)(gvs_qpx *qp, uint32_t rkey, uint64_t remote_addr, size_t len, uint8_t type, uint8_t level);
};

struct gvs_ibv_srq {	/* struct ibv_srq */
	struct gvs_context *context;
	void *srq_context;
	void *pd;
	uint32_t handle;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/* The values of the libibverbs enums the stub uses (checked by TestLayout). */
enum {
	GVS_WC_SUCCESS = 0,
	GVS_WC_LOC_LEN_ERR = 1,
	GVS_WC_LOC_PROT_ERR = 4,
	GVS_WC_WR_FLUSH_ERR = 5,
	GVS_WC_GENERAL_ERR = 21,

	GVS_WC_SEND = 0,
	GVS_WC_RDMA_WRITE = 1,
	GVS_WC_RDMA_READ = 2,
	GVS_WC_RECV = 128,
	GVS_WC_RECV_RDMA_WITH_IMM = 129,

	GVS_WC_GRH = 1 << 0,
	GVS_WC_WITH_IMM = 1 << 1,

	GVS_WR_RDMA_WRITE = 0,
	GVS_WR_RDMA_WRITE_WITH_IMM = 1,
	GVS_WR_SEND = 2,
	GVS_WR_SEND_WITH_IMM = 3,
	GVS_WR_RDMA_READ = 4,

	GVS_SEND_FENCE = 1 << 0,
	GVS_SEND_SIGNALED = 1 << 1,
	GVS_SEND_SOLICITED = 1 << 2,
	GVS_SEND_INLINE = 1 << 3,

	GVS_QPT_RC = 2,

	GVS_WC_EX_WITH_BYTE_LEN = 1 << 0,
	GVS_WC_EX_WITH_IMM = 1 << 1,
	GVS_WC_EX_WITH_QP_NUM = 1 << 2,
	GVS_WC_EX_WITH_SRC_QP = 1 << 3,
	GVS_WC_EX_WITH_SLID = 1 << 4,
	GVS_WC_EX_WITH_SL = 1 << 5,
	GVS_WC_EX_WITH_DLID_PATH_BITS = 1 << 6,
	GVS_WC_EX_WITH_COMPLETION_TIMESTAMP = 1 << 7,
	GVS_WC_EX_WITH_CVLAN = 1 << 8,
	GVS_WC_EX_WITH_FLOW_TAG = 1 << 9,
	GVS_WC_EX_WITH_TM_INFO = 1 << 10,
	GVS_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1 << 11,
};

/* ---- The stub device's own formats and objects (not libibverbs'). ---- */

/* A completion queue entry as the stub device writes it: 64 bytes,
 * multi-byte fields big-endian, the opcode and an ownership bit in the last
 * byte (the layout is the stub's own; real devices differ in detail). */
struct gvs_cqe {
	uint8_t rsvd0[16];
	uint32_t flow_tag;	/* BE */
	uint16_t cvlan;		/* BE */
	uint16_t tm_priv;	/* BE */
	uint64_t tm_tag;	/* BE */
	uint32_t imm_inval_pkey;/* imm as sent (network order); else pkey index, BE */
	uint32_t syndrome;	/* BE: status and vendor error of an error entry */
	uint64_t timestamp;	/* BE */
	uint32_t byte_cnt;	/* BE */
	uint32_t flags_rqpn;	/* BE: grh << 28 | sl << 24 | source QP */
	uint16_t slid;		/* BE */
	uint8_t ml_path;
	uint8_t rsvd1;
	uint16_t wqe_counter;	/* BE */
	uint8_t signature;
	uint8_t op_own;		/* entry opcode << 4 | owner bit */
	uint32_t sop_drop_qpn;	/* BE: send opcode << 24 | QP number */
	uint8_t rsvd2[4];
};

/* The stub's CQE opcodes (op_own >> 4). */
enum {
	GVS_CQE_REQ = 0,
	GVS_CQE_RESP_WR_IMM = 1,
	GVS_CQE_RESP_SEND = 2,
	GVS_CQE_RESP_SEND_IMM = 3,
	GVS_CQE_REQ_ERR = 13,
	GVS_CQE_RESP_ERR = 14,
	GVS_CQE_INVALID = 15,
};

/* The lkey of the data segment that ends a receive WQE shorter than its slot. */
enum { GVS_INVALID_LKEY = 0x100 };

/* The stub's WQE opcodes (what a send WQE's control segment carries). */
enum {
	GVS_OP_RDMA_WRITE = 0x08,
	GVS_OP_RDMA_WRITE_IMM = 0x09,
	GVS_OP_SEND = 0x0a,
	GVS_OP_SEND_IMM = 0x0b,
	GVS_OP_RDMA_READ = 0x10,
};

/* A work queue: WQEs in a ring of 64-byte basic blocks (send) or fixed
 * strides (receive), the wr_id of each slot, and the doorbell record. */
struct gvs_wq {
	pthread_spinlock_t lock;
	uint8_t *buf;
	uint32_t wqe_cnt;	/* a power of two */
	uint32_t stride;	/* bytes per WQE slot (receive, SRQ) */
	uint32_t max_gs;
	uint32_t max_inline;
	uint32_t head, tail;	/* posted, and retired by the device */
	uint32_t cur_post;	/* send: in 64-byte basic blocks */
	uint64_t *wrid;
	uint32_t *wqe_head;
	volatile uint32_t *db;	/* the doorbell record */
	uint64_t posted;	/* work requests taken, for tests */
};

/* A send WQE's control segment. */
struct gvs_ctrl_seg {
	uint32_t opmod_idx_opcode;	/* BE */
	uint32_t qpn_ds;		/* BE */
	uint8_t signature;
	uint8_t rsvd[2];
	uint8_t fm_ce_se;
	uint32_t imm;
};

struct gvs_raddr_seg {
	uint64_t raddr;	/* BE */
	uint32_t rkey;	/* BE */
	uint32_t reserved;
};

struct gvs_data_seg {
	uint32_t byte_count;	/* BE */
	uint32_t lkey;		/* BE */
	uint64_t addr;		/* BE */
};

struct gvs_srq_next_seg {
	uint8_t rsvd0[2];
	uint16_t next_wqe_index;	/* BE */
	uint8_t signature;
	uint8_t rsvd1[11];
};

struct gvs_cq {
	struct gvs_ibv_cq_ex ex;	/* first: the provider's objects begin with libibverbs' */
	pthread_spinlock_t lock;
	struct gvs_cqe *ring;
	uint32_t ncqe;		/* a power of two */
	uint32_t cons_index;
	uint32_t prod_index;	/* the device's */
	uint32_t ready;		/* completions the device makes ready before each poll */
	uint32_t arm_sn;
	uint32_t cqn;
	volatile uint32_t *dbrec;	/* [0] consumer index, [1] arm */
	volatile uint64_t *uar;		/* the doorbell register (plain memory here) */
	struct gvs_cqe *cur;		/* extended polling: the current entry */
	uint32_t cur_qpn;		/* the completions' QP, as a provider caches it */
	struct gvs_qp *cur_qp;
	struct gvs_qp *qp;		/* the one QP whose completions the device makes */
	uint8_t *opcodes;		/* per ring slot: the entry opcode the device writes */
	uint64_t polled;		/* completions handed out, for tests */
	uint64_t calls;			/* poll_cq and start_poll calls, for tests */
	uint64_t arms;
	uint64_t ts_mult;
	uint32_t ts_shift;
};

struct gvs_qp {
	struct gvs_ibv_qp_ex ex;	/* first, as for the CQ */
	uint32_t verbs_comp_mask;	/* struct verbs_qp's */
	void *xrcd;
	struct gvs_wq sq, rq;
	uint32_t qpn;
	uint32_t max_wqe_bb;	/* the largest WQE, in basic blocks */
	volatile uint64_t *bf;		/* the send doorbell register (plain memory here) */
	struct gvs_srq *srq;
	/* ibv_wr_*: the WQE being built */
	struct gvs_ctrl_seg *cur_ctrl;
	uint8_t *cur_data;
	uint32_t cur_size;	/* in 16-byte units */
	uint32_t nreq;
	int err;
	uint32_t start_post;
};

struct gvs_srq {
	struct gvs_ibv_srq srq;
	pthread_spinlock_t lock;
	uint8_t *buf;
	uint32_t max, max_gs, stride;
	uint32_t head, tail;
	uint32_t counter, retired;
	uint64_t *wrid;
	volatile uint32_t *db;
	uint64_t posted;
};

/* ---- Making and freeing the objects. ---- */

/* gvs_context_new returns the struct ibv_context at the end of vctx_size
 * zeroed bytes (a struct verbs_context grows toward lower addresses), its
 * data-path ops set; gvs_context_free frees it. */
struct gvs_context *gvs_context_new(size_t vctx_size);
void gvs_context_free(struct gvs_context *ctx, size_t vctx_size);

/* gvs_cq_new makes a CQ of ncqe entries (a power of two) whose device
 * completes the work of qp (may be NULL: set with gvs_cq_attach); with ex,
 * the extended ops are set for the fields in wc_flags, as a provider sets
 * only the getters a CQ was created with. */
struct gvs_cq *gvs_cq_new(struct gvs_context *ctx, uint32_t ncqe, int ex, uint64_t wc_flags);
void gvs_cq_attach(struct gvs_cq *cq, struct gvs_qp *qp);
/* gvs_cq_complete: the device hands over k entries now. */
void gvs_cq_complete(struct gvs_cq *cq, uint32_t k);
void gvs_cq_free(struct gvs_cq *cq);

struct gvs_srq *gvs_srq_new(struct gvs_context *ctx, uint32_t max, uint32_t max_gs);
void gvs_srq_free(struct gvs_srq *srq);

struct gvs_qp *gvs_qp_new(struct gvs_context *ctx, struct gvs_cq *scq, struct gvs_cq *rcq, struct gvs_srq *srq,
			  uint32_t max_send, uint32_t max_recv, uint32_t max_send_sge, uint32_t max_recv_sge,
			  uint32_t max_inline, int ex);
void gvs_qp_free(struct gvs_qp *qp);

/* ---- The C loops: the work the Go benchmarks do, from C, iters times. ---- */

void gvs_noop(void);
/* Go memory as ibv's fast-path trampolines take it: a pointer to a type
 * without pointers, which cgo does not check at run time. */
struct gvs_mem { unsigned char opaque; };
void gvs_noop_args(uintptr_t a, uintptr_t b, struct gvs_mem *p);
int64_t gvs_loop_poll_cq(struct gvs_cq *cq, int n, struct gvs_wc *wc, int64_t iters);
int64_t gvs_loop_req_notify_cq(struct gvs_cq *cq, int64_t iters);
int64_t gvs_loop_post_send(struct gvs_qp *qp, struct gvs_send_wr *wrs, int n, int64_t iters);
int64_t gvs_loop_post_recv(struct gvs_qp *qp, struct gvs_recv_wr *wrs, int n, int64_t iters);
int64_t gvs_loop_post_srq_recv(struct gvs_srq *srq, struct gvs_recv_wr *wrs, int n, int64_t iters);

/* What a program keeps of one completion of an extended CQ created with
 * the standard fields and the completion time stamp. */
struct gvs_wc_ex {
	uint64_t wr_id;
	uint64_t completion_ts;
	uint32_t status;
	uint32_t opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;
	uint32_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};
int64_t gvs_loop_poll_ex(struct gvs_cq *cq, int n, struct gvs_wc_ex *out, int64_t iters);
int64_t gvs_loop_wr(struct gvs_qp *qp, int n, uint32_t lkey, uint64_t addr, int64_t iters);

#endif
