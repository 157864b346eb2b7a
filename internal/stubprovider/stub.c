//go:build linux && cgo

/*
 * The stub provider: a CQ, QP and SRQ whose ops do per completion and per
 * work request what a hardware provider's do (read a 64-byte CQE from a
 * ring, check its ownership, convert it into a struct ibv_wc; build a WQE
 * from a work request's segments, keep its wr_id, ring the doorbell), with
 * a device emulated as far as the ops need one: before each poll it hands
 * over the entries a test asked for (their last byte, the ownership), and
 * at each doorbell it retires what was posted. Written for goverbs from
 * the shape of the providers' data paths (mlx5 and rxe); the formats are
 * the stub's own.
 */

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

#define GVS_BB 64			/* a send WQE basic block */
#define GVS_SE_SIGNALED 0x08		/* fm_ce_se: completion entry */
#define GVS_SE_SOLICITED 0x02
#define GVS_SE_FENCE 0x40
#define GVS_CQ_DB_REQ_NOT_SOL (1u << 24)
#define GVS_CQ_DB_REQ_NOT (0u << 24)

static inline void gvs_from_device_barrier(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void gvs_to_device_barrier(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }

/* The write-combining flush after a doorbell register write. */
static inline void gvs_flush_writes(void)
{
#if defined(__x86_64__)
	__asm__ volatile("sfence" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static void *gvs_zalloc(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, n ? n : 64))
		abort();
	memset(p, 0, n);
	return p;
}

static uint32_t gvs_pow2(uint32_t n)
{
	uint32_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

static inline struct gvs_cq *to_cq(void *ibcq) { return (struct gvs_cq *)ibcq; }
static inline struct gvs_qp *to_qp(void *ibqp) { return (struct gvs_qp *)ibqp; }
static inline struct gvs_srq *to_srq(void *ibsrq) { return (struct gvs_srq *)ibsrq; }

/* ---- The completion queue. ---- */

/* The device hands over up to k entries: their content was written when
 * the CQ was made, so it writes each one's last byte, opcode and ownership
 * (a real device writes the whole entry by DMA; its cache line then misses
 * where here it hits). Never more than the ring holds unpolled. */
static inline void gvs_device_complete(struct gvs_cq *cq, uint32_t k)
{
	uint32_t mask = cq->ncqe - 1;
	while (k-- && cq->prod_index - cq->cons_index < cq->ncqe) {
		uint32_t p = cq->prod_index++;
		cq->ring[p & mask].op_own = (uint8_t)(cq->opcodes[p & mask] << 4 | !!(p & cq->ncqe));
	}
	gvs_to_device_barrier();
}

/* The next entry software owns, or NULL. */
static inline struct gvs_cqe *gvs_next_cqe(struct gvs_cq *cq)
{
	uint32_t n = cq->cons_index;
	struct gvs_cqe *cqe = &cq->ring[n & (cq->ncqe - 1)];
	uint8_t op_own = *(volatile uint8_t *)&cqe->op_own;

	if ((op_own >> 4) != GVS_CQE_INVALID && !((op_own & 1) ^ !!(n & cq->ncqe)))
		return cqe;
	return NULL;
}

static inline void gvs_update_cons_index(struct gvs_cq *cq)
{
	cq->dbrec[0] = htobe32(cq->cons_index & 0xffffff);
}

/* The QP an entry belongs to, through the last one looked up. */
static inline struct gvs_qp *gvs_find_qp(struct gvs_cq *cq, uint32_t qpn)
{
	if (qpn != cq->cur_qpn || !cq->cur_qp) {
		struct gvs_qp *qp = cq->qp;
		if (!qp || qp->qpn != qpn)
			return NULL;
		cq->cur_qp = qp;
		cq->cur_qpn = qpn;
	}
	return cq->cur_qp;
}

static inline uint32_t gvs_err_status(struct gvs_cqe *cqe)
{
	switch (be32toh(cqe->syndrome) >> 24) {
	case 0x01: return GVS_WC_LOC_LEN_ERR;
	case 0x04: return GVS_WC_LOC_PROT_ERR;
	case 0x05: return GVS_WC_WR_FLUSH_ERR;
	default: return GVS_WC_GENERAL_ERR;
	}
}

/* The wr_id of a responder entry: its SRQ's slot, else the receive queue's. */
static inline uint64_t gvs_recv_wrid(struct gvs_qp *qp, struct gvs_cqe *cqe)
{
	uint16_t ctr = be16toh(cqe->wqe_counter);

	if (qp->srq) {
		struct gvs_srq *srq = qp->srq;
		return srq->wrid[ctr & (srq->max - 1)];
	}
	return qp->rq.wrid[ctr & (qp->rq.wqe_cnt - 1)];
}

/* One entry into a struct ibv_wc. */
static inline int gvs_poll_one(struct gvs_cq *cq, struct gvs_wc *wc)
{
	struct gvs_cqe *cqe = gvs_next_cqe(cq);
	struct gvs_qp *qp;
	uint32_t qpn, rqpn;
	uint8_t opcode;

	if (!cqe)
		return 0;
	++cq->cons_index;
	gvs_from_device_barrier();	/* read the entry after its ownership */

	opcode = cqe->op_own >> 4;
	qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	qp = gvs_find_qp(cq, qpn);
	if (!qp)
		return -1;
	wc->qp_num = qpn;
	wc->wc_flags = 0;
	wc->vendor_err = 0;
	wc->status = GVS_WC_SUCCESS;
	switch (opcode) {
	case GVS_CQE_REQ:
		wc->wr_id = qp->sq.wrid[be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1)];
		wc->byte_len = 0;
		switch (be32toh(cqe->sop_drop_qpn) >> 24) {
		case GVS_OP_RDMA_WRITE_IMM:
			wc->wc_flags |= GVS_WC_WITH_IMM;
			/* fall through */
		case GVS_OP_RDMA_WRITE:
			wc->opcode = GVS_WC_RDMA_WRITE;
			break;
		case GVS_OP_SEND_IMM:
			wc->wc_flags |= GVS_WC_WITH_IMM;
			/* fall through */
		case GVS_OP_SEND:
			wc->opcode = GVS_WC_SEND;
			break;
		case GVS_OP_RDMA_READ:
			wc->opcode = GVS_WC_RDMA_READ;
			wc->byte_len = be32toh(cqe->byte_cnt);
			break;
		}
		wc->imm_data = 0;
		wc->src_qp = 0;
		wc->slid = 0;
		wc->sl = 0;
		wc->dlid_path_bits = 0;
		wc->pkey_index = 0;
		break;
	case GVS_CQE_RESP_WR_IMM:
	case GVS_CQE_RESP_SEND:
	case GVS_CQE_RESP_SEND_IMM:
		wc->wr_id = gvs_recv_wrid(qp, cqe);
		wc->byte_len = be32toh(cqe->byte_cnt);
		if (opcode == GVS_CQE_RESP_SEND) {
			wc->opcode = GVS_WC_RECV;
			wc->imm_data = 0;
			wc->pkey_index = be32toh(cqe->imm_inval_pkey) & 0xffff;
		} else {
			wc->opcode = opcode == GVS_CQE_RESP_WR_IMM ? GVS_WC_RECV_RDMA_WITH_IMM : GVS_WC_RECV;
			wc->wc_flags |= GVS_WC_WITH_IMM;
			wc->imm_data = cqe->imm_inval_pkey;
			wc->pkey_index = 0;
		}
		rqpn = be32toh(cqe->flags_rqpn);
		wc->slid = be16toh(cqe->slid);
		wc->sl = (rqpn >> 24) & 0xf;
		wc->src_qp = rqpn & 0xffffff;
		wc->dlid_path_bits = cqe->ml_path & 0x7f;
		wc->wc_flags |= (rqpn >> 28) & 3 ? GVS_WC_GRH : 0;
		break;
	default: /* an error entry */
		wc->status = gvs_err_status(cqe);
		wc->vendor_err = be32toh(cqe->syndrome) & 0xffffff;
		wc->wr_id = opcode == GVS_CQE_REQ_ERR ?
			qp->sq.wrid[be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1)] : gvs_recv_wrid(qp, cqe);
		wc->opcode = 0;
		wc->byte_len = 0;
		break;
	}
	return 1;
}

