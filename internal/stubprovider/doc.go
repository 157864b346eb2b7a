// Package stubprovider is a stub RDMA provider in C memory, for tests and
// benchmarks of what the bindings add to each data-path verb on the host
// CPU, with no device and no guest: a device context (a struct
// verbs_context, which grows toward lower addresses, with the struct
// ibv_context at its end), CQs (plain and extended), QPs (plain and
// extended) and SRQs whose ops are C functions doing per completion and
// per work request what a hardware provider's do: poll_cq reads a 64-byte
// entry from a ring, checks its ownership bit and converts it into a
// struct ibv_wc (the wr_id from the work queue's table); post_send builds a
// WQE of control, address and data segments, big-endian, keeps the wr_id
// and rings the doorbell (a record, a register write and its flush);
// post_recv, post_srq_recv (through the SRQ's free list), req_notify_cq (the
// arm record and doorbell), the extended CQ (start_poll, next_poll,
// end_poll and a getter per field the CQ was created with, as providers set
// only those) and the extended QP (ibv_wr_start to ibv_wr_complete). Each
// op takes a spinlock, as providers do unless told the program is
// single-threaded. A device is emulated only as far as the ops need one:
// before each poll it hands over the number of entries the test set
// (CQ.SetReady), writing each one's ownership byte, and at each doorbell
// it retires what was posted.
//
// The package also holds the C loops the benchmarks compare with: the same
// work done from C, calling each op as libibverbs' static inline does
// (cq->context->ops.poll_cq, cq->start_poll, ...), many times in one cgo
// call.
//
// The C code mirrors the few libibverbs structures it touches in its own
// declarations (stub.h) and includes no rdma-core header; TestLayout checks
// every mirrored size, offset and enum value against package ibv's
// generated layout. Only tests import this package.
package stubprovider
