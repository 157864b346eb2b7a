//go:build linux

package rxebed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeRepo is a repository root with an inputs.lock and nothing fetched.
func fakeRepo(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inputs.lock"), nil, 0o644))
	return dir
}

func TestFindRepo(t *testing.T) {
	repo := fakeRepo(t)
	sub := filepath.Join(repo, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	got, err := FindRepo(sub)
	require.NoError(t, err)
	require.Equal(t, repo, got)
	_, err = FindRepo(t.TempDir())
	require.ErrorContains(t, err, "no inputs.lock")
}

func TestPlanMissingKernel(t *testing.T) {
	o := &Options{Repo: fakeRepo(t), Root: RootHost, Topology: TopoOne, Argv: []string{"true"}}
	_, err := makePlan(o)
	if ExitCode(err) == ExitNoQEMU {
		t.Fatalf("qemu is not installed: %v", err)
	}
	require.Equal(t, ExitNoKernel, ExitCode(err), "%v", err)
	require.ErrorContains(t, err, "make inputs")
}

func TestRWShares(t *testing.T) {
	repo := fakeRepo(t)
	pkg := filepath.Join(repo, "ibv")
	work := t.TempDir()
	cover := t.TempDir()
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	o := &Options{
		Repo: repo, Dir: pkg,
		Argv: []string{filepath.Join(work, "ibv.test"), "-test.v"},
		Env:  []string{"GOCOVERDIR=" + cover, "HOME=/root"},
		RW:   []string{filepath.Join(repo, "a")},
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "a"), 0o755))
	shares, err := rwShares(o)
	require.NoError(t, err)
	require.Equal(t, []Share{
		{Tag: "rw0", Path: repo, RW: true},
		{Tag: "rw1", Path: work, RW: true},
		{Tag: "rw2", Path: cover, RW: true},
	}, shares, "the package dir and -rw dir lie inside the repository share")

	o.RW = []string{filepath.Join(repo, "missing")}
	_, err = rwShares(o)
	require.Equal(t, ExitUsage, ExitCode(err))
}

func TestGuestEnvDropsHostSession(t *testing.T) {
	got := guestEnv([]string{"PWD=/x", "GOFLAGS=-count=1", "TERM=xterm", "PATH=/usr/bin", "SHLVL=2"})
	require.Equal(t, []string{"GOFLAGS=-count=1", "PATH=/usr/bin"}, got)
}

func TestQemuArgs(t *testing.T) {
	p := &plan{vmlinux: "/k/vmlinux", shares: []Share{{Tag: "rw0", Path: "/repo", RW: true}}, useQboot: true}
	args := strings.Join(p.qemuArgs(&Options{CPUs: 2, MemMiB: 1024, Timeout: time.Minute}, "/run"), " ")
	for _, want := range []string{
		"-accel tcg,thread=multi",
		"-smp 2", "-m 1024", "-no-reboot", "-bios " + qbootROM,
		"-kernel /k/vmlinux", "-initrd /run/initramfs.cpio",
		"local,id=fs0,path=/,security_model=none,multidevs=remap,readonly=on -device virtio-9p-pci,fsdev=fs0,mount_tag=hostroot",
		"local,id=fs1,path=/repo,security_model=none,multidevs=remap -device virtio-9p-pci,fsdev=fs1,mount_tag=rw0",
		"socket,id=ctl,path=/run/ctl.sock",
		"virtserialport,chardev=ctl,name=rxe.ctl,nr=3",
	} {
		require.Contains(t, args, want)
	}
	kvm := strings.Join(p.qemuArgs(&Options{CPUs: 1, MemMiB: 512, KVM: true}, "/run"), " ")
	require.Contains(t, kvm, "-accel kvm")
}