static int gvs_poll_cq(struct gvs_cq *cq, int ne, struct gvs_wc *wc)
{
	int npolled, r = 0;

	pthread_spin_lock(&cq->lock);
	cq->calls++;
	gvs_device_complete(cq, cq->ready);
	for (npolled = 0; npolled < ne; ++npolled) {
		r = gvs_poll_one(cq, wc + npolled);
		if (r <= 0)
			break;
	}
	if (npolled)
		gvs_update_cons_index(cq);
	cq->polled += npolled;
	pthread_spin_unlock(&cq->lock);
	return r < 0 && npolled == 0 ? -1 : npolled;
}

static int gvs_req_notify_cq(struct gvs_cq *cq, int solicited)
{
	uint32_t sn = cq->arm_sn & 3;
	uint32_t ci = cq->cons_index & 0xffffff;
	uint32_t cmd = solicited ? GVS_CQ_DB_REQ_NOT_SOL : GVS_CQ_DB_REQ_NOT;
	uint64_t doorbell;

	cq->dbrec[1] = htobe32(sn << 28 | cmd | ci);
	/* The arm record before the doorbell that makes the device read it. */
	gvs_to_device_barrier();
	doorbell = (uint64_t)htobe32(sn << 28 | cmd | ci) << 32 | htobe32(cq->cqn);
	*cq->uar = doorbell;
	cq->arms++;
	return 0;
}

/* The extended CQ: start_poll hands over the ready entries and parses the
 * first lazily (wr_id and status into the struct ibv_cq_ex, the entry kept
 * for the getters), next_poll the next, end_poll publishes the consumer
 * index. */
static inline int gvs_parse_lazy(struct gvs_cq *cq, struct gvs_cqe *cqe)
{
	struct gvs_qp *qp;
	uint8_t opcode;

	++cq->cons_index;
	gvs_from_device_barrier();
	cq->cur = cqe;
	qp = gvs_find_qp(cq, be32toh(cqe->sop_drop_qpn) & 0xffffff);
	if (!qp)
		return EINVAL;
	opcode = cqe->op_own >> 4;
	switch (opcode) {
	case GVS_CQE_REQ:
		cq->ex.wr_id = qp->sq.wrid[be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1)];
		cq->ex.status = GVS_WC_SUCCESS;
		break;
	case GVS_CQE_RESP_WR_IMM:
	case GVS_CQE_RESP_SEND:
	case GVS_CQE_RESP_SEND_IMM:
		cq->ex.wr_id = gvs_recv_wrid(qp, cqe);
		cq->ex.status = GVS_WC_SUCCESS;
		break;
	default:
		cq->ex.wr_id = opcode == GVS_CQE_REQ_ERR ?
			qp->sq.wrid[be16toh(cqe->wqe_counter) & (qp->sq.wqe_cnt - 1)] : gvs_recv_wrid(qp, cqe);
		cq->ex.status = gvs_err_status(cqe);
		break;
	}
	cq->polled++;
	return 0;
}

static int gvs_start_poll(struct gvs_ibv_cq_ex *ibcq, struct gvs_poll_cq_attr *attr)
{
	struct gvs_cq *cq = to_cq(ibcq);
	struct gvs_cqe *cqe;
	int err;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	cq->calls++;
	gvs_device_complete(cq, cq->ready);
	cqe = gvs_next_cqe(cq);
	if (!cqe) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	err = gvs_parse_lazy(cq, cqe);
	if (err)
		pthread_spin_unlock(&cq->lock);
	return err;
}

static int gvs_next_poll(struct gvs_ibv_cq_ex *ibcq)
{
	struct gvs_cq *cq = to_cq(ibcq);
	struct gvs_cqe *cqe = gvs_next_cqe(cq);

	if (!cqe)
		return ENOENT;
	return gvs_parse_lazy(cq, cqe);
}

static void gvs_end_poll(struct gvs_ibv_cq_ex *ibcq)
{
	struct gvs_cq *cq = to_cq(ibcq);

	gvs_update_cons_index(cq);
	pthread_spin_unlock(&cq->lock);
}

