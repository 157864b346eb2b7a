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

// DeviceError reports a direct-verbs call refused before C: the device of an object
// passed to it is not one of the provider whose library the function belongs to, and the
// function does not check that itself (it would read the object as its provider's own: a
// crash, or memory read or written out of bounds). It unwraps to unix.EOPNOTSUPP, and to
// Err where the device's provider could not be told.
type DeviceError struct {
	Func     string // the C function
	Device   string // the device's name (ibv_get_device_name)
	Provider string // the provider the function needs ("mlx4")
	// Found is the device's provider as the check saw it: the kernel's driver ("rxe"), or
	// "" where Supported said no or Err says why it could not be told.
	Found string
	// Check names how the provider was checked: "the kernel's driver id" or the
	// library's own function ("mlx5dv_is_supported").
	Check string
	Err   error
}

// Error names the function, the device and the provider it needs.
func (e *DeviceError) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("%s: cannot tell whether device %s is a %s device (%s): %v; refused, the function would read another provider's objects as its own", e.Func, e.Device, e.Provider, e.Check, e.Err)
	case e.Found != "":
		return fmt.Sprintf("%s: device %s is a %s device, not a %s one (%s); refused, the function would read its objects as %s's own", e.Func, e.Device, e.Found, e.Provider, e.Check, e.Provider)
	}
	return fmt.Sprintf("%s: device %s is not a %s device (%s); refused, the function would read its objects as %s's own", e.Func, e.Device, e.Provider, e.Check, e.Provider)
}

// Unwrap returns unix.EOPNOTSUPP, and Err when there is one.
func (e *DeviceError) Unwrap() []error {
	if e.Err != nil {
		return []error{unix.EOPNOTSUPP, e.Err}
	}
	return []error{unix.EOPNOTSUPP}
}
