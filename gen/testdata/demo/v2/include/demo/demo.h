/* A miniature of the shapes rdma-core headers use, for the generator's tests. */
#ifndef DEMO_H
#define DEMO_H
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#define DEMO_MAX_NAME 64
#define DEMO_BIG (1ULL << 40)
#define DEMO_ALLOCATOR ((void *)-1)
#define demo_alias_flags demo_flags

enum demo_state { DEMO_STATE_RESET, DEMO_STATE_INIT, DEMO_STATE_RTS };
enum demo_flags { DEMO_F_A = 1 << 0, DEMO_F_B = 1 << 1, DEMO_F_C = 1 << 2, DEMO_F_NEW = 1 << 3 };
enum { DEMO_ANON_ONE = 1, DEMO_ANON_NEG = -2 };

struct demo_opaque;

struct demo_ctx {
	struct demo_opaque *priv;
	pthread_mutex_t mutex;
	char name[DEMO_MAX_NAME];
	int (*op)(struct demo_ctx *ctx, int x);
};

struct demo_wr {
	uint64_t id;
	struct demo_wr *next;
	enum demo_state state;
	union {
		uint32_t imm;
		uint32_t rkey;
	};
	union {
		struct { uint64_t addr; uint32_t key; } rdma;
		uint8_t raw[16];
	} wr;
	uint16_t added;
};

/* A context extended toward lower addresses, as verbs_context is. */
struct ibv_context {
	void *abi_compat;
	int fd;
};

struct verbs_context {
	int (*demo_new_op)(struct ibv_context *c);
	int (*demo_op)(struct ibv_context *c, int x);
	size_t sz;
	struct ibv_context context;
};

static inline struct verbs_context *verbs_get_ctx(struct ibv_context *c)
{
	if (c->abi_compat != (void *)UINTPTR_MAX)
		return NULL;
	return (struct verbs_context *)((char *)c - offsetof(struct verbs_context, context));
}

#define verbs_get_ctx_op(c, op) ({ \
	struct verbs_context *v_ = verbs_get_ctx(c); \
	(v_ && v_->sz >= sizeof(*v_) - offsetof(struct verbs_context, op) && v_->op) ? v_ : NULL; })

static inline int demo_ctx_op(struct ibv_context *c, int x)
{
	struct verbs_context *v = verbs_get_ctx_op(c, demo_op);
	if (!v)
		return -1;
	return v->demo_op(c, x);
}

/* A packed segment: Go cannot place the 16-bit id at offset 1. */
struct demo_seg {
	uint8_t sig;
	uint16_t id;
	uint8_t flags;
} __attribute__((__packed__));

/* An inline that adds the size of the caller's record. */
struct demo_attr {
	uint32_t a;
	uint64_t b;
};
int _demo_get_attr(struct demo_ctx *ctx, struct demo_attr *attr, size_t attr_len);
static inline int demo_get_attr(struct demo_ctx *ctx, struct demo_attr *attr)
{
	return _demo_get_attr(ctx, attr, sizeof(*attr));
}

int demo_open(const char *name, struct demo_ctx **out);
static inline int __demo_query(struct demo_ctx *ctx, uint8_t port) { return ctx->op(ctx, port); }
#define demo_query(ctx, port) __demo_query(ctx, port)
#endif
