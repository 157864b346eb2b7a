// Package carg converts the Go arguments of the generated wrappers to the C
// types of the raw bindings. A value C cannot hold is an *ArgError naming
// the C function and the parameter, which unwraps to unix.EINVAL (the
// function is not called): Go's int is wider than C's int, a Go string may
// hold a NUL byte, a time.Duration is finer than milliseconds.
package carg

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ArgError is a Go argument the C parameter cannot hold.
type ArgError struct {
	Func  string // the C function, e.g. "ibv_create_cq"
	Param string // the C parameter, e.g. "cqe"
	Why   string // e.g. "5000000000 is out of the range of int32_t"
}

// Error names the function and the parameter.
func (e *ArgError) Error() string {
	return fmt.Sprintf("%s: %s: %s (not called)", e.Func, e.Param, e.Why)
}

// Unwrap returns unix.EINVAL.
func (e *ArgError) Unwrap() error { return unix.EINVAL }

func rangeErr(fn, param string, v int64, c string) error {
	return &ArgError{Func: fn, Param: param, Why: fmt.Sprintf("%d is out of the range of %s", v, c)}
}

// Int32 is v as a C int (int32_t).
func Int32(fn, param string, v int) (int32, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, rangeErr(fn, param, int64(v), "int32_t")
	}
	return int32(v), nil
}

// Uint32 is v as a C unsigned int (uint32_t).
func Uint32(fn, param string, v int) (uint32, error) {
	if v < 0 || int64(v) > math.MaxUint32 {
		return 0, rangeErr(fn, param, int64(v), "uint32_t")
	}
	return uint32(v), nil
}

// Uint16 is v as a C uint16_t.
func Uint16(fn, param string, v int) (uint16, error) {
	if v < 0 || v > math.MaxUint16 {
		return 0, rangeErr(fn, param, int64(v), "uint16_t")
	}
	return uint16(v), nil
}

// Uint8 is v as a C uint8_t.
func Uint8(fn, param string, v int) (uint8, error) {
	if v < 0 || v > math.MaxUint8 {
		return 0, rangeErr(fn, param, int64(v), "uint8_t")
	}
	return uint8(v), nil
}

// Uint64 is v as a C uint64_t (size_t).
func Uint64(fn, param string, v int) (uint64, error) {
	if v < 0 {
		return 0, rangeErr(fn, param, int64(v), "uint64_t")
	}
	return uint64(v), nil
}

// Millis is d in milliseconds, rounded up (a timeout never gets shorter),
// as a C int: d must not be negative, and must fit.
func Millis(fn, param string, d time.Duration) (int32, error) {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	if d < 0 || d > math.MaxInt32*time.Millisecond {
		return 0, &ArgError{Func: fn, Param: param, Why: fmt.Sprintf("%v is out of the range of 0 to %d ms", d, math.MaxInt32)}
	}
	return int32(ms), nil
}

// Bool is b as a C int: 1 or 0.
func Bool(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// String is s as a NUL-terminated C string in Go memory (C reads it during
// the call only); "" is NULL, which the functions taking an optional string
// read as absent.
func String(fn, param, s string) (*byte, error) {
	if s == "" {
		return nil, nil
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, &ArgError{Func: fn, Param: param, Why: "the string holds a NUL byte"}
	}
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0], nil
}

// Bytes is the address of b's first byte, nil for an empty b.
func Bytes(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// Slice is the address of s's first element, nil for an empty s.
func Slice[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return unsafe.SliceData(s)
}
