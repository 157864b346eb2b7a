// Types shared by the C trampolines of package rdma (fastpath.go,
// blockwait.go).
#ifndef GOVERBS_RDMA_TRAMPOLINE_H
#define GOVERBS_RDMA_TRAMPOLINE_H

// A struct ibv_wc, as far as the trampolines are concerned: they only pass
// its address on. Without pointers, so that cgo need not check a Go
// pointer to one.
struct gv_wc { unsigned char opaque; };

// The provider's poll_cq (ibv_context.ops.poll_cq), as ibv_poll_cq calls it.
typedef int (*gv_poll_fn)(void *cq, int n, struct gv_wc *wc);

#endif
