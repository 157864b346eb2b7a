//go:build linux

package rxebed

import (
	"errors"
	"fmt"
)

// Exit codes of the rxe tool for failures of the bed itself. Any other exit status is the
// guest command's own (128+N when it died of signal N). The codes sit in 110..119 so that
// they never collide with what test binaries (0, 1, 2) or shells (126, 127) return.
const (
	ExitUsage         = 110 // bad flags or arguments
	ExitNoQEMU        = 111 // qemu-system-x86_64 is not installed
	ExitNoKernel      = 112 // the pinned kernel is not in .cache (run make inputs)
	ExitNoRoot        = 113 // the requested guest root is missing (run make inputs)
	ExitBootFailed    = 114 // the guest never reached its init
	ExitGuestSetup    = 115 // the guest's init failed to mount, load modules or build the network
	ExitRxeNotUp      = 116 // the rxe device(s) did not become ACTIVE in time
	ExitCommandFailed = 117 // the command could not be started in the guest
	ExitTimeout       = 118 // the whole run exceeded -timeout
	ExitNoStatus      = 119 // the guest ended without reporting the command's status
)

// Error is a failure of the bed, carrying its exit code.
type Error struct {
	Code int
	Msg  string
	Err  error

	noHello bool // the guest's init never said hello: nothing ran, a new boot may work
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Msg, e.Err)
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

func bedErr(code int, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ExitCode maps an error returned by Run to the tool's exit status.
func ExitCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitUsage
}
