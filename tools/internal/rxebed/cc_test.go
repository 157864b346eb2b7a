//go:build linux

package rxebed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeLibc writes a shared library defining only the symbol versions given, as
// lib/x86_64-linux-gnu/libc-fake.so in root, and an absolute link libc.so.6 to it (a
// root's links name paths inside the root).
func fakeLibc(t *testing.T, root string, versions ...string) {
	t.Helper()
	dir := filepath.Join(root, "lib/x86_64-linux-gnu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := filepath.Join(t.TempDir(), "fake.c")
	script := filepath.Join(t.TempDir(), "fake.map")
	require.NoError(t, os.WriteFile(src, []byte("int fake_symbol(void) { return 0; }\n"), 0o644))
	var m strings.Builder
	for i, v := range versions {
		m.WriteString(v + " {")
		if i == 0 {
			m.WriteString(" global: fake_symbol;")
		}
		m.WriteString(" };\n")
	}
	require.NoError(t, os.WriteFile(script, []byte(m.String()), 0o644))
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", filepath.Join(dir, "libc-fake.so"), src, "-Wl,--version-script="+script).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.Symlink("/lib/x86_64-linux-gnu/libc-fake.so", filepath.Join(dir, "libc.so.6")))
}

// A host program needs symbol versions of the host's glibc (GLIBC_2.34 for
// __libc_start_main, since 2.34): a root whose libc lacks one is refused, naming the version,
// the library and the compiler to build with.
func TestCheckRuns(t *testing.T) {
	bin, err := exec.LookPath("true")
	require.NoError(t, err)
	old := t.TempDir()
	older := []string{"GLIBC_2.2.5", "GLIBC_2.3", "GLIBC_2.3.4", "GLIBC_2.4", "GLIBC_2.14", "GLIBC_2.17", "GLIBC_2.26", "GLIBC_2.30"}
	fakeLibc(t, old, older...)
	err = checkRuns(bin, old, "bullseye")
	require.Equal(t, ExitCommandFailed, ExitCode(err), "%v", err)
	require.ErrorContains(t, err, "needs GLIBC_2.34 from libc.so.6, which the bullseye root's libc.so.6 does not define")
	require.ErrorContains(t, err, "CC=$PWD/bin/cc-bullseye")

	// The same program passes where the library defines what it needs.
	fresh := t.TempDir()
	fakeLibc(t, fresh, append(older, "GLIBC_2.34")...)
	require.NoError(t, checkRuns(bin, fresh, "trixie"))

	// A root without the library, and a program that is no ELF file, are the guest's to report.
	require.NoError(t, checkRuns(bin, t.TempDir(), "sid"))
	script := filepath.Join(t.TempDir(), "x.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, checkRuns(script, old, "bullseye"))
}

func TestCCArgs(t *testing.T) {
	repo := fakeRepo(t)
	_, err := CCArgs(repo, "nosuch")
	require.Equal(t, ExitUsage, ExitCode(err))
	cc, err := CCArgs(repo, RootHost)
	require.NoError(t, err)
	require.Equal(t, []string{"gcc"}, cc)
	_, err = CCArgs(repo, RootBullseye)
	require.Equal(t, ExitNoRoot, ExitCode(err), "%v", err)

	// A built root without libc6-dev runs host builds (its glibc is newer).
	dir := filepath.Join(repo, RootDir(RootBullseye))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, libDir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rootStamp), nil, 0o644))
	cc, err = CCArgs(repo, RootBullseye)
	require.NoError(t, err)
	require.Equal(t, []string{"gcc"}, cc)

	// With libc6-dev it is the sysroot, its start files and libraries ahead of gcc's own,
	// and the pinned headers must be there.
	require.NoError(t, os.WriteFile(filepath.Join(dir, sysrootMark), nil, 0o644))
	_, err = CCArgs(repo, RootBullseye)
	require.ErrorContains(t, err, "run make inputs")
	for _, inc := range []string{rdmaCoreInc, uapiInc + "/x86_64-linux-gnu"} {
		require.NoError(t, os.MkdirAll(filepath.Join(repo, inc), 0o755))
	}
	cc, err = CCArgs(repo, RootBullseye)
	require.NoError(t, err)
	require.Equal(t, []string{"gcc", "--sysroot=" + dir,
		"-B" + dir + "/" + libDir + "/", "-L" + dir + "/" + libDir, "-L" + dir + "/lib/x86_64-linux-gnu",
		"-isystem", filepath.Join(repo, rdmaCoreInc),
		"-isystem", filepath.Join(repo, uapiInc),
		"-isystem", filepath.Join(repo, uapiInc, "x86_64-linux-gnu")}, cc)
}