static uint32_t gvs_read_opcode(struct gvs_ibv_cq_ex *ibcq)
{
	struct gvs_cqe *cqe = to_cq(ibcq)->cur;

	switch (cqe->op_own >> 4) {
	case GVS_CQE_REQ:
		switch (be32toh(cqe->sop_drop_qpn) >> 24) {
		case GVS_OP_RDMA_WRITE_IMM:
		case GVS_OP_RDMA_WRITE:
			return GVS_WC_RDMA_WRITE;
		case GVS_OP_RDMA_READ:
			return GVS_WC_RDMA_READ;
		default:
			return GVS_WC_SEND;
		}
	case GVS_CQE_RESP_WR_IMM:
		return GVS_WC_RECV_RDMA_WITH_IMM;
	case GVS_CQE_RESP_SEND:
	case GVS_CQE_RESP_SEND_IMM:
		return GVS_WC_RECV;
	}
	return 0;
}

static uint32_t gvs_read_vendor_err(struct gvs_ibv_cq_ex *ibcq)
{
	struct gvs_cqe *cqe = to_cq(ibcq)->cur;
	uint8_t op = cqe->op_own >> 4;

	return op == GVS_CQE_REQ_ERR || op == GVS_CQE_RESP_ERR ? be32toh(cqe->syndrome) & 0xffffff : 0;
}

static uint32_t gvs_read_byte_len(struct gvs_ibv_cq_ex *ibcq)
{
	return be32toh(to_cq(ibcq)->cur->byte_cnt);
}

static uint32_t gvs_read_imm_data(struct gvs_ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur->imm_inval_pkey;
}

static uint32_t gvs_read_qp_num(struct gvs_ibv_cq_ex *ibcq)
{
	return be32toh(to_cq(ibcq)->cur->sop_drop_qpn) & 0xffffff;
}

static uint32_t gvs_read_src_qp(struct gvs_ibv_cq_ex *ibcq)
{
	return be32toh(to_cq(ibcq)->cur->flags_rqpn) & 0xffffff;
}

static unsigned int gvs_read_wc_flags(struct gvs_ibv_cq_ex *ibcq)
{
	struct gvs_cqe *cqe = to_cq(ibcq)->cur;
	unsigned int flags = 0;

	switch (cqe->op_own >> 4) {
	case GVS_CQE_RESP_WR_IMM:
	case GVS_CQE_RESP_SEND_IMM:
		flags |= GVS_WC_WITH_IMM;
		/* fall through */
	case GVS_CQE_RESP_SEND:
		flags |= (be32toh(cqe->flags_rqpn) >> 28) & 3 ? GVS_WC_GRH : 0;
		break;
	case GVS_CQE_REQ:
		switch (be32toh(cqe->sop_drop_qpn) >> 24) {
		case GVS_OP_RDMA_WRITE_IMM:
		case GVS_OP_SEND_IMM:
			flags |= GVS_WC_WITH_IMM;
		}
		break;
	}
	return flags;
}

static uint32_t gvs_read_slid(struct gvs_ibv_cq_ex *ibcq)
{
	return be16toh(to_cq(ibcq)->cur->slid);
}

static uint8_t gvs_read_sl(struct gvs_ibv_cq_ex *ibcq)
{
	return (be32toh(to_cq(ibcq)->cur->flags_rqpn) >> 24) & 0xf;
}

static uint8_t gvs_read_dlid_path_bits(struct gvs_ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur->ml_path & 0x7f;
}

static uint64_t gvs_read_completion_ts(struct gvs_ibv_cq_ex *ibcq)
{
	return be64toh(to_cq(ibcq)->cur->timestamp);
}

static uint64_t gvs_read_completion_wallclock_ns(struct gvs_ibv_cq_ex *ibcq)
{
	struct gvs_cq *cq = to_cq(ibcq);

	return (be64toh(cq->cur->timestamp) * cq->ts_mult) >> cq->ts_shift;
}

static uint16_t gvs_read_cvlan(struct gvs_ibv_cq_ex *ibcq)
{
	return be16toh(to_cq(ibcq)->cur->cvlan);
}

static uint32_t gvs_read_flow_tag(struct gvs_ibv_cq_ex *ibcq)
{
	return be32toh(to_cq(ibcq)->cur->flow_tag) & 0xffffff;
}

static void gvs_read_tm_info(struct gvs_ibv_cq_ex *ibcq, struct gvs_tm_info *tm)
{
	struct gvs_cqe *cqe = to_cq(ibcq)->cur;

	tm->tag = be64toh(cqe->tm_tag);
	tm->priv = be16toh(cqe->tm_priv);
}

/* ---- The send queue. ---- */

static inline void *gvs_send_wqe(struct gvs_qp *qp, uint32_t bb)
{
	return qp->sq.buf + (size_t)(bb & (qp->sq.wqe_cnt - 1)) * GVS_BB;
}

/* The 16-byte segment after seg, wrapping at the end of the ring. */
static inline uint8_t *gvs_next_seg(struct gvs_qp *qp, uint8_t *seg)
{
	seg += 16;
	if (seg == qp->sq.buf + (size_t)qp->sq.wqe_cnt * GVS_BB)
		seg = qp->sq.buf;
	return seg;
}

static const uint8_t gvs_wr_opcode[] = {
	[GVS_WR_RDMA_WRITE] = GVS_OP_RDMA_WRITE,
	[GVS_WR_RDMA_WRITE_WITH_IMM] = GVS_OP_RDMA_WRITE_IMM,
	[GVS_WR_SEND] = GVS_OP_SEND,
	[GVS_WR_SEND_WITH_IMM] = GVS_OP_SEND_IMM,
	[GVS_WR_RDMA_READ] = GVS_OP_RDMA_READ,
};

static inline uint8_t gvs_fm_ce_se(unsigned int flags)
{
	return (flags & GVS_SEND_SIGNALED ? GVS_SE_SIGNALED : 0) |
	       (flags & GVS_SEND_SOLICITED ? GVS_SE_SOLICITED : 0) |
	       (flags & GVS_SEND_FENCE ? GVS_SE_FENCE : 0);
}

/* Rings the send doorbell: the record, then the register with the last
 * WQE's first eight bytes; the device then takes every WQE posted. */
static inline void gvs_ring_send(struct gvs_qp *qp, struct gvs_ctrl_seg *ctrl)
{
	gvs_to_device_barrier();
	*qp->sq.db = htobe32(qp->sq.cur_post & 0xffff);
	gvs_to_device_barrier();
	*qp->bf = *(uint64_t *)ctrl;
	gvs_flush_writes();
	qp->sq.tail = qp->sq.cur_post;	/* the device */
}

