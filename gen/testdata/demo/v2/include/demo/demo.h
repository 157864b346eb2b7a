/* A miniature of the shapes rdma-core headers use, for the generator's tests. */
#ifndef DEMO_H
#define DEMO_H
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

int demo_open(const char *name, struct demo_ctx **out);
static inline int __demo_query(struct demo_ctx *ctx, uint8_t port) { return ctx->op(ctx, port); }
#define demo_query(ctx, port) __demo_query(ctx, port)
#endif
