package cerr

import (
	"errors"
	"syscall"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"golang.org/x/sys/unix"
)

func TestConventions(t *testing.T) {
	var x int
	p := unsafe.Pointer(&x)
	negEINVAL := syscall.Errno(uintptr(^uintptr(0)) - uintptr(unix.EINVAL) + 1) // errno = -EINVAL as cgo reports it
	for _, c := range []struct {
		name string
		err  error
		is   error // nil: success
		msg  string
	}{
		{"zero_or_errno ok", ZeroOrErrno("ibv_req_notify_cq", 0), nil, ""},
		{"zero_or_errno", ZeroOrErrno("ibv_modify_qp", int32(unix.EBUSY)), unix.EBUSY, "ibv_modify_qp: device or resource busy"},
		{"zero_or_errno negated (older providers)", ZeroOrErrno("ibv_post_send", -int32(unix.EINVAL)), unix.EINVAL, "ibv_post_send: invalid argument"},
		{"zero_or_neg_errno", ZeroOrNegErrno("f", -int32(unix.EINVAL)), unix.EINVAL, "f: invalid argument"},
		{"zero_or_minus_one_errno", ZeroOrMinusOneErrno("rdma_bind_addr", -1, unix.EADDRINUSE), unix.EADDRINUSE, "rdma_bind_addr: address already in use"},
		{"zero_or_minus_one_errno ok", ZeroOrMinusOneErrno("rdma_bind_addr", 0, unix.EAGAIN), nil, ""},
		{"count_or_minus_one_errno negated errno", CountOrMinusOneErrno("rdma_get_send_comp", -1, negEINVAL), unix.EINVAL, "rdma_get_send_comp: invalid argument"},
		{"count_or_minus_one_errno ok", CountOrMinusOneErrno("rdma_get_send_comp", 3, 0), nil, ""},
		{"count_or_neg_errno", CountOrNegErrno("ibv_query_gid_table", -int64(unix.ENOMEM)), unix.ENOMEM, "ibv_query_gid_table: cannot allocate memory"},
		{"pointer_or_null_errno", PointerOrNullErrno("ibv_create_cq", nil, unix.ENOMEM), unix.ENOMEM, "ibv_create_cq: cannot allocate memory"},
		{"pointer_or_null_errno ok", PointerOrNullErrno("ibv_create_cq", p, unix.ENOMEM), nil, ""},
	} {
		if c.is == nil {
			assert.NoError(t, c.err, c.name)
			continue
		}
		assert.ErrorIs(t, c.err, c.is, c.name)
		assert.EqualError(t, c.err, c.msg, c.name)
		var e *Error
		assert.True(t, errors.As(c.err, &e), c.name)
	}
}

func TestUnknownCause(t *testing.T) {
	for _, err := range []error{
		ZeroOrMinusOne("ibv_query_gid", -1),
		CountOrMinusOne("ibv_get_pkey_index", -1),
		CountOrNegative("ibv_poll_cq", -2),
		ZeroOrNegCode("rpma_cq_wait", -7),
		PointerOrNull("ibv_create_wq", nil),
	} {
		var e *Error
		if assert.ErrorAs(t, err, &e) {
			assert.Nil(t, errors.Unwrap(err), "no errno to unwrap: %v", err)
			assert.Zero(t, e.Errno)
		}
	}
	assert.EqualError(t, CountOrNegative("ibv_poll_cq", -2), "ibv_poll_cq: failed (-2)")
	assert.EqualError(t, PointerOrNull("ibv_create_wq", nil), "ibv_create_wq: failed")
	assert.NoError(t, CountOrNegative("ibv_poll_cq", 0))
}

func TestCodeSentinel(t *testing.T) {
	inval := &Error{Code: -7, Name: "RPMA_E_INVAL"}
	err := ZeroOrNegCode("rpma_cq_wait", -7)
	assert.ErrorIs(t, err, inval)
	assert.NotErrorIs(t, ZeroOrNegCode("rpma_cq_wait", -8), inval)
	assert.NotErrorIs(t, ZeroOrErrno("ibv_modify_qp", 7), &Error{Code: 7, Name: "X"}, "errno failures are not library codes")
	assert.EqualError(t, inval, "RPMA_E_INVAL (-7)")
}

// A result the convention does not allow (neither 0 nor -1) is a failure with that code,
// not a success: rdma_getaddrinfo returns EAI_SERVICE (-8) for an unknown service.
func TestZeroOrMinusOneOtherResult(t *testing.T) {
	err := ZeroOrMinusOneErrno("rdma_getaddrinfo", -8, unix.ENOENT)
	assert.EqualError(t, err, "rdma_getaddrinfo: failed (-8)")
	assert.NotErrorIs(t, err, unix.ENOENT, "errno is not meaningful outside the convention")
	assert.EqualError(t, ZeroOrMinusOne("ibv_query_gid", 2), "ibv_query_gid: failed (2)")
	assert.NoError(t, ZeroOrMinusOne("ibv_query_gid", 0))
}

func TestRegisterCodes(t *testing.T) {
	inval := &Error{Code: -900001, Name: "DEMO_E_INVAL"}
	RegisterCodes("demo_", inval)
	err := ZeroOrNegCode("demo_do", -900001)
	assert.Equal(t, "demo_do: DEMO_E_INVAL (-900001)", err.Error())
	assert.ErrorIs(t, err, inval)
	assert.Equal(t, "other_do: failed (-900001)", ZeroOrNegCode("other_do", -900001).Error(), "names apply to their prefix only")
	// A second registration for the prefix adds to the first.
	RegisterCodes("demo_", &Error{Code: -900002, Name: "DEMO_E_AGAIN"})
	assert.Equal(t, "demo_do: DEMO_E_AGAIN (-900002)", ZeroOrNegCode("demo_do", -900002).Error())
	assert.Equal(t, "demo_do: DEMO_E_INVAL (-900001)", ZeroOrNegCode("demo_do", -900001).Error())
}

func TestEAIOrMinusOneErrno(t *testing.T) {
	assert.NoError(t, EAIOrMinusOneErrno("rdma_getaddrinfo", 0, 0))
	err := EAIOrMinusOneErrno("rdma_getaddrinfo", -1, syscall.ENOMEM)
	assert.True(t, errors.Is(err, syscall.ENOMEM))
	err = EAIOrMinusOneErrno("rdma_getaddrinfo", -1, syscall.Errno(uint32(0xfffffffe)))
	assert.Equal(t, "rdma_getaddrinfo: EAI_NONAME (-2)", err.Error())
	assert.False(t, errors.Is(err, syscall.ENOENT), "an EAI code is no errno")
	assert.True(t, errors.Is(err, &Error{Code: -2, Name: "EAI_NONAME"}))
	err = EAIOrMinusOneErrno("rdma_getaddrinfo", -3, 0)
	assert.Equal(t, "rdma_getaddrinfo: EAI_AGAIN (-3)", err.Error())
}
