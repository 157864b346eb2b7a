//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goverbs/goverbs/tools/internal/rxebed"
	"github.com/stretchr/testify/require"
)

// These tests boot the real guest (they need `make inputs`): they pin the tool's contract
// with its callers — the command's status and output come back, and each failure of the
// bed has its own exit code.

var rxeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rxe-bin-")
	if err != nil {
		panic(err)
	}
	rxeBin = filepath.Join(dir, "rxe")
	build := exec.Command("go", "build", "-o", rxeBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func rxe(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(rxeBin, append([]string{"run"}, args...)...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestStatusAndStreamsComeBack(t *testing.T) {
	out, errOut, code := rxe(t, "-topology=one", "sh", "-c", "echo to-stdout; echo to-stderr >&2; test -e /sys/class/infiniband/$RXE_A_DEV && exit 7")
	require.Equal(t, 7, code, "stderr: %s", errOut)
	require.Equal(t, "to-stdout\n", out)
	require.Contains(t, errOut, "to-stderr\n")
}

func TestCommandNotFound(t *testing.T) {
	_, errOut, code := rxe(t, "-topology=one", "/no/such/command")
	require.Equal(t, rxebed.ExitCommandFailed, code, errOut)
	require.Contains(t, errOut, "/no/such/command")
}

func TestTimeout(t *testing.T) {
	_, errOut, code := rxe(t, "-timeout=2s", "sleep", "600")
	require.Equal(t, rxebed.ExitTimeout, code, errOut)
	require.Contains(t, errOut, "exceeded 2s")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-root=nosuch", "true"},
		{"-topology=three", "true"},
		{}, // no command
	} {
		_, errOut, code := rxe(t, args...)
		require.Equal(t, rxebed.ExitUsage, code, "%v: %s", args, errOut)
	}
}

func TestMissingInputs(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "inputs.lock"), nil, 0o644))
	_, errOut, code := rxe(t, "-repo="+repo, "true")
	require.Equal(t, rxebed.ExitNoKernel, code, errOut)
	require.Contains(t, errOut, "run make inputs")
}

func TestNoQEMU(t *testing.T) {
	cmd := exec.Command(rxeBin, "run", "true")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, rxebed.ExitNoQEMU, exit.ExitCode(), "%s", out)
	require.Contains(t, string(out), "qemu-system-x86_64 is not installed")
}

// A guest whose init never says hello is booted once more, then the run fails with
// ExitBootFailed: a qemu that never boots stands in for the rare TCG boot hang.
func TestBootHangRetriedOnce(t *testing.T) {
	dir := t.TempDir()
	launches := filepath.Join(dir, "launches")
	fake := "#!/bin/sh\necho launch >> " + launches + "\nexec sleep 60\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "qemu-system-x86_64"), []byte(fake), 0o755))
	cmd := exec.Command(rxeBin, "run", "-boot-timeout=1s", "true")
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, rxebed.ExitBootFailed, exit.ExitCode(), "%s", out)
	require.Contains(t, string(out), "booting once more")
	b, err := os.ReadFile(launches)
	require.NoError(t, err)
	require.Equal(t, "launch\nlaunch\n", string(b), "two boots, no more")
}

// A program built on the host does not start on bullseye (glibc 2.31): the run is refused
// before the boot, naming the compiler to use; built with that compiler (a link to rxe named
// cc-bullseye), the same program runs there.
func TestOlderGlibcRoot(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.c")
	require.NoError(t, os.WriteFile(src, []byte("#include <pthread.h>\n#include <stdio.h>\nstatic void *run(void *a) { puts(a); return 0; }\nint main(void) { pthread_t t; pthread_create(&t, 0, run, \"hello from bullseye\"); return pthread_join(t, 0); }\n"), 0o644))
	host := filepath.Join(dir, "hello-host")
	out, err := exec.Command("gcc", "-pthread", "-o", host, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, errOut, code := rxe(t, "-root=bullseye", "-topology=one", host)
	require.Equal(t, rxebed.ExitCommandFailed, code, errOut)
	require.Contains(t, errOut, "needs GLIBC_2.34 from libc.so.6")
	require.Contains(t, errOut, "bin/cc-bullseye")

	cc := filepath.Join(filepath.Dir(rxeBin), "cc-bullseye")
	require.NoError(t, os.Symlink(rxeBin, cc))
	built := filepath.Join(dir, "hello-bullseye")
	out, err = exec.Command(cc, "-pthread", "-o", built, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	stdout, errOut, code := rxe(t, "-root=bullseye", "-topology=one", built)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "hello from bullseye\n", stdout)
}
