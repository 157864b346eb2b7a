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
//   - A zero-allocation data path, the provider's: work requests and SGEs
//     live in mmap'd memory owned by the QP or SRQ, every post and poll
//     calls the provider's op once per batch (QP.PostSend, QP.PostRecv,
//     SRQ.PostRecv, CQ.Poll, CQ.PollBatch; an extended CQ's start_poll,
//     getters, next_poll and end_poll in one cgo call per batch,
//     CQ.PollEx), as a C program does on any NIC, and nothing allocates in
//     steady state.
//   - No work request the provider cannot take: PostSend checks each one
//     against the QP's type before C (opcode, flags, inline memory,
//     atomics, a UD send's address handle and MTU), so a wrong argument is
//     an error, not a crash inside the provider.
//   - RC, UC and UD queue pairs (QPConfig, QP.Connect, QP.ActivateUD),
//     address handles (PD.NewAH, PD.NewAHFromWC, ParseGRH), multicast
//     (QP.AttachMulticast), shared receive queues (PD.NewSRQ, QPConfig.SRQ,
//     SRQ.SetLimit), memory a driver exported (PD.RegisterDMABuf) or
//     registered for on-demand paging (ibv.AccessFlagsOnDemand, MR.Prefetch),
//     and rdmacm connections with private data (Dial, Listen,
//     Listener.Request, ConnRequest.Accept and Reject).
//   - Checked state changes: QP.Modify checks the transition and the
//     attribute mask against the QP state table before calling C, and names
//     the missing or invalid attributes.
//
// The raw generated API stays reachable (Device.Raw, CQ.Raw, QP.Raw, ...) for
// everything this layer does not wrap, such as the extended verbs
// (ibv_wr_*, ibv_start_poll), which QP.Ex and CQ.Ex expose. An object made
// that way on this package's resources (an ibv.QP on PD.Raw and CQ.Raw, an
// ibv.AH, an ibv.MW) can be adopted by them (Adopt), so that their Close
// refuses while it lives; one not adopted is unknown to them, and closing
// a parent under it fails in C (EBUSY) or, for objects the kernel does not
// count, frees what it still uses.
//
// Errors name the C function and wrap its errno: errors.Is(err, unix.EBUSY)
// holds for a busy resource; the package's sentinels (ErrClosed,
// ErrNoCompletion, ErrSharedChannel, ErrUnpinnedMemory, ErrBadState) are
// matched with errors.Is too.
package rdma
