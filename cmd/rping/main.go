// Command rping is an RDMA CM ping, like rdmacm-utils' rping(1) and
// interoperable with it in both directions: a client of one talks to a
// server of the other. It is built on package rdma: rdma.Dial and
// rdma.Listen connect through rdmacm, completions are awaited on Go's
// netpoller, buffers are rdma.Buffers outside the Go heap, and posting
// does not allocate.
//
// Usage:
//
//	rping -s [-vVd] [-P] [-S size] [-C count] [-a addr] [-p port]
//	rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
//
// The flags are rping's: -s server, -c client, -a the address to bind
// (server, default any) or to connect to (client), -I the client's source
// address, -p port (default 7174), -C pings per connection (default
// unbounded), -S bytes per ping (23 to 65535, default 64), -v print the ping
// data, -V validate it, -d print each step, -P serve clients one after
// another until killed.
//
// The protocol, per ping: the client fills its source buffer with the
// ping's pattern ("rdma-ping-N: " and rotating ASCII) and sends its
// address, rkey and size (a 16-byte big-endian message); the server
// RDMA-reads it and sends "go ahead"; the client sends its sink buffer's
// address; the server RDMA-writes the data there and sends again; the
// client compares sink and source (-V). The client disconnects after -C
// pings; the server then ends (without -P).
//
// Exit status, as rping's: 0 on success, 22 (EINVAL) for a usage error,
// 255 for any failure (a refused or unreachable connection, a failed
// transfer, mismatching data), 128+signal when SIGINT or SIGTERM ended it
// (after closing its connections).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/goverbs/goverbs/rdma"
)

// Exit statuses.
const (
	exitOK      = 0
	exitUsage   = 22 // EINVAL, as rping
	exitFailure = 255
)

// run is the command: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return exitUsage
	}
	o.debugFlags(debugOut(o, stdout))
	role, do := "client", runClient
	if o.server {
		role, do = "server", runServer
	}
	if err := do(ctx, o, stdout, stderr); err != nil {
		if ctx.Err() == nil { // else a signal ended the run: no error of its own
			fmt.Fprintf(stderr, "rping: %s: %v\n", role, err)
		}
		return exitFailure
	}
	return exitOK
}

func debugOut(o options, stdout io.Writer) io.Writer {
	if o.debug {
		return stdout
	}
	return io.Discard
}

// connConfig sizes a connection: one message and one RDMA operation in
// flight each way.
func connConfig() rdma.ConnConfig {
	return rdma.ConnConfig{MaxSend: 4, MaxRecv: 4}
}

// resolve is host:port for an IPv4 address or a name resolving to one.
func resolve(host string, port int) (netip.AddrPort, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip4", host)
	if err != nil {
		return netip.AddrPort{}, err
	}
	if len(ips) == 0 {
		return netip.AddrPort{}, errors.New(host + ": no IPv4 address")
	}
	return netip.AddrPortFrom(ips[0].Unmap(), uint16(port)), nil
}

// main runs the command. SIGINT and SIGTERM end it cleanly (connections
// closed, resources freed) with the status a shell shows for a process the
// signal killed, 128+signal, as rping's: the way to stop a -P server.
func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Int32
	go func() {
		s := (<-sigs).(syscall.Signal)
		got.Store(int32(s))
		cancel()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	if s := got.Load(); s != 0 {
		code = 128 + int(s)
	}
	os.Exit(code)
}
