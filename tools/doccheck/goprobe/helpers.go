//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdmacm"
)

// Helpers for the snippets of the probe files (`go:`): each snippet is the body of a
// func() error returning the call's error.

// undo holds the releases of kept objects and fixtures, run newest first after the probe.
var undo []func() error

// onExit schedules f after the probe.
func onExit(f func() error) { undo = append(undo, f) }

// recorded is the value a snippet asked to compare with the C harness's.
var recorded struct {
	value int64
	set   bool
}

// errNoResult is a success without a usable result.
var errNoResult = errors.New("goprobe: the call succeeded but returned no result")

// keep returns err; on success it checks that v is a usable object and releases it after
// the probe (see release).
func keep[T any](v *T, err error) error {
	if err != nil {
		return err
	}
	if v == nil {
		return errNoResult
	}
	onExit(func() error { return release(v) })
	return nil
}

// got returns err; on success the result v must not be the zero value.
func got[T comparable](v T, err error) error {
	var zero T
	if err == nil && v == zero {
		return errNoResult
	}
	return err
}

type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// count returns err and, on success, records n, which must equal what the C call returned
// (a count, or a value a wrapper returns with an error).
func count[T integer](n T, err error) error {
	if err == nil {
		same(n)
	}
	return err
}

// same records an integer result that must equal the C call's, and returns nil.
func same[T integer](v T) error {
	recorded.value, recorded.set = int64(v), true
	return nil
}

// dropped returns err; on success the fixture *p was destroyed by the call and is cleared
// so that its teardown skips it.
func dropped[T any](err error, p **T) error {
	if err == nil {
		*p = nil
	}
	return err
}

// cstr is s as a NUL-terminated C string in Go memory, for the duration of a call.
func cstr(s string) *byte {
	b := append([]byte(s), 0)
	return &b[0]
}

// ptr is the address of v's memory, for parameters the API types as unsafe.Pointer.
func ptr[T any](v *T) unsafe.Pointer { return unsafe.Pointer(v) }

// release destroys an object a snippet created.
func release(v any) error {
	switch o := v.(type) {
	case *ibv.Context:
		return o.CloseDevice()
	case *ibv.PD:
		return o.Dealloc()
	case *ibv.MR:
		return o.Dereg()
	case *ibv.CQ:
		return o.Destroy()
	case *ibv.CQEx:
		return ibv.CQExToCQ(o).Destroy()
	case *ibv.CompChannel:
		return o.Destroy()
	case *ibv.QP:
		return o.Destroy()
	case *ibv.SRQ:
		return o.Destroy()
	case *ibv.AH:
		return o.Destroy()
	case *ibv.MW:
		return o.Dealloc()
	case *ibv.TD:
		return o.Dealloc()
	case *ibv.XRCD:
		return o.Close()
	case *ibv.WQ:
		return o.Destroy()
	case *rdmacm.EventChannel:
		o.Destroy()
		return nil
	case *rdmacm.CMID:
		return o.DestroyID()
	}
	return fmt.Errorf("goprobe: no way to release a %T (add it to release)", v)
}

// keepView returns err; on success v must be usable. Unlike keep it releases nothing: v is
// a view of an object another fixture owns.
func keepView[T any](v *T, err error) error {
	if err == nil && v == nil {
		return errNoResult
	}
	return err
}

// errOf is the error of a call that also returns a value the snippet does not use (the bad
// work request of a post, a result that is not compared).
func errOf[T any](_ T, err error) error { return err }
