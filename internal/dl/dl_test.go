package dl

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestSymbolFound(t *testing.T) {
	s := &Symbol{Lib: NewLib("libc.so.6"), Name: "getpid", Since: "glibc 2.0"}
	p, err := s.Addr()
	require.NoError(t, err)
	assert.NotNil(t, p)
	p2, err := s.Addr()
	require.NoError(t, err)
	assert.Equal(t, p, p2, "resolved once")
}

func TestSymbolMissing(t *testing.T) {
	s := &Symbol{Lib: NewLib("libc.so.6"), Name: "goverbs_no_such_function", Since: "rdma-core 65"}
	_, err := s.Addr()
	require.Error(t, err)
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	var me *MissingError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "goverbs_no_such_function: not in the installed libc.so.6; the function needs rdma-core 65 or later", err.Error())
}

func TestLibMissing(t *testing.T) {
	s := &Symbol{Lib: NewLib("libgoverbs-absent.so.9"), Name: "f", Since: "rdma-core 44"}
	_, err := s.Addr()
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	assert.Contains(t, err.Error(), "libgoverbs-absent.so.9 not installed")
	assert.Contains(t, err.Error(), "needs rdma-core 44 or later")
}

func TestNilOp(t *testing.T) {
	err := error(&NilOpError{Func: "ibv_post_send", Op: "context->ops.post_send"})
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	assert.Equal(t, "ibv_post_send: the provider does not implement context->ops.post_send", err.Error())
}

func TestLoad(t *testing.T) {
	require.NoError(t, NewLib("libc.so.6").Load())
	assert.True(t, NewLib("libc.so.6").Has("getpid"))
	assert.False(t, NewLib("libc.so.6").Has("goverbs_no_such_function"))
	l := NewLib("libgoverbs-absent.so.9")
	err := l.Load()
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	assert.Contains(t, err.Error(), "libgoverbs-absent.so.9 not installed (")
	assert.False(t, l.Has("f"))
}

func TestUnavailable(t *testing.T) {
	_, err := (&Symbol{Lib: NewLib("libgoverbs-absent.so.9"), Name: "f", Since: "rdma-core 44"}).Addr()
	u := Unavailable("ibv", err)
	assert.Contains(t, u.Error(), "ibv: libgoverbs-absent.so.9 cannot be loaded, and this function has no error result (call ibv.Load first to check)")
	assert.True(t, errors.Is(u, unix.EOPNOTSUPP))
	other := errors.New("x")
	assert.Equal(t, other, Unavailable("ibv", other))
}
