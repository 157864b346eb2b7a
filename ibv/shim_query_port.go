//go:build linux && cgo

package ibv

/*
#include <stdint.h>

static int32_t zhand_query_port(void *fn, void *ctx, uint8_t port, void *attr, uint64_t len)
{ return ((int32_t (*)(void *, uint8_t, void *, uint64_t))fn)(ctx, port, attr, len); }
*/
import "C"

import (
	"syscall"
	"unsafe"
)

// c____ibv_query_port is the shim of the static inline ___ibv_query_port
// (infiniband/verbs.h), what the macro ibv_query_port expands to: the
// provider's verbs_context.query_port with the size of the caller's
// struct ibv_port_attr when verbs_get_ctx_op finds it, else the
// compatibility symbol ibv_query_port on the zeroed attribute. The
// generated [Context.QueryPort] checks its result.
func c____ibv_query_port(context *Context, portNum uint8, portAttr *PortAttr) (r int32, errno syscall.Errno, err error) {
	vctx := verbsGetCtx(context)
	if vctx == nil || vctx.Sz < uint64(unsafe.Sizeof(*vctx)-unsafe.Offsetof(vctx.QueryPort)) || vctx.QueryPort == nil {
		*portAttr = PortAttr{}
		return c_ibv_query_port(context, portNum, (*CompatIBVPortAttr)(unsafe.Pointer(portAttr)))
	}
	cr, cerr := C.zhand_query_port(vctx.QueryPort, unsafe.Pointer(context), C.uint8_t(portNum), unsafe.Pointer(portAttr), C.uint64_t(unsafe.Sizeof(*portAttr)))
	errno, _ = cerr.(syscall.Errno)
	return int32(cr), errno, nil
}
