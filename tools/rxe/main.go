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
// Failures of the bed itself exit with the codes 110..119 documented in internal/rxebed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/goverbs/goverbs/internal/rxebed"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	if os.Getpid() == 1 {
		rxebed.GuestMain()
	}
	if len(os.Args) < 2 || os.Args[1] != "run" {
		fmt.Fprintf(os.Stderr, "usage: rxe run [flags] command [args...]\n")
		os.Exit(rxebed.ExitUsage)
	}
	os.Exit(runCmd(os.Args[2:]))
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
