// Command devinfo prints the attributes of the RDMA devices available from
// user space, like ibverbs-utils' ibv_devinfo(1) and in the same format,
// through the generated package ibv.
//
// Usage:
//
//	devinfo [-d device] [-i port] [-l] [-v]
//
// The flags are ibv_devinfo's, with their long forms:
//
//	-d, --ib-dev=DEVICE   only the device named DEVICE (default all devices)
//	-i, --ib-port=PORT    only port PORT (1-255) of each device (default all ports)
//	-l, --list            only list the names of the devices
//	-v, --verbose         print every attribute, the GID tables included
//
// A failing verbs call ends the command with a message naming the C
// function and a non-zero status: 1 for a failure, 2 for a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// options are the parsed command-line flags.
type options struct {
	dev     string // -d: one device by name; "" for all
	port    int    // -i: one port; 0 for all
	list    bool   // -l
	verbose bool   // -v
}

// errUsage marks a command-line error (exit status 2); flag has printed the usage.
var errUsage = errors.New("usage")

// parseArgs reads ibv_devinfo's flags from args (without the program name).
func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("devinfo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, name := range []string{"d", "ib-dev"} {
		fs.StringVar(&o.dev, name, "", "use IB device `DEVICE` (default all devices)")
	}
	for _, name := range []string{"i", "ib-port"} {
		fs.IntVar(&o.port, name, 0, "query port `PORT` (default all ports)")
	}
	for _, name := range []string{"l", "list"} {
		fs.BoolVar(&o.list, name, false, "only list names of RDMA devices")
	}
	for _, name := range []string{"v", "verbose"} {
		fs.BoolVar(&o.verbose, name, false, "print all available information about RDMA devices")
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: devinfo [-d device] [-i port] [-l] [-v]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, errUsage // flag has printed the error (or -h's request) and the usage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "devinfo: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return o, errUsage
	}
	portSet := false
	fs.Visit(func(f *flag.Flag) { portSet = portSet || f.Name == "i" || f.Name == "ib-port" })
	if portSet && (o.port < 1 || o.port > 255) {
		fmt.Fprintf(stderr, "devinfo: invalid port %d: ports are numbered 1 to 255\n", o.port)
		fs.Usage()
		return o, errUsage
	}
	return o, nil
}

// run is the command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return 2
	}
	if err := devinfo(o, stdout); err != nil {
		fmt.Fprintf(stderr, "devinfo: %v\n", err)
		return 1
	}
	return 0
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
