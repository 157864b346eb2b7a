//go:build linux && cgo

package rdmacm

/*
#include <stdlib.h>
*/
import "C"

import "unsafe"

// cAlloc returns n zeroed bytes of C memory (never nil); cFree frees them.
func cAlloc(n uintptr) unsafe.Pointer {
	p := C.calloc(1, C.size_t(n))
	if p == nil {
		panic("rdmacm: out of C memory")
	}
	return p
}

func cFree(p unsafe.Pointer) { C.free(p) }
