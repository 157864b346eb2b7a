package dl

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
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

// TestReleaseOf reads the release from rdma-core's file names, and nothing
// from other names.
func TestReleaseOf(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]int{
		"libibverbs.so.1.14.44.0": 44, "librdmacm.so.1.3.56.1": 56, "libmlx5.so.1.25.65.0": 65, "libionic.so.1.1.61.0": 61,
		"libibverbs.so.1": 0, "libibverbs.so": 0, "libfoo.so.1.2.3": 0, "librpma.so.0.0.1": 0,
	} {
		if got := releaseOf(filepath.Join(dir, name)); got != want {
			t.Errorf("%s: release %d, want %d", name, got, want)
		}
	}
	// Through a symbolic link, as sonames are installed.
	target := filepath.Join(dir, "libibverbs.so.1.14.65.0")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "libibverbs.so.1")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if got := releaseOf(link); got != 65 {
		t.Errorf("through the soname link: %d, want 65", got)
	}
}

// TestReleaseInstalled: the installed libibverbs (the host's, when there is
// one) has a path and, built by rdma-core, a release; AtLeast and Needs agree.
func TestReleaseInstalled(t *testing.T) {
	l := NewLib("libibverbs.so.1")
	if l.Load() != nil {
		t.Skip("libibverbs.so.1 not installed")
	}
	r, ok := l.Release()
	t.Logf("%s: rdma-core %d (%v)", l.Path(), r, ok)
	if !ok || l.Path() == "" {
		t.Fatalf("no release from %q", l.Path())
	}
	if !l.AtLeast(r) || l.AtLeast(r+1) {
		t.Errorf("AtLeast disagrees with release %d", r)
	}
	if err := l.Needs(r, "f", "s.m"); err != nil {
		t.Errorf("Needs(%d): %v", r, err)
	}
	err := l.Needs(r+1, "ibv_wr_flush", "ibv_qp_ex.wr_flush")
	var m *MissingError
	if !errors.As(err, &m) || m.Member != "ibv_qp_ex.wr_flush" || !errors.Is(err, unix.EOPNOTSUPP) {
		t.Fatalf("Needs(%d): %v", r+1, err)
	}
	t.Log(err)
}
