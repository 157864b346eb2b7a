package dl

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MissingError reports a function the installed libraries do not provide.
// It unwraps to unix.EOPNOTSUPP, so errors.Is(err, unix.EOPNOTSUPP) holds.
type MissingError struct {
	Symbol string // the C function
	Lib    string // the library searched
	Since  string // the release introducing the function, e.g. "rdma-core 65"
	Detail string // dlerror() when the library itself could not be opened
}

// Error names the function, the library and the release it needs.
func (e *MissingError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("%s: %s not installed (%s); the function needs %s or later", e.Symbol, e.Lib, e.Detail, e.Since)
	}
	return fmt.Sprintf("%s: not in the installed %s; the function needs %s or later", e.Symbol, e.Lib, e.Since)
}

// Unwrap returns unix.EOPNOTSUPP.
func (e *MissingError) Unwrap() error { return unix.EOPNOTSUPP }

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
