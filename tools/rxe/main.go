//go:build linux

// Command rxe runs a command inside a qemu guest that has a soft-RoCE (rxe) RDMA device,
// and exits with the command's status. It is made to be go test's -exec program:
//
//	go test -exec "$PWD/bin/rxe run -root=sid" ./ibv/...
//
// The guest boots the kernel pinned in inputs.lock, shares the host's / read-only over 9p
// under a tmpfs overlay (or a Debian root built by make inputs: sid with rdma-core 65,
// trixie with 56.1, bullseye with 33), shares the repository and the
// test binary's directory read-write, brings up rxe, and runs the command as root with the
// caller's environment plus RXE_* variables describing the network (see internal/rxetest).
// Failures of the bed itself exit with the codes 110..119 documented in tools/internal/rxebed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	if os.Getpid() == 1 {
		rxebed.GuestMain()
	}
	if root, ok := strings.CutPrefix(filepath.Base(os.Args[0]), "cc-"); ok {
		os.Exit(ccCmd(root, os.Args[1:]))
	}
	if len(os.Args) < 2 || os.Args[1] != "run" {
		fmt.Fprintf(os.Stderr, "usage: rxe run [flags] command [args...]\n       cc-ROOT [compiler args...]  (a link to rxe, e.g. make bin/cc-bullseye)\n")
		os.Exit(rxebed.ExitUsage)
	}
	os.Exit(runCmd(os.Args[2:]))
}

// ccCmd runs the host's C compiler so that what it builds runs in root (a root with an
// older glibc than the host's is its sysroot; see tools/internal/rxebed/cc.go). It is go's CC as
// a link to this binary named cc-ROOT, made by make bin/cc-ROOT:
//
//	CC=$PWD/bin/cc-bullseye go test -exec "$PWD/bin/rxe run -root=bullseye" ./ibv
//
// A link, not "rxe cc -root=...": go's linker tries its flags (-no-pie, --build-id) on the
// first word of CC alone. The repository is the one holding the binary (go runs the
// compiler in other directories too: its link step in its work directory), else the one
// around the working directory.
func ccCmd(root string, args []string) int {
	exe, err := os.Executable()
	var repo string
	if err == nil {
		repo, err = rxebed.FindRepo(filepath.Dir(exe))
	}
	if err != nil {
		if wd, werr := os.Getwd(); werr == nil {
			repo, err = rxebed.FindRepo(wd)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cc-%s: %v\n", root, err)
		return rxebed.ExitUsage
	}
	cc, err := rxebed.CCArgs(repo, root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cc-%s: %v\n", root, err)
		var be *rxebed.Error
		if errors.As(err, &be) {
			return be.Code
		}
		return rxebed.ExitUsage
	}
	path, err := exec.LookPath(cc[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "cc-%s: %v\n", root, err)
		return rxebed.ExitUsage
	}
	err = syscall.Exec(path, append(cc, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "cc-%s: exec %s: %v\n", root, path, err)
	return rxebed.ExitUsage
}

func runCmd(args []string) int {
	fs := flag.NewFlagSet("rxe run", flag.ContinueOnError)
	o := &rxebed.Options{Log: os.Stderr}
	var rw multiFlag
	repo := fs.String("repo", "", "repository root (default: found from the working directory)")
	fs.StringVar(&o.Root, "root", envOr("RXE_ROOT", rxebed.RootHost), "guest root: host (rdma-core 44), sid (65), trixie (56.1) or bullseye (33); default $RXE_ROOT or host")
	fs.StringVar(&o.Topology, "topology", envOr("RXE_TOPOLOGY", rxebed.TopoTwo), "one (rxe0 on a dummy netdev) or two (two nodes joined by a veth link)")
	fs.DurationVar(&o.Timeout, "timeout", 20*time.Minute, "limit for the whole run")
	fs.DurationVar(&o.BootTimeout, "boot-timeout", 90*time.Second, "limit from launch to the guest's init")
	fs.DurationVar(&o.RxeTimeout, "rxe-timeout", 30*time.Second, "limit for the rxe devices to become ACTIVE")
	fs.IntVar(&o.MemMiB, "mem", 2048, "guest memory in MiB")
	fs.IntVar(&o.CPUs, "cpus", 2, "guest CPUs")
	fs.BoolVar(&o.KVM, "kvm", false, "use KVM instead of TCG")
	fs.BoolVar(&o.Verbose, "v", os.Getenv("RXE_VERBOSE") != "", "report timings and print the guest console")
	fs.Var(&rw, "rw", "extra host directory the guest may write (repeatable)")
	if err := fs.Parse(args); err != nil {
		return rxebed.ExitUsage
	}
	o.RW = rw
	o.Argv = fs.Args()
	o.Env = os.Environ()
	var err error
	if o.Dir, err = os.Getwd(); err != nil {
		fmt.Fprintf(os.Stderr, "rxe: %v\n", err)
		return rxebed.ExitUsage
	}
	if o.Repo = *repo; o.Repo == "" {
		if o.Repo, err = rxebed.FindRepo(o.Dir); err != nil {
			fmt.Fprintf(os.Stderr, "rxe: %v\n", err)
			return rxebed.ExitUsage
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := rxebed.Run(ctx, o, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rxe: %v\n", err)
		var be *rxebed.Error
		if errors.As(err, &be) {
			return be.Code
		}
		return rxebed.ExitUsage
	}
	return res.ExitCode
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
