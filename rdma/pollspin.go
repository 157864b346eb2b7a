//go:build linux && cgo

package rdma

/*
#cgo noescape gv_poll_spin
#cgo nocallback gv_poll_spin
#include <stdint.h>

// A struct ibv_wc as far as the spin is concerned: it passes the address
// on. Pointer-free, so that cgo need not check a Go pointer to one.
struct gv_spin_wc { unsigned char opaque; };

typedef int (*gv_spin_poll_fn)(void *cq, int n, struct gv_spin_wc *wc);

// Calls the provider's poll_cq (fn) on cq until it returns something
// other than 0, at most spins times, or until *stop (C memory, set by the
// CQ's Close) is no longer 0; returns what the last call returned. The CQ
// and the op are integers, wc and stop pointer-free: cgo checks no
// argument (as ibv/zfast.go's trampolines).
static int gv_poll_spin(uintptr_t fn, uintptr_t cq, int n, struct gv_spin_wc *wc, int64_t spins, const int32_t *s) {
	int k;
	do
		k = ((gv_spin_poll_fn)fn)((void *)cq, n, wc);
	while (k == 0 && --spins > 0 && !__atomic_load_n(s, __ATOMIC_RELAXED));
	return k;
}
*/
import "C"

import (
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
)

// spinPoll is PollSpin's loop, in one cgo call: the provider's poll_cq
// (op) on the CQ at cq into wc[:n], until a completion or an error, at
// most spins times, or until *stop is set (atomically: C reads it while
// Go may store it).
func spinPoll(op, cq uintptr, n int32, wc *ibv.WC, spins int64, stop *int32) int32 {
	return int32(C.gv_poll_spin(C.uintptr_t(op), C.uintptr_t(cq), C.int(n), (*C.struct_gv_spin_wc)(unsafe.Pointer(wc)),
		C.int64_t(spins), (*C.int32_t)(unsafe.Pointer(stop))))
}
