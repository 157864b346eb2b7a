package cerr

import (
	"syscall"
	"unsafe"
)

// ZeroOrErrno checks fn's result rc, 0 on success, a positive errno on failure.
//
// A negative rc is read as a negated errno, the error a current library returns: some
// providers of older rdma-core releases return -errno where the page promises errno
// (librxe's post_send of rdma-core 33 returns -EINVAL and -ENOMEM). Code keeps rc as it was.
func ZeroOrErrno(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	if rc < 0 {
		return &Error{Func: fn, Errno: normal(syscall.Errno(-int64(rc))), Code: int(rc)}
	}
	return &Error{Func: fn, Errno: syscall.Errno(rc), Code: int(rc)}
}

// ZeroOrNegErrno checks rc, 0 on success, -errno on failure.
func ZeroOrNegErrno(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	return &Error{Func: fn, Errno: normal(syscall.Errno(uint32(rc))), Code: int(rc)}
}

// ZeroOrMinusOneErrno checks rc, 0 on success, -1 with errno set on failure.
//
// Any other non-zero result is a failure too, of unknown cause (errno is not meaningful):
// rdma_getaddrinfo returns getaddrinfo's EAI_* code itself, which must not read as success.
func ZeroOrMinusOneErrno(fn string, rc int32, errno syscall.Errno) error {
	switch rc {
	case 0:
		return nil
	case -1:
		return &Error{Func: fn, Errno: normal(errno), Code: -1}
	}
	return &Error{Func: fn, Code: int(rc)}
}

// ZeroOrMinusOne checks rc, 0 on success, -1 on failure; errno is not meaningful. Any
// other non-zero result is a failure too.
func ZeroOrMinusOne(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	return &Error{Func: fn, Code: int(rc)}
}

// CountOrMinusOneErrno checks rc, a count on success, -1 with errno set on failure
// (also when the function stores errno negated, as rdma_get_send_comp does).
func CountOrMinusOneErrno(fn string, rc int64, errno syscall.Errno) error {
	if rc != -1 {
		return nil
	}
	return &Error{Func: fn, Errno: normal(errno), Code: -1}
}

// CountOrMinusOne checks rc, a count on success, -1 on failure; errno is not set.
func CountOrMinusOne(fn string, rc int64) error {
	if rc != -1 {
		return nil
	}
	return &Error{Func: fn, Code: -1}
}

// CountOrNegErrno checks rc, a count on success, -errno on failure.
func CountOrNegErrno(fn string, rc int64) error {
	if rc >= 0 {
		return nil
	}
	return &Error{Func: fn, Errno: syscall.Errno(-rc), Code: int(rc)}
}

// CountOrNegative checks rc, a count on success, some negative value on failure
// whose cause is unknown.
func CountOrNegative(fn string, rc int64) error {
	if rc >= 0 {
		return nil
	}
	return &Error{Func: fn, Code: int(rc)}
}

// ZeroOrNegCode checks rc, 0 on success, a negative library code on
// failure; the error carries the code's name when its package registered
// it (RegisterCodes).
func ZeroOrNegCode(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	return &Error{Func: fn, Code: int(rc), Name: codeName(fn, int(rc))}
}

// PointerOrNullErrno checks p, non-NULL on success, NULL with errno set on failure.
func PointerOrNullErrno(fn string, p unsafe.Pointer, errno syscall.Errno) error {
	if p != nil {
		return nil
	}
	return &Error{Func: fn, Errno: normal(errno)}
}

// PointerOrNull checks p, non-NULL on success, NULL on failure of unknown cause.
func PointerOrNull(fn string, p unsafe.Pointer) error {
	if p != nil {
		return nil
	}
	return &Error{Func: fn}
}
