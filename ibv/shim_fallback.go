//go:build linux && cgo

package ibv

/*
#include <stdint.h>

static int32_t zhand_query_device_ex(void *fn, void *ctx, void *input, void *attr, uint64_t len)
{ return ((int32_t (*)(void *, void *, void *, uint64_t))fn)(ctx, input, attr, len); }
static void *zhand_create_ex(void *fn, void *ctx, void *attr)
{ return ((void *(*)(void *, void *))fn)(ctx, attr); }
static int32_t zhand_close_xrcd(void *fn, void *xrcd)
{ return ((int32_t (*)(void *))fn)(xrcd); }
static void *zhand_alloc_mw(void *fn, void *pd, uint32_t type)
{ return ((void *(*)(void *, uint32_t))fn)(pd, type); }
static int32_t zhand_bind_mw(void *fn, void *qp, void *mw, void *bind)
{ return ((int32_t (*)(void *, void *, void *))fn)(qp, mw, bind); }
*/
import "C"

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The raw shims below are the static inlines of infiniband/verbs.h whose
// bodies add a fallback or a check to a provider op, written out by hand
// after their 65 definitions; the generated bindings in zapi.go check
// their results by the spec convention. An op is found as
// verbs_get_ctx_op finds it: an extended context whose sz covers it, and
// a non-NULL pointer.

// c_ibv_query_device_ex: EINVAL for a non-zero input comp_mask; the op
// query_device_ex with the size of [DeviceAttrEx]; without it, or when it
// answers EOPNOTSUPP or ENOSYS, ibv_query_device on the zeroed attribute.
func c_ibv_query_device_ex(context *Context, input *QueryDeviceExInput, attr *DeviceAttrEx) (r int32, errno syscall.Errno, err error) {
	if input != nil && input.CompMask != 0 {
		return int32(unix.EINVAL), 0, nil
	}
	if v := verbsGetCtx(context); v != nil && v.Sz >= uint64(unsafe.Sizeof(*v)-unsafe.Offsetof(v.QueryDeviceEx)) && v.QueryDeviceEx != nil {
		cr, cerr := C.zhand_query_device_ex(v.QueryDeviceEx, unsafe.Pointer(context), unsafe.Pointer(input), unsafe.Pointer(attr), C.uint64_t(unsafe.Sizeof(*attr)))
		errno, _ = cerr.(syscall.Errno)
		if r = int32(cr); r != int32(unix.EOPNOTSUPP) && r != int32(unix.ENOSYS) {
			return r, errno, nil
		}
	}
	*attr = DeviceAttrEx{}
	return c_ibv_query_device(context, &attr.OrigAttr)
}

// c_ibv_create_qp_ex: ibv_create_qp when only the PD is set, else the op
// create_qp_ex; NULL with errno EOPNOTSUPP without it.
func c_ibv_create_qp_ex(context *Context, qpInitAttrEx *QPInitAttrEx) (r *QP, errno syscall.Errno, err error) {
	if qpInitAttrEx.CompMask == uint32(QPInitAttrMaskPD) {
		return c_ibv_create_qp(qpInitAttrEx.PD, (*QPInitAttr)(unsafe.Pointer(qpInitAttrEx)))
	}
	v := verbsGetCtx(context)
	if v == nil || v.Sz < uint64(unsafe.Sizeof(*v)-unsafe.Offsetof(v.CreateQPEx)) || v.CreateQPEx == nil {
		return nil, unix.EOPNOTSUPP, nil
	}
	cr, cerr := C.zhand_create_ex(v.CreateQPEx, unsafe.Pointer(context), unsafe.Pointer(qpInitAttrEx))
	errno, _ = cerr.(syscall.Errno)
	return (*QP)(cr), errno, nil
}

// c_ibv_create_srq_ex: ibv_create_srq for a basic SRQ given only its PD
// (and type), else the op create_srq_ex; NULL with errno EOPNOTSUPP
// without it.
func c_ibv_create_srq_ex(context *Context, srqInitAttrEx *SRQInitAttrEx) (r *SRQ, errno syscall.Errno, err error) {
	mask := srqInitAttrEx.CompMask
	basic := uint32(SRQInitAttrMaskPD | SRQInitAttrMaskType)
	if mask&^basic == 0 && mask&uint32(SRQInitAttrMaskPD) != 0 &&
		(mask&uint32(SRQInitAttrMaskType) == 0 || srqInitAttrEx.SRQType == SRQTypeBasic) {
		return c_ibv_create_srq(srqInitAttrEx.PD, (*SRQInitAttr)(unsafe.Pointer(srqInitAttrEx)))
	}
	v := verbsGetCtx(context)
	if v == nil || v.Sz < uint64(unsafe.Sizeof(*v)-unsafe.Offsetof(v.CreateSRQEx)) || v.CreateSRQEx == nil {
		return nil, unix.EOPNOTSUPP, nil
	}
	cr, cerr := C.zhand_create_ex(v.CreateSRQEx, unsafe.Pointer(context), unsafe.Pointer(srqInitAttrEx))
	errno, _ = cerr.(syscall.Errno)
	return (*SRQ)(cr), errno, nil
}

