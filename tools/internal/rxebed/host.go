//go:build linux

package rxebed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goverbs/goverbs/internal/pinned"
)

// Options configure one run of a command in the guest.
type Options struct {
	Repo        string        // repository root (holds inputs.lock and .cache)
	Root        string        // one of Roots
	Topology    string        // TopoOne or TopoTwo
	Timeout     time.Duration // whole run, boot included
	BootTimeout time.Duration // launch until the guest's init says hello
	RxeTimeout  time.Duration // init's wait for the rxe devices to become ACTIVE
	MemMiB      int
	CPUs        int
	KVM         bool     // use KVM instead of TCG (only where it really works)
	RW          []string // extra host directories the guest may write
	Dir         string   // working directory of the command (host path)
	Argv        []string
	Env         []string
	Verbose     bool      // stream the guest console and report timings on Log
	Log         io.Writer // the tool's own messages (stderr)
}

// Result describes a finished run.
type Result struct {
	ExitCode int
	Ready    time.Duration // launch until the rxe devices were ACTIVE
	Total    time.Duration
}

// Kernel, modules and roots of the bed, relative to the repository root.
const (
	kernelDir   = ".cache/inputs/kernel"
	rootStamp   = ".goverbs-stamp" // written by tools/inputs/root.sh once a root is complete
	qemuBinary  = "qemu-system-x86_64"
	qbootROM    = "/usr/share/qemu/qboot.rom"
	hostRootTag = "hostroot"
)

// kernelArgs: serial console; no ACPI (its interpreter and PCI link set-up cost ~1 s under
// TCG; PCI interrupts route without it); no crypto self-tests (1.4 s of the boot under TCG,
// measured with initcall_debug); no mitigations or address randomisation; no PS/2 probing.
// RXE_KERNEL_ARGS appends more (e.g. "loglevel=8 initcall_debug" to see the boot).
const kernelArgs = "console=ttyS0 panic=-1 quiet acpi=off cryptomgr.notests mitigations=off nokaslr tsc=reliable no_timer_check i8042.noaux i8042.nokbd"

// guestPorts are the host ends of the guest's stdout, stderr and control ports.
var guestPorts = []string{"out", "err", "ctl"}

// guestModules: the rxe stack, the netdevs under it, and vgem, a DRM driver without
// hardware whose buffers export DMA-BUF fds (rxetest.DMABuf), for registration tests.
var (
	bootModules  = []string{"virtio_pci", "virtio_console", "9pnet_virtio", "9p", "overlay"}
	guestModules = []string{"crc32_generic", "rdma_rxe", "ib_uverbs", "rdma_ucm", "ib_umad", "dummy", "veth", "vgem"}
)

// FindRepo walks up from dir to the directory holding inputs.lock (pinned.RepoRoot).
func FindRepo(dir string) (string, error) {
	repo, err := pinned.RepoRoot(dir)
	if err != nil {
		return "", fmt.Errorf("no inputs.lock above %s: run inside the goverbs repository or pass -repo", dir)
	}
	return repo, nil
}

// plan turns Options into a guest configuration and the qemu command line.
type plan struct {
	cfg      GuestConfig
	vmlinux  string
	modDir   string
	shares   []Share
	qemu     string
	initBin  string
	useQboot bool
}

// resolved follows symbolic links in path: the guest reads the kernel and a built root
// through the host root's share, where a link with an absolute target (a worktree's .cache
// pointing at a shared one) would resolve inside the guest's own tree.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

