//go:build linux

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rpma"
)

// describe reports what errors.Is matches: the errno an *Error unwraps to, or the library
// code of a sentinel, and the C function the error names.
func TestDescribe(t *testing.T) {
	var r Result
	describe(&r, &ibv.Error{Func: "ibv_create_cq", Errno: unix.EINVAL, Code: 22})
	require.Equal(t, []string{"EINVAL"}, r.Is)
	require.Equal(t, "ibv_create_cq", r.Func)
	require.Equal(t, "ibv_create_cq: invalid argument", r.Err)

	r = Result{}
	describe(&r, &rpma.Error{Func: "rpma_peer_new", Code: rpma.ErrInval.Code})
	require.Equal(t, []string{"RPMA_E_INVAL"}, r.Is)

	r = Result{}
	describe(&r, errors.New("plain"))
	require.Empty(t, r.Is)
	require.Empty(t, r.Func)
}

// A panicking snippet or fixture fails its probe with a status saying why.
func TestCallRecovers(t *testing.T) {
	status, err := call(func() error { return unix.EBUSY })
	require.Equal(t, "ok", status)
	require.ErrorIs(t, err, unix.EBUSY)

	status, _ = call(func() error { must("pd", unix.ENOMEM); return nil })
	require.Equal(t, "fixture set-up failed: fixture pd: cannot allocate memory", status)

	status, _ = call(func() error { panic("boom") })
	require.Equal(t, "panicked: boom", status)
}

// Cleanup runs newest first and reports what failed, once.
func TestCleanup(t *testing.T) {
	var order []int
	onExit(func() error { order = append(order, 1); return nil })
	onExit(func() error { order = append(order, 2); return unix.EIO })
	require.Equal(t, "input/output error", cleanup())
	require.Equal(t, []int{2, 1}, order)
	require.Empty(t, cleanup(), "nothing left to undo")
}

// keep and got refuse a success without a result; count records a value only on success.
func TestResultHelpers(t *testing.T) {
	require.ErrorIs(t, keep[ibv.PD](nil, nil), errNoResult)
	require.ErrorIs(t, keep[ibv.PD](nil, unix.EINVAL), unix.EINVAL)
	require.ErrorIs(t, got("", nil), errNoResult)
	require.NoError(t, got("x", nil))

	recorded.set = false
	require.Error(t, count(0, unix.EINVAL))
	require.False(t, recorded.set)
	require.NoError(t, count(uint8(3), nil))
	require.True(t, recorded.set)
	require.Equal(t, int64(3), recorded.value)

	pd := &ibv.PD{}
	require.NoError(t, dropped(nil, &pd))
	require.Nil(t, pd)

	require.ErrorContains(t, release(42), "no way to release a int")
}

func TestSelectIDs(t *testing.T) {
	saved := probes
	defer func() { probes = saved }()
	probes = map[int]func() error{3: nil, 1: nil, 7: nil}
	ids, err := selectIDs("")
	require.NoError(t, err)
	require.Equal(t, []int{1, 3, 7}, ids)
	ids, err = selectIDs("7,2,1")
	require.NoError(t, err)
	require.Equal(t, []int{1, 7}, ids, "ids without a Go side are skipped")
	_, err = selectIDs("1,x")
	require.Error(t, err)
}

// exitStatus names the signal that ended a child: the one that killed it, or the one the
// Go runtime reports when a signal in C code makes it exit 2.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`kill -SEGV $$`, "child signal: segmentation fault (SIGSEGV): "},
		{`echo 'fatal error: unexpected signal during runtime execution' >&2; echo '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x0]' >&2; echo 'goroutine 1' >&2; exit 2`,
			"child exit status 2 (SIGSEGV): goroutine 1"},
		{`echo 'SIGABRT: abort' >&2; echo 'PC=0x0' >&2; exit 2`, "child exit status 2 (SIGABRT): PC=0x0"},
		{`echo 'goprobe: no' >&2; exit 3`, "child exit status 3: goprobe: no"},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command("sh", "-c", tc.script)
		cmd.Stderr = &stderr
		var ee *exec.ExitError
		require.ErrorAs(t, cmd.Run(), &ee)
		require.Equal(t, tc.want, exitStatus(ee, stderr.Bytes()))
	}
}