// c_ibv_close_xrcd: the op close_xrcd of the XRC domain's context (the C
// inline calls it unchecked; a missing op is a *NilOpError here).
func c_ibv_close_xrcd(xrcd *XRCD) (r int32, errno syscall.Errno, err error) {
	v := verbsGetCtx(xrcd.Context)
	if v == nil || v.Sz < uint64(unsafe.Sizeof(*v)-unsafe.Offsetof(v.CloseXRCD)) || v.CloseXRCD == nil {
		return 0, 0, &NilOpError{Func: "ibv_close_xrcd", Op: "verbs_context.close_xrcd"}
	}
	cr, cerr := C.zhand_close_xrcd(v.CloseXRCD, unsafe.Pointer(xrcd))
	errno, _ = cerr.(syscall.Errno)
	return int32(cr), errno, nil
}

// c_ibv_alloc_mw: the op context->ops.alloc_mw; NULL with errno
// EOPNOTSUPP without it.
func c_ibv_alloc_mw(pd *PD, type_ MWType) (r *MW, errno syscall.Errno, err error) {
	fn := pd.Context.Ops.AllocMW
	if fn == nil {
		return nil, unix.EOPNOTSUPP, nil
	}
	cr, cerr := C.zhand_alloc_mw(fn, unsafe.Pointer(pd), C.uint32_t(type_))
	errno, _ = cerr.(syscall.Errno)
	return (*MW)(cr), errno, nil
}

// c_ibv_bind_mw: EINVAL unless mw is of type 1 and the bind names an MR
// for a non-empty range; EPERM when the MR is of another PD; else the op
// context->ops.bind_mw (a *NilOpError without it).
func c_ibv_bind_mw(qp *QP, mw *MW, mwBind *MWBind) (r int32, errno syscall.Errno, err error) {
	info := &mwBind.BindInfo
	switch {
	case mw.Type != MWType1:
		return int32(unix.EINVAL), 0, nil
	case info.MR == nil && (info.Addr != 0 || info.Length != 0):
		return int32(unix.EINVAL), 0, nil
	case info.MR != nil && mw.PD != info.MR.PD:
		return int32(unix.EPERM), 0, nil
	}
	fn := mw.Context.Ops.BindMW
	if fn == nil {
		return 0, 0, &NilOpError{Func: "ibv_bind_mw", Op: "context->ops.bind_mw"}
	}
	cr, cerr := C.zhand_bind_mw(fn, unsafe.Pointer(qp), unsafe.Pointer(mw), unsafe.Pointer(mwBind))
	errno, _ = cerr.(syscall.Errno)
	return int32(cr), errno, nil
}

// c_ibv_create_wq: the op create_wq (NULL with errno EOPNOTSUPP without
// it); the new WQ gets the caller's wq_context, a zero event count, and
// its mutex and condition initialised as pthread_mutex_init and
// pthread_cond_init with default attributes do on glibc: all zero bytes
// (PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER), which Go writes
// without naming pthread.h in the hermetic preamble.
func c_ibv_create_wq(context *Context, wqInitAttr *WQInitAttr) (r *WQ, errno syscall.Errno, err error) {
	v := verbsGetCtx(context)
	if v == nil || v.Sz < uint64(unsafe.Sizeof(*v)-unsafe.Offsetof(v.CreateWQ)) || v.CreateWQ == nil {
		return nil, unix.EOPNOTSUPP, nil
	}
	cr, cerr := C.zhand_create_ex(v.CreateWQ, unsafe.Pointer(context), unsafe.Pointer(wqInitAttr))
	errno, _ = cerr.(syscall.Errno)
	if r = (*WQ)(cr); r != nil {
		r.WQContext, r.EventsCompleted = wqInitAttr.WQContext, 0
		r.Mutex, r.Cond = PthreadMutex{}, PthreadCond{}
	}
	return r, errno, nil
}