func makePlan(o *Options) (*plan, error) {
	p := &plan{}
	var err error
	if p.qemu, err = exec.LookPath(qemuBinary); err != nil {
		return nil, bedErr(ExitNoQEMU, err, "%s is not installed (apt-get install qemu-system-x86, or run make host-deps)", qemuBinary)
	}
	kdir := resolved(filepath.Join(o.Repo, kernelDir))
	rel, err := os.ReadFile(filepath.Join(kdir, "kernel-release"))
	if err != nil {
		return nil, bedErr(ExitNoKernel, err, "the pinned kernel is not unpacked in %s (run make inputs)", kernelDir)
	}
	p.vmlinux = filepath.Join(kdir, "boot/vmlinux")
	if _, err := os.Stat(p.vmlinux); err != nil {
		return nil, bedErr(ExitNoKernel, err, "no vmlinux in %s (run make inputs)", kernelDir)
	}
	p.modDir = filepath.Join(kdir, "lib/modules", strings.TrimSpace(string(rel)))
	mods, err := LoadModules(p.modDir)
	if err != nil {
		return nil, bedErr(ExitNoKernel, err, "kernel modules")
	}
	boot, err := mods.Resolve(bootModules...)
	if err != nil {
		return nil, bedErr(ExitNoKernel, err, "boot modules")
	}
	rest, err := mods.Resolve(append(append([]string{}, bootModules...), guestModules...)...)
	if err != nil {
		return nil, bedErr(ExitNoKernel, err, "guest modules")
	}
	inBoot := map[string]bool{}
	for _, m := range boot {
		inBoot[m] = true
	}
	hostPath := func(rel string) string { return filepath.Join(hostMount, p.modDir, rel) }
	var late []Module
	for _, m := range rest[len(boot):] {
		mod := Module{Path: hostPath(m)}
		for _, d := range mods.DependsOn(m) {
			if !inBoot[d] {
				mod.Deps = append(mod.Deps, hostPath(d))
			}
		}
		late = append(late, mod)
	}
	lower := "/"
	switch {
	case o.Root == RootHost:
	case slices.Contains(Roots, o.Root):
		dir := RootDir(o.Root)
		lower = resolved(filepath.Join(o.Repo, dir))
		if _, err := os.Stat(filepath.Join(lower, rootStamp)); err != nil {
			return nil, bedErr(ExitNoRoot, err, "the %s root is not built in %s (run make inputs)", o.Root, dir)
		}
	default:
		return nil, bedErr(ExitUsage, nil, "unknown root %q (want one of %s)", o.Root, strings.Join(Roots, ", "))
	}
	if o.Topology != TopoOne && o.Topology != TopoTwo {
		return nil, bedErr(ExitUsage, nil, "unknown topology %q (want %s or %s)", o.Topology, TopoOne, TopoTwo)
	}
	if len(o.Argv) == 0 {
		return nil, bedErr(ExitUsage, nil, "no command to run")
	}
	if o.Root != RootHost && strings.Contains(o.Argv[0], "/") {
		// A host-built program (a test binary) must start in the root; a bare name is the
		// root's own.
		bin := o.Argv[0]
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(o.Dir, bin)
		}
		if err := checkRuns(bin, lower, o.Root); err != nil {
			return nil, err
		}
	}
	if p.initBin, err = os.Executable(); err != nil {
		return nil, bedErr(ExitUsage, err, "locating the rxe binary")
	}
	if err := checkStatic(p.initBin); err != nil {
		return nil, bedErr(ExitUsage, err, "the guest init")
	}
	shares, err := rwShares(o)
	if err != nil {
		return nil, err
	}
	_, err = os.Stat(qbootROM)
	p.useQboot = err == nil
	p.shares = shares
	p.cfg = GuestConfig{
		Argv: o.Argv, Env: guestEnv(o.Env), Dir: o.Dir, Root: o.Root, Lower: lower,
		HostTag: hostRootTag, Shares: shares, BootModules: boot, Modules: late,
		Topology: o.Topology, RxeTimeout: o.RxeTimeout, Verbose: o.Verbose,
	}
	return p, nil
}

// rwShares lists the host directories the guest may write: the repository (tests update
// golden files, write profiles), the command's directory and its working directory when
// outside the repository (go test puts test binaries and coverage files in its work
// directory), and every -rw directory. A directory inside another share is not shared twice.
func rwShares(o *Options) ([]Share, error) {
	want := []string{o.Repo, o.Dir}
	if len(o.Argv) > 0 && filepath.IsAbs(o.Argv[0]) {
		// A host program (a test binary); a path that exists only in the guest is left alone.
		if st, err := os.Stat(filepath.Dir(o.Argv[0])); err == nil && st.IsDir() {
			want = append(want, filepath.Dir(o.Argv[0]))
		}
	}
	for _, kv := range o.Env {
		if v, ok := strings.CutPrefix(kv, "GOCOVERDIR="); ok && v != "" {
			want = append(want, v)
		}
	}
	want = append(want, o.RW...)
	var shares []Share
	for _, w := range want {
		if w == "" {
			continue
		}
		abs, err := filepath.Abs(w)
		if err != nil {
			return nil, bedErr(ExitUsage, err, "share %s", w)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, bedErr(ExitUsage, err, "share %s is not a directory", abs)
		}
		covered := false
		for _, s := range shares {
			if abs == s.Path || strings.HasPrefix(abs, s.Path+"/") {
				covered = true
			}
		}
		if !covered {
			shares = append(shares, Share{Tag: "rw" + strconv.Itoa(len(shares)), Path: abs, RW: true})
		}
	}
	return shares, nil
}

// guestEnv forwards the caller's environment, less what describes the host session.
func guestEnv(env []string) []string {
	drop := map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, "TERM": true, "DISPLAY": true, "SSH_AUTH_SOCK": true, "HOSTNAME": true}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return out
}

