//go:build !linux || !cgo

package rdmacm

import "unsafe"

// cAlloc is Go memory in a build that cannot call C: no C function is ever given it
// (every call fails with ErrNotSupported first).
func cAlloc(n uintptr) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(make([]byte, n))) }

func cFree(unsafe.Pointer) {}