static int gvs_post_send(struct gvs_qp *qp, struct gvs_send_wr *wr, struct gvs_send_wr **bad)
{
	struct gvs_ctrl_seg *ctrl, *last = NULL;
	uint32_t nreq;
	int err = 0;

	pthread_spin_lock(&qp->sq.lock);
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		uint32_t size = sizeof(struct gvs_ctrl_seg) / 16, idx;
		uint8_t *seg;
		uint8_t op;

		if ((unsigned)wr->num_sge > qp->sq.max_gs || wr->num_sge < 0 ||
		    wr->opcode >= sizeof(gvs_wr_opcode) || !gvs_wr_opcode[wr->opcode]) {
			err = EINVAL;
			*bad = wr;
			break;
		}
		/* Room for the largest WQE the QP takes. */
		if (qp->sq.cur_post - qp->sq.tail + qp->max_wqe_bb > qp->sq.wqe_cnt) {
			err = ENOMEM;
			*bad = wr;
			break;
		}
		op = gvs_wr_opcode[wr->opcode];
		idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
		ctrl = gvs_send_wqe(qp, qp->sq.cur_post);
		ctrl->signature = 0;
		ctrl->rsvd[0] = ctrl->rsvd[1] = 0;
		ctrl->fm_ce_se = gvs_fm_ce_se(wr->send_flags);
		ctrl->imm = (op == GVS_OP_SEND_IMM || op == GVS_OP_RDMA_WRITE_IMM) ? wr->imm_data : 0;
		seg = (uint8_t *)ctrl + sizeof(*ctrl);
		switch (wr->opcode) {
		case GVS_WR_RDMA_WRITE:
		case GVS_WR_RDMA_WRITE_WITH_IMM:
		case GVS_WR_RDMA_READ: {
			struct gvs_raddr_seg *r = (struct gvs_raddr_seg *)seg;
			r->raddr = htobe64(wr->wr.rdma.remote_addr);
			r->rkey = htobe32(wr->wr.rdma.rkey);
			r->reserved = 0;
			seg = gvs_next_seg(qp, seg);
			size++;
			break;
		}
		default:
			break;
		}
		if (wr->send_flags & GVS_SEND_INLINE) {
			uint32_t len = 0;
			for (int i = 0; i < wr->num_sge; i++)
				len += wr->sg_list[i].length;
			if (len > qp->sq.max_inline) {
				err = ENOMEM;
				*bad = wr;
				break;
			}
			/* a byte count, then the data, in whole segments */
			uint32_t off = 4;
			*(uint32_t *)seg = htobe32(len | 0x80000000u);
			for (int i = 0; i < wr->num_sge; i++) {
				const uint8_t *src = (const uint8_t *)(uintptr_t)wr->sg_list[i].addr;
				for (uint32_t j = 0; j < wr->sg_list[i].length; j++) {
					seg[off++] = src[j];
					if (off == 16) {
						seg = gvs_next_seg(qp, seg);
						size++;
						off = 0;
					}
				}
			}
			if (off) {
				seg = gvs_next_seg(qp, seg);
				size++;
			}
		} else {
			for (int i = 0; i < wr->num_sge; i++) {
				struct gvs_data_seg *d = (struct gvs_data_seg *)seg;
				if (!wr->sg_list[i].length)
					continue;
				d->byte_count = htobe32(wr->sg_list[i].length);
				d->lkey = htobe32(wr->sg_list[i].lkey);
				d->addr = htobe64(wr->sg_list[i].addr);
				seg = gvs_next_seg(qp, seg);
				size++;
			}
		}
		ctrl->opmod_idx_opcode = htobe32((qp->sq.cur_post & 0xffff) << 8 | op);
		ctrl->qpn_ds = htobe32(size | qp->qpn << 8);
		qp->sq.wrid[idx] = wr->wr_id;
		qp->sq.wqe_head[idx] = qp->sq.head + nreq;
		qp->sq.cur_post += (size * 16 + GVS_BB - 1) / GVS_BB;
		last = ctrl;
	}
	if (nreq) {
		qp->sq.head += nreq;
		qp->sq.posted += nreq;
		gvs_ring_send(qp, last);
	}
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

/* ---- The receive queues. ---- */

static int gvs_post_recv(struct gvs_qp *qp, struct gvs_recv_wr *wr, struct gvs_recv_wr **bad)
{
	struct gvs_wq *rq = &qp->rq;
	uint32_t nreq;
	int err = 0;

	pthread_spin_lock(&rq->lock);
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		uint32_t idx = (rq->head + nreq) & (rq->wqe_cnt - 1);
		struct gvs_data_seg *scat;
		int i, j;

		if (rq->head + nreq - rq->tail >= rq->wqe_cnt) {
			err = ENOMEM;
			*bad = wr;
			break;
		}
		if ((unsigned)wr->num_sge > rq->max_gs || wr->num_sge < 0) {
			err = EINVAL;
			*bad = wr;
			break;
		}
		scat = (struct gvs_data_seg *)(rq->buf + (size_t)idx * rq->stride);
		for (i = 0, j = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			scat[j].byte_count = htobe32(wr->sg_list[i].length);
			scat[j].lkey = htobe32(wr->sg_list[i].lkey);
			scat[j].addr = htobe64(wr->sg_list[i].addr);
			j++;
		}
		if ((unsigned)j < rq->max_gs) {
			scat[j].byte_count = 0;
			scat[j].lkey = htobe32(GVS_INVALID_LKEY);
			scat[j].addr = 0;
		}
		rq->wrid[idx] = wr->wr_id;
	}
	if (nreq) {
		rq->head += nreq;
		rq->posted += nreq;
		/* The WQEs before the doorbell record that makes the device read them. */
		gvs_to_device_barrier();
		*rq->db = htobe32(rq->head & 0xffff);
		rq->tail = rq->head;	/* the device */
	}
	pthread_spin_unlock(&rq->lock);
	return err;
}

