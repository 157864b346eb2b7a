//go:build linux && cgo

package rdma

/*
#include <stdlib.h>
*/
import "C"

import "unsafe"

// cAlloc returns n zeroed bytes of C memory (never nil); cFree frees them.
// C memory holds what C keeps a pointer to or is handed as an integer (a
// waiter's arguments, PollBatch's array).
func cAlloc(n uintptr) unsafe.Pointer {
	p := C.calloc(1, C.size_t(n))
	if p == nil {
		panic("rdma: out of C memory")
	}
	return p
}

func cFree(p unsafe.Pointer) { C.free(p) }
