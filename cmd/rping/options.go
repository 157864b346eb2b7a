package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// options are rping's command-line flags.
type options struct {
	server     bool   // -s (else -c: the last of the two wins)
	client     bool   // -c
	verbose    bool   // -v: print the ping data
	validate   bool   // -V: compare the data that came back with what went out
	debug      bool   // -d: print each step
	persistent bool   // -P: the server serves one client after another until killed
	addr       string // -a: the server's address (client) or the address to bind (server)
	srcAddr    string // -I: the client's source address
	port       int    // -p
	count      int    // -C: pings per connection; 0 is unbounded
	size       int    // -S: bytes per ping
}

// errUsage is a command-line error; the message and usage are printed.
var errUsage = errors.New("usage")

const usageText = `rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]
rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
	-c		client side
	-I		Source address to bind to for client.
	-s		server side.
	-v		display ping data to stdout
	-V		validate ping data
	-d		debug printfs
	-S size 	ping data size
	-C count	ping count times
	-a addr		address
	-p port		port
	-P		persistent server mode allowing multiple connections
`

// parseArgs reads rping's flags, getopt style ("-vV", "-S 100", "-S100").
// Errors print a message and the usage to stderr and return errUsage.
func parseArgs(args []string, stderr io.Writer) (options, error) {
	o := options{port: defaultPort, size: defaultSize}
	fail := func(format string, a ...any) (options, error) {
		if format != "" {
			fmt.Fprintf(stderr, format+"\n", a...)
		}
		fmt.Fprint(stderr, usageText)
		return o, errUsage
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if len(arg) < 2 || arg[0] != '-' {
			return fail("rping: unexpected argument %q", arg)
		}
		for j := 1; j < len(arg); j++ {
			opt := arg[j]
			var val string
			switch opt {
			case 'a', 'I', 'p', 'C', 'S':
				if j+1 < len(arg) {
					val = arg[j+1:]
				} else if i+1 < len(args) {
					i++
					val = args[i]
				} else {
					return fail("rping: option requires an argument -- '%c'", opt)
				}
				j = len(arg)
			}
			switch opt {
			case 's':
				o.server, o.client = true, false
			case 'c':
				o.server, o.client = false, true
			case 'v':
				o.verbose = true
			case 'V':
				o.validate = true
			case 'd':
				o.debug = true
			case 'P':
				o.persistent = true
			case 'a':
				o.addr = val
			case 'I':
				o.srcAddr = val
			case 'p':
				p, err := strconv.Atoi(val)
				if err != nil || p < 0 || p > 65535 {
					return fail("Invalid port %s", val)
				}
				o.port = p
			case 'C':
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 || n > 1<<31-1 {
					return fail("Invalid count %s", val)
				}
				o.count = n
			case 'S':
				n, err := strconv.Atoi(val)
				if err != nil || n < minSize || n >= maxSize {
					return fail("Invalid size %s (valid range is %d to %d)", val, minSize, maxSize)
				}
				o.size = n
			case 'q':
				return fail("rping: -q (a QP created and modified by the application) is not supported: the QP is rdmacm's")
			default:
				return fail("rping: invalid option -- '%c'", opt)
			}
		}
	}
	switch {
	case !o.server && !o.client:
		return fail("")
	case o.client && o.addr == "":
		return fail("rping: the client needs the server's address (-a)")
	}
	return o, nil
}

// debugFlags are the lines rping -d prints about its options.
func (o options) debugFlags(w io.Writer) {
	if o.port != defaultPort {
		fmt.Fprintf(w, "port %d\n", o.port)
	}
	if o.count != 0 {
		fmt.Fprintf(w, "count %d\n", o.count)
	}
	if o.size != defaultSize {
		fmt.Fprintf(w, "size %d\n", o.size)
	}
	if o.verbose {
		fmt.Fprintln(w, "verbose")
	}
	if o.validate {
		fmt.Fprintln(w, "validate data")
	}
}
