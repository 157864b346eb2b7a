package rdma

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
)

var (
	// ErrClosed is returned by any use of a resource after its Close.
	ErrClosed = errors.New("rdma: resource is closed")
	// ErrNilHandle is returned by any method called on a nil handle.
	ErrNilHandle = errors.New("rdma: nil handle")
	// ErrNoCompletion is returned by CQ.PollOne when the CQ holds no
	// completion (rpma_cq_get_wc's RPMA_E_NO_COMPLETION).
	ErrNoCompletion = errors.New("rdma: no completion")
	// ErrSharedChannel is returned by CQ.Wait when the CQ's completion channel
	// serves several CQs: an event may belong to another CQ, so wait on the
	// channel (CompChannel.Wait) instead (rpma_cq_wait's RPMA_E_SHARED_CHANNEL).
	ErrSharedChannel = errors.New("rdma: completion channel is shared by several CQs")
	// ErrNoChannel is returned by CQ.Wait on a CQ created without a
	// completion channel.
	ErrNoChannel = errors.New("rdma: CQ has no completion channel")
	// ErrUnpinnedMemory is returned when memory that C would keep (a memory
	// registration) is neither from AllocBuffer nor pinned.
	ErrUnpinnedMemory = errors.New("rdma: memory is neither a Buffer nor pinned")
	// ErrBadState is wrapped by a *StateError.
	ErrBadState = errors.New("rdma: invalid QP state transition or attribute mask")
)

// OpError is a failure of an operation of this package that is not a C
// function's own failure (those are *ibv.Error / *rdmacm.Error values naming
// the C function). It names the operation and wraps the cause.
type OpError struct {
	Op  string // e.g. "rdma.PD.Register"
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

func opErr(op string, err error) error { return &OpError{Op: op, Err: err} }

// named makes err, a failure of op, name an operation: the errors of C
// functions and of this package already do; any other (a context's
// error, a bare sentinel) is wrapped in an *OpError naming op.
func named(op string, err error) error {
	if err == nil {
		return nil
	}
	var (
		oe *OpError
		ce *ibv.Error
		me *ibv.MissingError
		ne *ibv.NilOpError
		pe *PostError
		be *BusyError
		se *StateError
		ve *CMEventError
	)
	if errors.As(err, &oe) || errors.As(err, &ce) || errors.As(err, &me) || errors.As(err, &ne) ||
		errors.As(err, &pe) || errors.As(err, &be) || errors.As(err, &se) || errors.As(err, &ve) {
		return err
	}
	return opErr(op, err)
}

// invalid is an OpError wrapping unix.EINVAL with a reason.
func invalid(op, format string, args ...any) error {
	return &OpError{Op: op, Err: &reasonError{msg: fmt.Sprintf(format, args...), errno: unix.EINVAL}}
}

// tooLong is an OpError wrapping unix.EMSGSIZE with a reason.
func tooLong(op, format string, args ...any) error {
	return &OpError{Op: op, Err: &reasonError{msg: fmt.Sprintf(format, args...), errno: unix.EMSGSIZE}}
}

// notSupported is an OpError wrapping unix.EOPNOTSUPP with a reason.
func notSupported(op, format string, args ...any) error {
	return &OpError{Op: op, Err: &reasonError{msg: fmt.Sprintf(format, args...), errno: unix.EOPNOTSUPP}}
}

type reasonError struct {
	msg   string
	errno unix.Errno
}

func (e *reasonError) Error() string { return e.msg }
func (e *reasonError) Unwrap() error { return e.errno }

// BusyError is returned by Close on a resource that still has live children
// (a PD with MRs or QPs, a CQ used by a QP, a channel with CQs). Nothing is
// closed. It wraps unix.EBUSY.
type BusyError struct {
	Resource string         // e.g. "PD"
	Children map[string]int // live children by kind
}

func (e *BusyError) Error() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(e.Children)) {
		parts = append(parts, fmt.Sprintf("%d %s", e.Children[k], k))
	}
	return fmt.Sprintf("rdma: cannot close %s: still used by %s; close them first", e.Resource, strings.Join(parts, ", "))
}

func (e *BusyError) Unwrap() error { return unix.EBUSY }

// StateError is returned by QP.Modify, before any C call, when the
// transition is not in the QP state table of the QP's type or the attribute
// mask lacks a required attribute or carries one the transition does not
// accept. It wraps ErrBadState and unix.EINVAL.
type StateError struct {
	QPType   string
	From, To string
	Missing  []string // required attributes absent from the mask
	Invalid  []string // attributes the transition does not accept
	NoSuch   bool     // the transition itself is not allowed
}

func (e *StateError) Error() string {
	s := fmt.Sprintf("rdma: QP.Modify (ibv_modify_qp not called): %s QP %s -> %s", e.QPType, e.From, e.To)
	if e.NoSuch {
		return s + ": no such transition"
	}
	if len(e.Missing) > 0 {
		s += ": missing required " + strings.Join(e.Missing, "|")
	}
	if len(e.Invalid) > 0 {
		s += ": not accepted in this transition " + strings.Join(e.Invalid, "|")
	}
	return s
}

func (e *StateError) Unwrap() []error { return []error{ErrBadState, unix.EINVAL} }

// ErrNotSupported is matched (errors.Is) by the error of every call in a build that
// cannot call C libraries (not Linux, or CGO_ENABLED=0): the package builds everywhere
// and runs on Linux with cgo.
var ErrNotSupported = ibv.ErrNotSupported
