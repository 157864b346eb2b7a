// Package cerr turns the failure values of C functions into Go errors. The
// generated wrappers call the check named after the function's return
// convention in spec/ (gen/spec.Convention): ZeroOrErrno for
// "zero_or_errno", PointerOrNullErrno for "pointer_or_null_errno", and so
// on. Every error is an *Error naming the C function; it unwraps to the
// errno when the convention provides one, so errors.Is(err, unix.EBUSY)
// holds.
package cerr

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
)

// Error is the failure of a C function.
type Error struct {
	Func  string        // the C function, e.g. "ibv_modify_qp"
	Errno syscall.Errno // the error number; 0 when the convention gives none
	Code  int           // a library-defined code (RPMA_E_*), or the raw failure value
	Name  string        // the C name of Code, set on the sentinels packages export
}

// Error says which C function failed and why, as far as known.
func (e *Error) Error() string {
	switch {
	case e.Func == "" && e.Name != "":
		return fmt.Sprintf("%s (%d)", e.Name, e.Code)
	case e.Errno != 0:
		return e.Func + ": " + e.Errno.Error()
	case e.Code != 0 && e.Name != "":
		return fmt.Sprintf("%s: %s (%d)", e.Func, e.Name, e.Code)
	case e.Code != 0:
		return fmt.Sprintf("%s: failed (%d)", e.Func, e.Code)
	}
	return e.Func + ": failed"
}

// Is reports whether target is the sentinel of e's library code: an
// *Error with only Code and Name set, as packages export one per code
// (rpma.ErrInval for RPMA_E_INVAL), so errors.Is(err, rpma.ErrInval) holds.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Func == "" && t.Errno == 0 && t.Code != 0 && e.Errno == 0 && t.Code == e.Code
}

// Unwrap returns the errno, or nil when the cause is unknown.
func (e *Error) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

// codes names library codes: codeKey -> the code's C name, registered by
// the generated packages' sentinels.
var codes sync.Map

// codeKey is a function-name prefix (the name up to and including its
// first '_': "rpma_") and a code.
type codeKey struct {
	prefix string
	code   int
}

// RegisterCodes names the codes of sentinels (errors with only Code and
// Name set) for the functions whose names start with prefix, which runs up
// to and including the name's first '_' ("rpma_"): a ZeroOrNegCode failure
// of such a function carries the name, and its message shows it. Generated
// packages call it from init.
func RegisterCodes(prefix string, sentinels ...*Error) {
	for _, s := range sentinels {
		codes.Store(codeKey{prefix, s.Code}, s.Name)
	}
}

// codeName is the registered name of fn's code, or "".
func codeName(fn string, code int) string {
	name, _ := codes.Load(codeKey{fn[:strings.IndexByte(fn, '_')+1], code})
	s, _ := name.(string)
	return s
}

// normal returns errno as a positive error number: rdma_get_send_comp and
// rdma_get_recv_comp store a negated errno, which cgo reports as a huge
// syscall.Errno.
func normal(errno syscall.Errno) syscall.Errno {
	if n := int32(errno); n < 0 {
		return syscall.Errno(-n)
	}
	return errno
}