// tscArg gives a TCG guest the host's TSC rate (see hostTSCkHz); KVM
// guests calibrate their own.
func tscArg(o *Options) string {
	if o.KVM {
		return ""
	}
	if khz := hostTSCkHz(); khz > 0 {
		return " tsc_early_khz=" + strconv.FormatInt(khz, 10)
	}
	return ""
}

func (p *plan) qemuArgs(o *Options, runDir string) []string {
	accel := "tcg,thread=multi"
	if o.KVM {
		accel = "kvm"
	}
	args := []string{
		"-machine", "pc",
		"-accel", accel,
		"-cpu", "max",
		"-smp", strconv.Itoa(o.CPUs),
		"-m", strconv.Itoa(o.MemMiB),
		"-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none", "-no-reboot",
		"-kernel", p.vmlinux,
		"-initrd", filepath.Join(runDir, "initramfs.cpio"),
		"-append", kernelArgs + tscArg(o) + " " + os.Getenv("RXE_KERNEL_ARGS"),
		"-serial", "file:" + filepath.Join(runDir, "console.log"),
		"-device", "virtio-serial-pci",
	}
	if p.useQboot {
		args = append(args, "-bios", qbootROM)
	}
	shares := append([]Share{{Tag: hostRootTag, Path: "/"}}, p.shares...)
	for i, s := range shares {
		id := "fs" + strconv.Itoa(i)
		fsdev := "local,id=" + id + ",path=" + s.Path + ",security_model=none,multidevs=remap"
		if !s.RW {
			fsdev += ",readonly=on"
		}
		args = append(args, "-fsdev", fsdev, "-device", "virtio-9p-pci,fsdev="+id+",mount_tag="+s.Tag)
	}
	// Plain serial ports (not consoles: no tty, so bytes pass untouched), numbered from 1
	// (port 0 is reserved for a console); the guest finds them by name in sysfs.
	for i, port := range guestPorts {
		args = append(args,
			"-chardev", "socket,id="+port+",path="+filepath.Join(runDir, port+".sock"),
			"-device", "virtserialport,chardev="+port+",name=rxe."+port+",nr="+strconv.Itoa(i+1))
	}
	return args
}

