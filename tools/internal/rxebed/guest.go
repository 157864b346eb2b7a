//go:build linux

package rxebed

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Guest-side names. The rxe tool is its own init: the host copies its static binary into
// the initramfs, and when it runs as PID 1 it calls GuestMain.
const (
	guestConfigPath = "/rxe.json"
	guestModulesDir = "/modules"
	hostMount       = "/host"
	newRoot         = "/newroot"
	overlayScratch  = "/ovl"
	// virtio serial ports, by the names the host gives them (guestPorts).
	portStdout  = "rxe.out"
	portStderr  = "rxe.err"
	portControl = "rxe.ctl"
)

// guest is the state of the init process.
type guest struct {
	cfg GuestConfig
	ctl *os.File
}

// GuestMain runs the guest's init and never returns: it reports the command's status on
// the control port and reboots, which ends qemu (-no-reboot).
func GuestMain() {
	g := &guest{}
	code, err := g.run()
	if err != nil {
		g.report(control{Word: ctlFail, Code: code, Msg: err.Error()})
		fmt.Fprintf(os.Stderr, "rxe guest: %v\n", err)
	} else {
		g.awaitDrained()
	}
	unix.Sync()
	if g.ctl != nil {
		g.ctl.Sync()
	}
	_ = unix.Reboot(unix.LINUX_REBOOT_CMD_RESTART)
	select {}
}

// phase notes the guest's uptime at a step of its init on the console, with -v.
func (g *guest) phase(what string) {
	if g.cfg.Verbose {
		fmt.Fprintf(os.Stderr, "rxe guest: %s at %s s\n", what, uptime())
	}
}

// report writes one control line (control.go) to the host.
func (g *guest) report(c control) {
	if g.ctl == nil {
		return
	}
	fmt.Fprintln(g.ctl, c)
}

func (g *guest) run() (int, error) {
	for _, m := range []struct{ src, dst, fs string }{
		{"devtmpfs", "/dev", "devtmpfs"},
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
	} {
		if err := mountAt(m.src, m.dst, m.fs, 0, ""); err != nil {
			return ExitGuestSetup, err
		}
	}
	raw, err := os.ReadFile(guestConfigPath)
	if err != nil {
		return ExitGuestSetup, err
	}
	if err := json.Unmarshal(raw, &g.cfg); err != nil {
		return ExitGuestSetup, fmt.Errorf("decoding %s: %w", guestConfigPath, err)
	}
	for _, m := range g.cfg.BootModules {
		if err := loadModule(filepath.Join(guestModulesDir, m)); err != nil {
			return ExitGuestSetup, err
		}
	}
	ctl, err := openPort(portControl)
	if err != nil {
		return ExitGuestSetup, err
	}
	g.ctl = ctl
	g.report(control{Word: ctlHello})
	g.phase("init started")
	if err := g.buildRoot(); err != nil {
		return ExitGuestSetup, err
	}
	g.phase("root mounted")
	if err := loadModules(g.cfg.Modules); err != nil {
		return ExitGuestSetup, err
	}
	g.phase("rdma modules loaded")
	if err := unix.Chroot(newRoot); err != nil {
		return ExitGuestSetup, fmt.Errorf("chroot %s: %w", newRoot, err)
	}
	if err := os.Chdir("/"); err != nil {
		return ExitGuestSetup, err
	}
	setPath(g.cfg.Env)
	net, err := setupNetwork(g.cfg.Topology)
	if err != nil {
		return ExitGuestSetup, err
	}
	g.phase("network configured")
	if err := waitActive(net.devices(), g.cfg.RxeTimeout); err != nil {
		return ExitRxeNotUp, err
	}
	g.phase("rxe active")
	g.report(control{Word: ctlReady, Uptime: uptime()})
	rc, outN, errN, err := g.command(net)
	if err != nil {
		return ExitCommandFailed, err
	}
	g.report(control{Word: ctlExit, Status: rc, Out: outN, Err: errN})
	return rc, nil
}

