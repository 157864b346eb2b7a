// Package rdma is the Go-native layer of goverbs: RDMA the way a Go program
// expects it, on top of the generated bindings (packages ibv and rdmacm).
//
//   - Completions without threads: the completion channel, the rdmacm event
//     channel and the device's async-event fd are non-blocking and parked on
//     Go's netpoller, so any number of goroutines wait on completions
//     (CQ.Wait, CQ.Await, CompChannel.Wait), connection events (Dial,
//     Listener.Accept) and device events (Device.AsyncEvent) with a
//     context.Context, holding no OS thread. For a few latency-critical
//     loops, CompChannel.WaitBlocking and CQ.WaitBlocking wait in C on the
//     goroutine's thread instead, as a C program does, still cancellable by
//     their context; CompChannel.WaitBlockingPoll also takes the first poll
//     of the event's CQ in the same cgo call.
//   - Memory that is safe by construction: registered memory is either a
//     Buffer (mmap'd, outside the Go heap) or Go memory pinned with
//     runtime.Pinner for the MR's whole life (PD.RegisterPinned); handing
//     other memory to PD.Register is refused with ErrUnpinnedMemory.
//   - Lifetimes: every resource has an idempotent Close; closing a parent with
//     live children fails with an error wrapping unix.EBUSY that names them;
//     any use after Close fails with ErrClosed, never crashes.
//   - A zero-allocation data path: work requests and SGEs live in mmap'd
//     memory owned by the QP, posting and polling cross into C once per
//     batch (CQ.Poll, CQ.PollSpin, QP.SendPoll), and nothing allocates in
//     steady state. On rxe (soft-RoCE), whose poll_cq only copies
//     completions out of a ring shared with the kernel, polls read that
//     ring in Go and do not cross at all (CQ.Direct, CQ.SetDirect); so
//     do QP.PostRecv, writing receives into the receive queue's ring, and
//     QP.PostSend, writing sends into the send queue's and ringing the
//     kernel with one raw write(2) (QP.Direct, QP.SetDirect).
//   - Checked state changes: QP.Modify checks the transition and the
//     attribute mask against the QP state table before calling C, and names
//     the missing or invalid attributes.
//
// The raw generated API stays reachable (Device.Raw, CQ.Raw, QP.Raw, ...) for
// everything this layer does not wrap, such as the extended verbs
// (ibv_wr_*, ibv_start_poll), which QP.Ex and CQ.Ex expose.
//
// Errors name the C function and wrap its errno: errors.Is(err, unix.EBUSY)
// holds for a busy resource; the package's sentinels (ErrClosed,
// ErrNoCompletion, ErrSharedChannel, ErrUnpinnedMemory, ErrBadState) are
// matched with errors.Is too.
package rdma