static int gvs_post_srq_recv(struct gvs_srq *srq, struct gvs_recv_wr *wr, struct gvs_recv_wr **bad)
{
	uint32_t nreq;
	int err = 0;

	pthread_spin_lock(&srq->lock);
	for (nreq = 0; wr; ++nreq, wr = wr->next) {
		struct gvs_srq_next_seg *next;
		struct gvs_data_seg *scat;
		uint32_t ind = srq->head;
		int i, j;

		if ((unsigned)wr->num_sge > srq->max_gs || wr->num_sge < 0) {
			err = EINVAL;
			*bad = wr;
			break;
		}
		if (srq->counter + nreq - srq->retired >= srq->max - 1) {
			err = ENOMEM;
			*bad = wr;
			break;
		}
		srq->wrid[ind] = wr->wr_id;
		next = (struct gvs_srq_next_seg *)(srq->buf + (size_t)ind * srq->stride);
		srq->head = be16toh(next->next_wqe_index);
		scat = (struct gvs_data_seg *)(next + 1);
		for (i = 0, j = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			scat[j].byte_count = htobe32(wr->sg_list[i].length);
			scat[j].lkey = htobe32(wr->sg_list[i].lkey);
			scat[j].addr = htobe64(wr->sg_list[i].addr);
			j++;
		}
		if ((unsigned)j < srq->max_gs) {
			scat[j].byte_count = 0;
			scat[j].lkey = htobe32(GVS_INVALID_LKEY);
			scat[j].addr = 0;
		}
	}
	if (nreq) {
		srq->counter += nreq;
		srq->posted += nreq;
		gvs_to_device_barrier();
		*srq->db = htobe32(srq->counter);
		srq->retired = srq->counter;	/* the device */
	}
	pthread_spin_unlock(&srq->lock);
	return err;
}

/* ---- The extended QP (ibv_wr_*). ---- */

static void gvs_wr_start(gvs_qpx *ibqp)
{
	struct gvs_qp *qp = to_qp(ibqp);

	pthread_spin_lock(&qp->sq.lock);
	qp->start_post = qp->sq.cur_post;
	qp->nreq = 0;
	qp->err = 0;
	qp->cur_ctrl = NULL;
}

/* A WQE's control segment for the op, from wr_id and wr_flags. */
static inline void gvs_wr_init(struct gvs_qp *qp, uint8_t op, uint32_t imm)
{
	struct gvs_ctrl_seg *ctrl;
	uint32_t idx;

	if (qp->sq.cur_post - qp->sq.tail + qp->max_wqe_bb > qp->sq.wqe_cnt) {
		if (!qp->err)
			qp->err = ENOMEM;
		qp->cur_ctrl = NULL;
		return;
	}
	idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
	ctrl = gvs_send_wqe(qp, qp->sq.cur_post);
	ctrl->opmod_idx_opcode = htobe32((qp->sq.cur_post & 0xffff) << 8 | op);
	ctrl->signature = 0;
	ctrl->rsvd[0] = ctrl->rsvd[1] = 0;
	ctrl->fm_ce_se = gvs_fm_ce_se(qp->ex.wr_flags);
	ctrl->imm = imm;
	qp->sq.wrid[idx] = qp->ex.wr_id;
	qp->sq.wqe_head[idx] = qp->sq.head + qp->nreq;
	qp->cur_ctrl = ctrl;
	qp->cur_data = (uint8_t *)ctrl + sizeof(*ctrl);
	qp->cur_size = sizeof(*ctrl) / 16;
	qp->nreq++;
}

static inline void gvs_wr_raddr(struct gvs_qp *qp, uint32_t rkey, uint64_t raddr)
{
	struct gvs_raddr_seg *r;

	if (!qp->cur_ctrl)
		return;
	r = (struct gvs_raddr_seg *)qp->cur_data;
	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
	qp->cur_data = gvs_next_seg(qp, qp->cur_data);
	qp->cur_size++;
}

/* The WQE is whole: its size into the control segment, the next one's place. */
static inline void gvs_wr_finish(struct gvs_qp *qp)
{
	qp->cur_ctrl->qpn_ds = htobe32(qp->cur_size | qp->qpn << 8);
	qp->sq.cur_post += (qp->cur_size * 16 + GVS_BB - 1) / GVS_BB;
}

static void gvs_wr_send(gvs_qpx *ibqp) { gvs_wr_init(to_qp(ibqp), GVS_OP_SEND, 0); }
static void gvs_wr_send_imm(gvs_qpx *ibqp, uint32_t imm) { gvs_wr_init(to_qp(ibqp), GVS_OP_SEND_IMM, imm); }

static void gvs_wr_rdma_write(gvs_qpx *ibqp, uint32_t rkey, uint64_t raddr)
{
	struct gvs_qp *qp = to_qp(ibqp);

	gvs_wr_init(qp, GVS_OP_RDMA_WRITE, 0);
	gvs_wr_raddr(qp, rkey, raddr);
}

static void gvs_wr_rdma_write_imm(gvs_qpx *ibqp, uint32_t rkey, uint64_t raddr, uint32_t imm)
{
	struct gvs_qp *qp = to_qp(ibqp);

	gvs_wr_init(qp, GVS_OP_RDMA_WRITE_IMM, imm);
	gvs_wr_raddr(qp, rkey, raddr);
}

static void gvs_wr_rdma_read(gvs_qpx *ibqp, uint32_t rkey, uint64_t raddr)
{
	struct gvs_qp *qp = to_qp(ibqp);

	gvs_wr_init(qp, GVS_OP_RDMA_READ, 0);
	gvs_wr_raddr(qp, rkey, raddr);
}

static void gvs_wr_set_sge(gvs_qpx *ibqp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct gvs_qp *qp = to_qp(ibqp);
	struct gvs_data_seg *d;

	if (!qp->cur_ctrl)
		return;
	if (length) {
		d = (struct gvs_data_seg *)qp->cur_data;
		d->byte_count = htobe32(length);
		d->lkey = htobe32(lkey);
		d->addr = htobe64(addr);
		qp->cur_size++;
	}
	gvs_wr_finish(qp);
}

static void gvs_wr_set_sge_list(gvs_qpx *ibqp, size_t num_sge, const struct gvs_sge *sg)
{
	struct gvs_qp *qp = to_qp(ibqp);

	if (!qp->cur_ctrl)
		return;
	if (num_sge > qp->sq.max_gs) {
		if (!qp->err)
			qp->err = EINVAL;
		return;
	}
	for (size_t i = 0; i < num_sge; i++) {
		struct gvs_data_seg *d = (struct gvs_data_seg *)qp->cur_data;
		if (!sg[i].length)
			continue;
		d->byte_count = htobe32(sg[i].length);
		d->lkey = htobe32(sg[i].lkey);
		d->addr = htobe64(sg[i].addr);
		qp->cur_data = gvs_next_seg(qp, qp->cur_data);
		qp->cur_size++;
	}
	gvs_wr_finish(qp);
}