// buildRoot mounts the host's / over 9p, lays a tmpfs overlay over the chosen lower root,
// and mounts the read-write shares and the kernel's file systems inside it.
func (g *guest) buildRoot() error {
	opts9p := "trans=virtio,version=9p2000.L,msize=512000"
	if err := mountAt(g.cfg.HostTag, hostMount, "9p", unix.MS_RDONLY, opts9p+",cache=loose"); err != nil {
		return err
	}
	if err := mountAt("tmpfs", overlayScratch, "tmpfs", 0, "mode=0755"); err != nil {
		return err
	}
	for _, d := range []string{"upper", "work"} {
		if err := os.MkdirAll(filepath.Join(overlayScratch, d), 0o755); err != nil {
			return err
		}
	}
	lower := filepath.Join(hostMount, g.cfg.Lower)
	ovl := fmt.Sprintf("lowerdir=%s,upperdir=%s/upper,workdir=%s/work", lower, overlayScratch, overlayScratch)
	if err := mountAt("overlay", newRoot, "overlay", 0, ovl); err != nil {
		return err
	}
	for _, s := range g.cfg.Shares {
		flags := uintptr(0)
		if !s.RW {
			flags = unix.MS_RDONLY
		}
		if err := mountAt(s.Tag, filepath.Join(newRoot, s.Path), "9p", flags, opts9p); err != nil {
			return err
		}
	}
	for _, m := range []struct{ src, dst, fs, opts string }{
		{"proc", "/proc", "proc", ""},
		{"sysfs", "/sys", "sysfs", ""},
		{"devtmpfs", "/dev", "devtmpfs", ""},
		{"devpts", "/dev/pts", "devpts", "newinstance,ptmxmode=0666"},
		{"tmpfs", "/dev/shm", "tmpfs", "mode=1777"},
		{"tmpfs", "/run", "tmpfs", "mode=0755"},
	} {
		if err := mountAt(m.src, filepath.Join(newRoot, m.dst), m.fs, 0, m.opts); err != nil {
			return err
		}
	}
	return nil
}

// command runs the user's command with its output on the stdout and stderr ports, and
// returns its status and how many bytes it wrote to each.
func (g *guest) command(net *network) (rc int, outN, errN int64, err error) {
	stdout, err := openPort(portStdout)
	if err != nil {
		return 0, 0, 0, err
	}
	stderr, err := openPort(portStderr)
	if err != nil {
		return 0, 0, 0, err
	}
	argv := g.cfg.Argv
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("command %q: %w", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = g.cfg.Dir
	cmd.Env = append(append([]string{}, g.cfg.Env...), net.env(g.cfg.Root)...)
	cmd.Stdin = nil
	// Through pipes (not the ports' descriptors), so that every byte is counted: the host
	// acknowledges the counts before the guest powers off (see awaitDrained).
	var out, errOut atomic.Int64
	cmd.Stdout, cmd.Stderr = countTo{stdout, &out}, countTo{stderr, &errOut}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.Load(), errOut.Load(), nil
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), out.Load(), errOut.Load(), nil
		}
		return exit.ExitCode(), out.Load(), errOut.Load(), nil
	default:
		return 0, 0, 0, fmt.Errorf("running %q in %s: %w", g.cfg.Argv[0], g.cfg.Dir, err)
	}
}

// awaitDrained waits for the host's "bye": the host sends it once it has received every
// byte the exit line counted. Output still queued in the virtio rings when the guest
// resets would be lost.
func (g *guest) awaitDrained() {
	done := make(chan struct{})
	go func() {
		bufio.NewReader(g.ctl).ReadString('\n')
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "rxe guest: the host did not acknowledge the output within 60 s")
	}
}

func mountAt(src, dst, fstype string, flags uintptr, data string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("mkdir %s: %w", dst, err)
	}
	if err := unix.Mount(src, dst, fstype, flags, data); err != nil {
		return fmt.Errorf("mount %s (%s) on %s [%s]: %w", src, fstype, dst, data, err)
	}
	return nil
}

func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("kernel module: %w", err)
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("loading kernel module %s: %w", filepath.Base(path), err)
	}
	return nil
}

// loadModules loads the modules concurrently, each once its dependencies are in: under TCG
// a module load (signature check, relocation) takes tens of milliseconds of CPU.
func loadModules(mods []Module) error {
	done := map[string]chan struct{}{}
	for _, m := range mods {
		done[m.Path] = make(chan struct{})
	}
	errs := make(chan error, len(mods))
	for _, m := range mods {
		go func() {
			for _, d := range m.Deps {
				if ch, ok := done[d]; ok {
					<-ch
				}
			}
			err := loadModule(m.Path)
			errs <- err
			if err == nil {
				close(done[m.Path])
			}
		}()
	}
	for range mods {
		if err := <-errs; err != nil {
			return err // the modules waiting on the failed one stay blocked; init reboots
		}
	}
	return nil
}

// openPort opens the virtio serial port with the given name, waiting briefly for the
// driver to create it. Nodes are named /dev/vport<dev>p<nr>; sysfs maps names to them.
func openPort(name string) (*os.File, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := tryOpenPort(name)
		if err == nil {
			return f, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("opening the virtio port %s: %w", name, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func tryOpenPort(name string) (*os.File, error) {
	ports, err := filepath.Glob("/sys/class/virtio-ports/*/name")
	if err != nil {
		return nil, err
	}
	for _, p := range ports {
		b, err := os.ReadFile(p)
		if err != nil || strings.TrimSpace(string(b)) != name {
			continue
		}
		return os.OpenFile(filepath.Join("/dev", filepath.Base(filepath.Dir(p))), os.O_RDWR, 0)
	}
	return nil, os.ErrNotExist
}

func setPath(env []string) {
	path := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v + ":" + path
		}
	}
	os.Setenv("PATH", path)
}

func uptime() string {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
