package dl

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrNotSupported is matched (errors.Is) by the error of every call in a build that
// cannot call C libraries: not Linux, or CGO_ENABLED=0 (Supported is false). The
// packages build everywhere; they run on Linux with cgo.
var ErrNotSupported = errors.New("goverbs: not supported in this build (rdma-core needs Linux with cgo)")

// MissingError reports a function the installed libraries do not provide.
// It unwraps to unix.EOPNOTSUPP, so errors.Is(err, unix.EOPNOTSUPP) holds.
type MissingError struct {
	Symbol string // the C function
	Lib    string // the library searched
	Since  string // the release introducing the function, e.g. "rdma-core 65"
	Detail string // dlerror() when the library itself could not be opened
	// Member, for a function that calls through a struct member newer than
	// the installed release (ibv_wr_flush through ibv_qp_ex.wr_flush), is
	// that member, and Installed the release found ("rdma-core 44").
	Member, Installed string
}

// Error names the function, the library and the release it needs.
func (e *MissingError) Error() string {
	if e.Symbol == "" {
		return fmt.Sprintf("%s not installed (%s)", e.Lib, e.Detail)
	}
	if e.Member != "" {
		return fmt.Sprintf("%s: the installed %s (%s) has no %s; the function needs %s or later", e.Symbol, e.Lib, e.Installed, e.Member, e.Since)
	}
	if e.Detail != "" {
		return fmt.Sprintf("%s: %s not installed (%s); the function needs %s or later", e.Symbol, e.Lib, e.Detail, e.Since)
	}
	return fmt.Sprintf("%s: not in the installed %s; the function needs %s or later", e.Symbol, e.Lib, e.Since)
}

// Unwrap returns unix.EOPNOTSUPP, and ErrNotSupported in a build that cannot
// call C libraries.
func (e *MissingError) Unwrap() []error {
	if !Supported {
		return []error{unix.EOPNOTSUPP, ErrNotSupported}
	}
	return []error{unix.EOPNOTSUPP}
}

// NilOpError reports a provider operation (a function-pointer member the
// provider fills in, such as ops.post_send or wr_send) left NULL. It unwraps
// to unix.EOPNOTSUPP.
type NilOpError struct {
	Func string // the C function that dispatches through it
	Op   string // the member path, e.g. "context->ops.post_send"
}

// Error names the function and the missing op.
func (e *NilOpError) Error() string {
	return fmt.Sprintf("%s: the provider does not implement %s", e.Func, e.Op)
}

// Unwrap returns unix.EOPNOTSUPP.
func (e *NilOpError) Unwrap() error { return unix.EOPNOTSUPP }

// UnavailableError is the panic of a binding without an error result
// (a value or void function) when its library cannot be loaded: it names the
// package and the library, and says how to check first.
type UnavailableError struct {
	Pkg string        // the Go package, e.g. "ibv"
	Err *MissingError // what the loader found
}

// Error names the library and the package's Load.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s: %s cannot be loaded, and this function has no error result (call %s.Load first to check): %v", e.Pkg, e.Err.Lib, e.Pkg, e.Err)
}

// Unwrap returns the *MissingError.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Unavailable is the panic value of package pkg's value or void bindings
// when the call cannot be made: an *UnavailableError for a *MissingError,
// err itself otherwise.
func Unavailable(pkg string, err error) error {
	if m, ok := err.(*MissingError); ok {
		return &UnavailableError{Pkg: pkg, Err: m}
	}
	return err
}

// UnknownReleaseError reports an installed library whose rdma-core release
// its file name does not tell (rdma-core names each library
// lib<name>.so.<ABI>.<minor>.<release>.<n>).
type UnknownReleaseError struct {
	Lib  string // the soname
	Path string // the file the dynamic loader opened
}

// Error names the library and its file.
func (e *UnknownReleaseError) Error() string {
	return fmt.Sprintf("%s: the rdma-core release is not told by the name of %s", e.Lib, e.Path)
}