static int gvs_wr_complete(gvs_qpx *ibqp)
{
	struct gvs_qp *qp = to_qp(ibqp);
	int err = qp->err;

	if (err) {
		qp->sq.cur_post = qp->start_post;
	} else if (qp->nreq) {
		qp->sq.head += qp->nreq;
		qp->sq.posted += qp->nreq;
		gvs_ring_send(qp, qp->cur_ctrl);
	}
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static void gvs_wr_abort(gvs_qpx *ibqp)
{
	struct gvs_qp *qp = to_qp(ibqp);

	qp->sq.cur_post = qp->start_post;
	pthread_spin_unlock(&qp->sq.lock);
}

/* ---- Making the objects. ---- */

struct gvs_context *gvs_context_new(size_t vctx_size)
{
	uint8_t *base = gvs_zalloc(vctx_size);
	struct gvs_context *ctx = (struct gvs_context *)(base + vctx_size - sizeof(struct gvs_context));

	ctx->ops.poll_cq = gvs_poll_cq;
	ctx->ops.req_notify_cq = gvs_req_notify_cq;
	ctx->ops.post_srq_recv = gvs_post_srq_recv;
	ctx->ops.post_send = gvs_post_send;
	ctx->ops.post_recv = gvs_post_recv;
	ctx->cmd_fd = -1;
	ctx->async_fd = -1;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	return ctx;
}

void gvs_context_free(struct gvs_context *ctx, size_t vctx_size)
{
	pthread_mutex_destroy(&ctx->mutex);
	free((uint8_t *)ctx + sizeof(struct gvs_context) - vctx_size);
}

/* The entry the device writes in ring slot i: by i % 4 a send completion, a
 * receive, an RDMA-write completion and a receive with immediate data. */
static void gvs_prepare_cqe(struct gvs_cq *cq, uint32_t i)
{
	static const uint8_t ops[4] = {GVS_CQE_REQ, GVS_CQE_RESP_SEND, GVS_CQE_REQ, GVS_CQE_RESP_SEND_IMM};
	static const uint8_t sops[4] = {GVS_OP_SEND, 0, GVS_OP_RDMA_WRITE, 0};
	struct gvs_cqe *e = &cq->ring[i];

	memset(e, 0, sizeof(*e));
	cq->opcodes[i] = ops[i % 4];
	e->op_own = GVS_CQE_INVALID << 4;
	e->sop_drop_qpn = htobe32((uint32_t)sops[i % 4] << 24);
	e->wqe_counter = htobe16((uint16_t)i);
	e->byte_cnt = htobe32(64 + (i % 64));
	e->imm_inval_pkey = ops[i % 4] == GVS_CQE_RESP_SEND_IMM ? htobe32(0x1000 + i) : htobe32(i % 2);
	e->flags_rqpn = htobe32((i % 8 == 1 ? 1u << 28 : 0) | (i % 16) << 24 | 0x0a0b0c);
	e->slid = htobe16((uint16_t)(0x100 + i % 256));
	e->ml_path = i & 0x7f;
	e->timestamp = htobe64(1000000 + (uint64_t)i);
	e->flow_tag = htobe32(0x42 + i);
	e->cvlan = htobe16(7);
	e->tm_tag = htobe64(0xabc0 + i);
	e->tm_priv = htobe16(3);
	e->syndrome = 0;
	e->signature = 0xff;
}

struct gvs_cq *gvs_cq_new(struct gvs_context *ctx, uint32_t ncqe, int ex, uint64_t wc_flags)
{
	struct gvs_cq *cq = gvs_zalloc(sizeof(*cq));
	static uint32_t cqns;

	ncqe = gvs_pow2(ncqe < 2 ? 2 : ncqe);
	cq->ex.context = ctx;
	cq->ex.cqe = (int)ncqe - 1;
	pthread_mutex_init(&cq->ex.mutex, NULL);
	pthread_cond_init(&cq->ex.cond, NULL);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->ncqe = ncqe;
	cq->ring = gvs_zalloc(ncqe * sizeof(struct gvs_cqe));
	cq->opcodes = gvs_zalloc(ncqe);
	for (uint32_t i = 0; i < ncqe; i++)
		gvs_prepare_cqe(cq, i);
	cq->dbrec = gvs_zalloc(64);
	cq->uar = gvs_zalloc(64);
	cq->cqn = __atomic_add_fetch(&cqns, 1, __ATOMIC_RELAXED);
	cq->ts_mult = 5;
	cq->ts_shift = 1;
	if (ex) {
		/* As a provider does: the getters the CQ was created with. */
		cq->ex.start_poll = gvs_start_poll;
		cq->ex.next_poll = gvs_next_poll;
		cq->ex.end_poll = gvs_end_poll;
		cq->ex.read_opcode = gvs_read_opcode;
		cq->ex.read_vendor_err = gvs_read_vendor_err;
		cq->ex.read_wc_flags = gvs_read_wc_flags;
		if (wc_flags & GVS_WC_EX_WITH_BYTE_LEN)
			cq->ex.read_byte_len = gvs_read_byte_len;
		if (wc_flags & GVS_WC_EX_WITH_IMM)
			cq->ex.read_imm_data = gvs_read_imm_data;
		if (wc_flags & GVS_WC_EX_WITH_QP_NUM)
			cq->ex.read_qp_num = gvs_read_qp_num;
		if (wc_flags & GVS_WC_EX_WITH_SRC_QP)
			cq->ex.read_src_qp = gvs_read_src_qp;
		if (wc_flags & GVS_WC_EX_WITH_SLID)
			cq->ex.read_slid = gvs_read_slid;
		if (wc_flags & GVS_WC_EX_WITH_SL)
			cq->ex.read_sl = gvs_read_sl;
		if (wc_flags & GVS_WC_EX_WITH_DLID_PATH_BITS)
			cq->ex.read_dlid_path_bits = gvs_read_dlid_path_bits;
		if (wc_flags & GVS_WC_EX_WITH_COMPLETION_TIMESTAMP)
			cq->ex.read_completion_ts = gvs_read_completion_ts;
		if (wc_flags & GVS_WC_EX_WITH_CVLAN)
			cq->ex.read_cvlan = gvs_read_cvlan;
		if (wc_flags & GVS_WC_EX_WITH_FLOW_TAG)
			cq->ex.read_flow_tag = gvs_read_flow_tag;
		if (wc_flags & GVS_WC_EX_WITH_TM_INFO)
			cq->ex.read_tm_info = gvs_read_tm_info;
		if (wc_flags & GVS_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
			cq->ex.read_completion_wallclock_ns = gvs_read_completion_wallclock_ns;
	}
	return cq;
}

void gvs_cq_attach(struct gvs_cq *cq, struct gvs_qp *qp)
{
	uint32_t qpn = qp ? qp->qpn : 0;

	cq->qp = qp;
	cq->cur_qp = NULL;
	for (uint32_t i = 0; i < cq->ncqe; i++) {
		uint32_t op = be32toh(cq->ring[i].sop_drop_qpn) >> 24;
		cq->ring[i].sop_drop_qpn = htobe32(op << 24 | qpn);
	}
}

void gvs_cq_complete(struct gvs_cq *cq, uint32_t k)
{
	pthread_spin_lock(&cq->lock);
	gvs_device_complete(cq, k);
	pthread_spin_unlock(&cq->lock);
}

void gvs_cq_free(struct gvs_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	pthread_cond_destroy(&cq->ex.cond);
	pthread_mutex_destroy(&cq->ex.mutex);
	free((void *)cq->dbrec);
	free((void *)cq->uar);
	free(cq->opcodes);
	free(cq->ring);
	free(cq);
}

static void gvs_wq_init(struct gvs_wq *wq, uint32_t cnt, uint32_t stride, uint32_t max_gs)
{
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	wq->wqe_cnt = gvs_pow2(cnt < 2 ? 2 : cnt);
	wq->stride = stride;
	wq->max_gs = max_gs;
	wq->buf = gvs_zalloc((size_t)wq->wqe_cnt * stride);
	wq->wrid = gvs_zalloc(wq->wqe_cnt * sizeof(uint64_t));
	wq->wqe_head = gvs_zalloc(wq->wqe_cnt * sizeof(uint32_t));
	wq->db = gvs_zalloc(64);
}

static void gvs_wq_free(struct gvs_wq *wq)
{
	pthread_spin_destroy(&wq->lock);
	free(wq->buf);
	free(wq->wrid);
	free(wq->wqe_head);
	free((void *)wq->db);
}

struct gvs_srq *gvs_srq_new(struct gvs_context *ctx, uint32_t max, uint32_t max_gs)
{
	struct gvs_srq *srq = gvs_zalloc(sizeof(*srq));

	srq->srq.context = ctx;
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->max = gvs_pow2(max + 1);
	srq->max_gs = max_gs ? max_gs : 1;
	srq->stride = gvs_pow2(sizeof(struct gvs_srq_next_seg) + srq->max_gs * sizeof(struct gvs_data_seg));
	srq->buf = gvs_zalloc((size_t)srq->max * srq->stride);
	srq->wrid = gvs_zalloc(srq->max * sizeof(uint64_t));
	srq->db = gvs_zalloc(64);
	/* The free list: every WQE links to the next, the last to the first. */
	for (uint32_t i = 0; i < srq->max; i++) {
		struct gvs_srq_next_seg *next = (struct gvs_srq_next_seg *)(srq->buf + (size_t)i * srq->stride);
		next->next_wqe_index = htobe16((uint16_t)((i + 1) & (srq->max - 1)));
	}
	return srq;
}

void gvs_srq_free(struct gvs_srq *srq)
{
	pthread_spin_destroy(&srq->lock);
	pthread_cond_destroy(&srq->srq.cond);
	pthread_mutex_destroy(&srq->srq.mutex);
	free(srq->buf);
	free(srq->wrid);
	free((void *)srq->db);
	free(srq);
}

struct gvs_qp *gvs_qp_new(struct gvs_context *ctx, struct gvs_cq *scq, struct gvs_cq *rcq, struct gvs_srq *srq,
			  uint32_t max_send, uint32_t max_recv, uint32_t max_send_sge, uint32_t max_recv_sge,
			  uint32_t max_inline, int ex)
{
	struct gvs_qp *qp = gvs_zalloc(sizeof(*qp));
	static uint32_t qpns = 0x100;
	uint32_t max_wqe_bb;

	qp->qpn = __atomic_add_fetch(&qpns, 1, __ATOMIC_RELAXED);
	qp->ex.qp_base.context = ctx;
	qp->ex.qp_base.send_cq = scq;
	qp->ex.qp_base.recv_cq = rcq;
	qp->ex.qp_base.srq = srq;
	qp->ex.qp_base.qp_num = qp->qpn;
	qp->ex.qp_base.qp_type = GVS_QPT_RC;
	pthread_mutex_init(&qp->ex.qp_base.mutex, NULL);
	pthread_cond_init(&qp->ex.qp_base.cond, NULL);
	qp->srq = srq;
	if (!max_send_sge)
		max_send_sge = 1;
	if (!max_recv_sge)
		max_recv_sge = 1;
	/* A WQE of the most SGEs, or of the most inline data, in blocks. */
	max_wqe_bb = (2 + max_send_sge + 3) / 4;
	if ((2 + (max_inline + 4 + 15) / 16 + 3) / 4 > max_wqe_bb)
		max_wqe_bb = (2 + (max_inline + 4 + 15) / 16 + 3) / 4;
	qp->max_wqe_bb = max_wqe_bb;
	gvs_wq_init(&qp->sq, (max_send ? max_send : 1) * max_wqe_bb + 1, GVS_BB, max_send_sge);
	qp->sq.max_inline = max_inline;
	gvs_wq_init(&qp->rq, max_recv ? max_recv + 1 : 2, gvs_pow2(max_recv_sge * sizeof(struct gvs_data_seg)), max_recv_sge);
	qp->bf = gvs_zalloc(64);
	if (ex) {
		qp->verbs_comp_mask = 1u << 1;	/* VERBS_QP_EX */
		qp->ex.wr_send = gvs_wr_send;
		qp->ex.wr_send_imm = gvs_wr_send_imm;
		qp->ex.wr_rdma_write = gvs_wr_rdma_write;
		qp->ex.wr_rdma_write_imm = gvs_wr_rdma_write_imm;
		qp->ex.wr_rdma_read = gvs_wr_rdma_read;
		qp->ex.wr_set_sge = gvs_wr_set_sge;
		qp->ex.wr_set_sge_list = gvs_wr_set_sge_list;
		qp->ex.wr_start = gvs_wr_start;
		qp->ex.wr_complete = gvs_wr_complete;
		qp->ex.wr_abort = gvs_wr_abort;
	}
	/* The wr_ids before any post: what completions then report. */
	for (uint32_t i = 0; i < qp->sq.wqe_cnt; i++)
		qp->sq.wrid[i] = 0x5000 + i;
	for (uint32_t i = 0; i < qp->rq.wqe_cnt; i++)
		qp->rq.wrid[i] = 0x7000 + i;
	if (scq)
		gvs_cq_attach(scq, qp);
	if (rcq && rcq != scq)
		gvs_cq_attach(rcq, qp);
	return qp;
}

void gvs_qp_free(struct gvs_qp *qp)
{
	gvs_wq_free(&qp->sq);
	gvs_wq_free(&qp->rq);
	pthread_cond_destroy(&qp->ex.qp_base.cond);
	pthread_mutex_destroy(&qp->ex.qp_base.mutex);
	free((void *)qp->bf);
	free(qp);
}

/* ---- The C loops. Each calls the ops as libibverbs' static inlines do
 * (cq->context->ops.poll_cq, cq->start_poll, ...), iters times. ---- */

void gvs_noop(void) {}
void gvs_noop_args(uintptr_t a, uintptr_t b, struct gvs_mem *p) { (void)a; (void)b; (void)p; }

int64_t gvs_loop_poll_cq(struct gvs_cq *cq, int n, struct gvs_wc *wc, int64_t iters)
{
	struct gvs_cq *ibcq = cq;
	int64_t total = 0;

	for (int64_t i = 0; i < iters; i++) {
		int r = ibcq->ex.context->ops.poll_cq(ibcq, n, wc);
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

int64_t gvs_loop_req_notify_cq(struct gvs_cq *cq, int64_t iters)
{
	for (int64_t i = 0; i < iters; i++)
		if (cq->ex.context->ops.req_notify_cq(cq, 0))
			return -1;
	return iters;
}

int64_t gvs_loop_post_send(struct gvs_qp *qp, struct gvs_send_wr *wrs, int n, int64_t iters)
{
	struct gvs_send_wr *bad;
	uint64_t id = 0;

	for (int64_t i = 0; i < iters; i++) {
		for (int j = 0; j < n; j++)
			wrs[j].wr_id = id++;
		if (qp->ex.qp_base.context->ops.post_send(qp, wrs, &bad))
			return -1;
	}
	return (int64_t)id;
}

int64_t gvs_loop_post_recv(struct gvs_qp *qp, struct gvs_recv_wr *wrs, int n, int64_t iters)
{
	struct gvs_recv_wr *bad;
	uint64_t id = 0;

	for (int64_t i = 0; i < iters; i++) {
		for (int j = 0; j < n; j++)
			wrs[j].wr_id = id++;
		if (qp->ex.qp_base.context->ops.post_recv(qp, wrs, &bad))
			return -1;
	}
	return (int64_t)id;
}

int64_t gvs_loop_post_srq_recv(struct gvs_srq *srq, struct gvs_recv_wr *wrs, int n, int64_t iters)
{
	struct gvs_recv_wr *bad;
	uint64_t id = 0;

	for (int64_t i = 0; i < iters; i++) {
		for (int j = 0; j < n; j++)
			wrs[j].wr_id = id++;
		if (srq->srq.context->ops.post_srq_recv(srq, wrs, &bad))
			return -1;
	}
	return (int64_t)id;
}

int64_t gvs_loop_poll_ex(struct gvs_cq *cq, int n, struct gvs_wc_ex *out, int64_t iters)
{
	struct gvs_ibv_cq_ex *ex = &cq->ex;
	struct gvs_poll_cq_attr attr = {0};
	int64_t total = 0;

	for (int64_t i = 0; i < iters; i++) {
		int k = 0, r = ex->start_poll(ex, &attr);
		if (r == ENOENT)
			continue;
		if (r)
			return -1;
		for (;;) {
			struct gvs_wc_ex *w = &out[k];
			w->wr_id = ex->wr_id;
			w->status = ex->status;
			w->opcode = ex->read_opcode(ex);
			w->vendor_err = ex->read_vendor_err(ex);
			w->byte_len = ex->read_byte_len(ex);
			w->imm_data = ex->read_imm_data(ex);
			w->qp_num = ex->read_qp_num(ex);
			w->src_qp = ex->read_src_qp(ex);
			w->wc_flags = ex->read_wc_flags(ex);
			w->slid = ex->read_slid(ex);
			w->sl = ex->read_sl(ex);
			w->dlid_path_bits = ex->read_dlid_path_bits(ex);
			w->completion_ts = ex->read_completion_ts(ex);
			if (++k == n)
				break;
			r = ex->next_poll(ex);
			if (r == ENOENT)
				break;
			if (r) {
				ex->end_poll(ex);
				return -1;
			}
		}
		ex->end_poll(ex);
		total += k;
	}
	return total;
}

int64_t gvs_loop_wr(struct gvs_qp *qp, int n, uint32_t lkey, uint64_t addr, int64_t iters)
{
	struct gvs_ibv_qp_ex *qpx = &qp->ex;
	uint64_t id = 0;

	for (int64_t i = 0; i < iters; i++) {
		qpx->wr_start(qpx);
		for (int j = 0; j < n; j++) {
			qpx->wr_id = id++;
			qpx->wr_flags = j == n - 1 ? GVS_SEND_SIGNALED : 0;
			qpx->wr_rdma_write(qpx, 0x1234, 0x10000 + (uint64_t)j * 64);
			qpx->wr_set_sge(qpx, lkey, addr + (uint64_t)j * 64, 64);
		}
		if (qpx->wr_complete(qpx))
			return -1;
	}
	return (int64_t)id;
}
