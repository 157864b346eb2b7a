// Command rcpingpong runs a ping-pong test over an RDMA reliable connected
// (RC) queue pair, like ibverbs-utils' ibv_rc_pingpong(1), on the Go-native
// package rdma. It speaks the tool's out-of-band protocol (TCP, default
// port 18515), so either end may be ibv_rc_pingpong.
//
// Usage:
//
//	rcpingpong [flags]            start a server and wait for a connection
//	rcpingpong [flags] HOSTNAME   connect to the server at HOSTNAME
//
// The flags are ibv_rc_pingpong's, with their long forms:
//
//	-p, --port=PORT         TCP port of the exchange (default 18515)
//	-d, --ib-dev=DEVICE     RDMA device (default the first one found)
//	-i, --ib-port=PORT      port of the device (default 1)
//	-s, --size=SIZE         message size in bytes (default 4096)
//	-m, --mtu=SIZE          path MTU: 256, 512, 1024, 2048 or 4096 (default 1024)
//	-r, --rx-depth=DEPTH    receives to keep posted (default 500)
//	-n, --iters=ITERS       message exchanges (default 1000)
//	-g, --gid-idx=INDEX     local GID index (RoCE needs one; on rxe 1)
//	-e, --events            wait for completion events instead of polling
//	-c, --chk               validate the received buffer
//
// Both ends must be given the same -s and -n. Each prints its local and
// remote address and, after the exchanges, the bytes and iterations it
// counted with the rates. A failure ends it with a message and status 1;
// a usage error with status 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/goverbs/goverbs/ibv"
)

// options are the parsed command line.
type options struct {
	port     int    // -p: TCP port
	dev      string // -d: device name; "" for the first
	ibPort   int    // -i
	size     int    // -s
	mtu      ibv.MTU
	rxDepth  int  // -r
	iters    int  // -n
	gidIndex int  // -g; -1 for none (the GID sent is zero)
	events   bool // -e
	validate bool // -c
	server   string
}

// errUsage marks a command-line error (exit status 2); the usage is printed.
var errUsage = errors.New("usage")

// parseArgs reads ibv_rc_pingpong's flags and the optional server name from
// args (without the program name). As with getopt, the name may come
// before, between or after the flags.
func parseArgs(args []string, stderr io.Writer) (options, error) {
	o := options{port: 18515, ibPort: 1, size: 4096, rxDepth: 500, iters: 1000, gidIndex: -1}
	mtu := 1024
	fs := flag.NewFlagSet("rcpingpong", flag.ContinueOnError)
	fs.SetOutput(stderr)
	both := func(short, long string, f func(name string)) { f(short); f(long) }
	both("p", "port", func(n string) { fs.IntVar(&o.port, n, o.port, "TCP `port` of the exchange") })
	both("d", "ib-dev", func(n string) { fs.StringVar(&o.dev, n, "", "RDMA `device` (default the first one found)") })
	both("i", "ib-port", func(n string) { fs.IntVar(&o.ibPort, n, o.ibPort, "`port` of the device") })
	both("s", "size", func(n string) { fs.IntVar(&o.size, n, o.size, "message `size` in bytes") })
	both("m", "mtu", func(n string) { fs.IntVar(&mtu, n, mtu, "path MTU `size`: 256, 512, 1024, 2048 or 4096") })
	both("r", "rx-depth", func(n string) { fs.IntVar(&o.rxDepth, n, o.rxDepth, "receives to keep posted (`depth`)") })
	both("n", "iters", func(n string) { fs.IntVar(&o.iters, n, o.iters, "message exchanges (`iters`)") })
	both("g", "gid-idx", func(n string) { fs.IntVar(&o.gidIndex, n, o.gidIndex, "local GID `index` (-1: none)") })
	both("e", "events", func(n string) { fs.BoolVar(&o.events, n, false, "wait for completion events instead of polling") })
	both("c", "chk", func(n string) { fs.BoolVar(&o.validate, n, false, "validate the received buffer") })
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage:\n  rcpingpong [flags]            start a server and wait for a connection\n  rcpingpong [flags] HOSTNAME   connect to the server at HOSTNAME")
		fs.PrintDefaults()
	}
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return o, errUsage // flag printed the error and the usage
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	fail := func(format string, a ...any) (options, error) {
		fmt.Fprintf(stderr, "rcpingpong: "+format+"\n", a...)
		fs.Usage()
		return o, errUsage
	}
	if len(names) > 1 {
		return fail("one server name at most, got %q", names)
	}
	if len(names) == 1 {
		o.server = names[0]
	}
	var ok bool
	if o.mtu, ok = mtuEnum(mtu); !ok {
		return fail("invalid MTU %d: use 256, 512, 1024, 2048 or 4096", mtu)
	}
	switch {
	case o.port < 1 || o.port > 65535:
		return fail("invalid TCP port %d", o.port)
	case o.ibPort < 1 || o.ibPort > 255:
		return fail("invalid port %d of the device: ports are numbered 1 to 255", o.ibPort)
	case o.size < 1 || o.size > 1<<31-1:
		return fail("invalid size %d: 1 to 2^31-1 bytes", o.size)
	case o.rxDepth < 1 || o.rxDepth > 1<<20:
		return fail("invalid rx depth %d: 1 to 2^20", o.rxDepth)
	case o.iters < 1:
		return fail("invalid iteration count %d", o.iters)
	case o.gidIndex < -1 || o.gidIndex > 255:
		return fail("invalid GID index %d", o.gidIndex)
	}
	return o, nil
}

// mtuEnum maps a path MTU in bytes to its ibv.MTU.
func mtuEnum(n int) (ibv.MTU, bool) {
	switch n {
	case 256:
		return ibv.MTU256, true
	case 512:
		return ibv.MTU512, true
	case 1024:
		return ibv.MTU1024, true
	case 2048:
		return ibv.MTU2048, true
	case 4096:
		return ibv.MTU4096, true
	}
	return 0, false
}

// run is the command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return 2
	}
	if err := pingpong(o, stdout); err != nil {
		fmt.Fprintf(stderr, "rcpingpong: %v\n", err)
		return 1
	}
	return 0
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
