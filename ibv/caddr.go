package ibv

import "unsafe"

// GetCQEventAddr is the address of ibv_get_cq_event, resolved as the
// generated wrapper resolves it (a *MissingError when the library lacks
// it), for a caller that calls the function from its own C code: package
// rdma does, to read the errno that GetCQEvent's convention
// (zero_or_minus_one) does not carry.
func GetCQEventAddr() (unsafe.Pointer, error) { return sym_ibv_get_cq_event.Addr() }
