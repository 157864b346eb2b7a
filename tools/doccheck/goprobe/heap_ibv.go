//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

/*
#include <malloc.h>

static size_t heap_used(void)
{
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)
	return mallinfo2().uordblks;
#else
	return (size_t)mallinfo().uordblks;
#endif
}
*/
import "C"

// heapUsed is the C heap's allocated bytes, as the C harness's heap_used reads them: the
// effect of a free is the memory it releases.
func heapUsed() uint64 { return uint64(C.heap_used()) }
