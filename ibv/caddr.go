package ibv

import "unsafe"

// GetCQEventAddr is the address of ibv_get_cq_event, resolved as the
// generated wrapper resolves it (a *MissingError when the library lacks
// it), for a caller that calls the function from its own C code: package
// rdma does, to read errno in its own poll loop and to wait for an event
// without returning to Go (CompChannel.WaitBlocking).
func GetCQEventAddr() (unsafe.Pointer, error) { return sym_ibv_get_cq_event.Addr() }

// AckCQEventsAddr is the address of ibv_ack_cq_events, resolved as
// GetCQEventAddr resolves its function: package rdma acknowledges an event
// in the same C call that took it (CompChannel.WaitBlocking).
func AckCQEventsAddr() (unsafe.Pointer, error) { return sym_ibv_ack_cq_events.Addr() }