// Run boots the guest, runs the command and returns its exit status.
//
// A boot whose init never says hello (qemu under TCG very rarely hangs
// before it, on a loaded host) is retried once, with a line on o.Log:
// nothing of the command ran, so nothing runs twice.
func Run(ctx context.Context, o *Options, stdout, stderr io.Writer) (*Result, error) {
	res, err := runOnce(ctx, o, stdout, stderr)
	var be *Error
	if errors.As(err, &be) && be.noHello && ctx.Err() == nil {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "rxe: %v; booting once more\n", firstLine(err.Error()))
		}
		res, err = runOnce(ctx, o, stdout, stderr)
	}
	return res, err
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// runOnce boots the guest once and runs the command (see Run).
func runOnce(ctx context.Context, o *Options, stdout, stderr io.Writer) (*Result, error) {
	start := time.Now()
	p, err := makePlan(o)
	if err != nil {
		return nil, err
	}
	runDir, err := os.MkdirTemp("", "rxe-")
	if err != nil {
		return nil, bedErr(ExitBootFailed, err, "creating the run directory")
	}
	defer os.RemoveAll(runDir)
	if err := writeInitramfs(filepath.Join(runDir, "initramfs.cpio"), p.initBin, &p.cfg, p.modDir); err != nil {
		return nil, bedErr(ExitBootFailed, err, "writing the initramfs")
	}
	listeners := map[string]net.Listener{}
	for _, port := range guestPorts {
		l, err := net.Listen("unix", filepath.Join(runDir, port+".sock"))
		if err != nil {
			return nil, bedErr(ExitBootFailed, err, "listening for the guest's %s port", port)
		}
		defer l.Close()
		listeners[port] = l
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.Command(p.qemu, p.qemuArgs(o, runDir)...)
	qemuLog, err := os.Create(filepath.Join(runDir, "qemu.log"))
	if err != nil {
		return nil, bedErr(ExitBootFailed, err, "creating qemu.log")
	}
	cmd.Stdout, cmd.Stderr = qemuLog, qemuLog
	if err := cmd.Start(); err != nil {
		return nil, bedErr(ExitBootFailed, err, "starting %s", p.qemu)
	}
	qemuDone := make(chan error, 1)
	go func() { qemuDone <- cmd.Wait() }()

	var copies sync.WaitGroup
	var outN, errN atomic.Int64
	accept := func(port string, w io.Writer, n *atomic.Int64) {
		copies.Add(1)
		go func() {
			defer copies.Done()
			c, err := listeners[port].Accept()
			if err != nil {
				return
			}
			defer c.Close()
			io.Copy(countTo{w, n}, c)
		}()
	}
	accept("out", stdout, &outN)
	accept("err", stderr, &errN)
	events := make(chan string, 16)
	ctlConn := make(chan net.Conn, 1)
	go func() {
		defer close(events)
		c, err := listeners["ctl"].Accept()
		if err != nil {
			return
		}
		defer c.Close()
		ctlConn <- c
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			events <- sc.Text()
		}
	}()

	res := &Result{ExitCode: -1}
	evc := events
	var guestErr *Error
	hello := false
	bootTimer := time.NewTimer(o.BootTimeout)
	defer bootTimer.Stop()
	kill := func() { _ = cmd.Process.Kill() }
	var qemuErr error

	// handle takes one line of the guest's control port (control.go). A line the host cannot
	// read fails the run (a fail line, which names the cause, takes precedence).
	handle := func(ev string) {
		c, err := parseControl(ev)
		if err != nil {
			if guestErr == nil {
				guestErr = bedErr(ExitNoStatus, nil, "guest: %v", err)
			}
			return
		}
		switch c.Word {
		case ctlHello:
			hello = true
			bootTimer.Stop()
		case ctlReady:
			res.Ready = time.Since(start)
			if o.Verbose {
				fmt.Fprintf(o.Log, "rxe: %s root, topology %s: rxe ready %.2f s after launch (guest uptime %s s)\n", o.Root, o.Topology, res.Ready.Seconds(), c.Uptime)
			}
		case ctlExit:
			// Acknowledge once all the output the guest counted has arrived.
			res.ExitCode = c.Status
			go acknowledge(<-ctlConn, func() bool { return outN.Load() >= c.Out && errN.Load() >= c.Err })
		case ctlFail:
			guestErr = bedErr(c.Code, nil, "guest: %s", c.Msg)
		}
	}
wait:
	for {
		select {
		case ev, ok := <-evc:
			if !ok {
				evc = nil
				continue
			}
			handle(ev)
		case qemuErr = <-qemuDone:
			break wait
		case <-bootTimer.C:
			if !hello {
				kill()
				<-qemuDone
				e := bedErr(ExitBootFailed, nil, "the guest did not reach its init within %s%s", o.BootTimeout, consoleTail(runDir))
				e.noHello = true
				return nil, e
			}
		case <-ctx.Done():
			kill()
			<-qemuDone
			return nil, bedErr(ExitTimeout, ctx.Err(), "the run exceeded %s%s", o.Timeout, consoleTail(runDir))
		}
	}
	for _, l := range listeners {
		l.Close()
	}
	copies.Wait()
	// Lines still queued when qemu exited (a guest reports "fail" and resets at once).
	if evc != nil {
		for ev := range evc {
			handle(ev)
		}
	}
	res.Total = time.Since(start)
	if o.Verbose {
		fmt.Fprintf(o.Log, "rxe: run took %.2f s\n", res.Total.Seconds())
		if b, err := os.ReadFile(filepath.Join(runDir, "console.log")); err == nil {
			fmt.Fprintf(o.Log, "rxe: guest console:\n%s", b)
		}
	}
	if guestErr != nil {
		guestErr.Msg += consoleTail(runDir)
		return nil, guestErr
	}
	if !hello {
		return nil, bedErr(ExitBootFailed, qemuErr, "qemu exited before the guest reached its init%s%s", qemuTail(runDir), consoleTail(runDir))
	}
	if res.ExitCode < 0 {
		return nil, bedErr(ExitNoStatus, qemuErr, "the guest ended without reporting the command's status%s", consoleTail(runDir))
	}
	return res, nil
}

// countTo counts the bytes copied to w.
type countTo struct {
	w io.Writer
	n *atomic.Int64
}

func (c countTo) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// acknowledge tells the guest it may power off once all its output has arrived (or after
// a minute, when something is wrong: the host then reports what it got).
func acknowledge(ctl net.Conn, arrived func() bool) {
	deadline := time.Now().Add(time.Minute)
	for !arrived() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	fmt.Fprintln(ctl, "bye")
}

func tailOf(path, what string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("\n--- last %d lines of the %s ---\n%s", len(lines), what, strings.Join(lines, "\n"))
}

func consoleTail(runDir string) string {
	return tailOf(filepath.Join(runDir, "console.log"), "guest console", 40)
}

func qemuTail(runDir string) string {
	return tailOf(filepath.Join(runDir, "qemu.log"), "qemu output", 20)
}
