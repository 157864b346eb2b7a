//go:build rxe

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdmacm"
)

// runMainEnv makes the test binary run the command itself: the guest's
// roots have no Go toolchain to build it with.
const runMainEnv = "GOVERBS_RPING_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	// librdmacm opens every device's context on first use and keeps them
	// for the process's life: open them before any test, so that
	// rxetest.NoLeaks sees them as already there (the in-process tests).
	list, err := rdmacm.GetDevices()
	if err != nil {
		println("rdma_get_devices:", err.Error())
		os.Exit(1)
	}
	// The list holds a reference on every device (rdma_get_devices); freeing it
	// drops them, the contexts staying open.
	list.Close()
	os.Exit(m.Run())
}

// limit bounds every process a test starts: one still running then has
// hung, and fails the test.
const limit = 90 * time.Second

// proc is a started rping (ours or rdmacm-utils').
type proc struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func start(t *testing.T, cmd *exec.Cmd, name string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: cmd, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	require.NoError(t, cmd.Start(), name)
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.done })
	return p
}

// wait returns the exit status; a process still running after limit is
// killed and fails the test.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		require.NoError(t, err, p.name)
		return 0
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		t.Fatalf("%s still running after %s (hung)\nstdout:\n%s\nstderr:\n%s", p.name, limit, p.stdout.String(), p.stderr.String())
		return -1
	}
}

func (p *proc) String() string {
	return fmt.Sprintf("%s %v\nstdout:\n%s\nstderr:\n%s", p.name, p.cmd.Args[1:], p.stdout.String(), p.stderr.String())
}

// goRping is this command, run by the test binary.
func goRping(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// cRping is the root's rdmacm-utils rping (rdma-core 44 or 65).
func cRping(t *testing.T, args ...string) *exec.Cmd {
	path, err := exec.LookPath("rping")
	require.NoError(t, err, "the guest root lacks rping (rdmacm-utils)")
	return exec.Command(path, args...)
}

// waitListening waits until an rdmacm id listens on port (as rdma
// resource show lists it: probing by connecting would use up the C
// server's only connection).
func waitListening(t *testing.T, srv *proc, port int) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		out, err := exec.Command("rdma", "resource", "show", "cm_id").CombinedOutput()
		if err == nil && strings.Contains(string(out), "LISTEN") && strings.Contains(string(out), ":"+strconv.Itoa(port)+" ") {
			return
		}
		select {
		case <-srv.done:
			t.Fatalf("the server ended before listening:\n%s", srv)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on port %d after %s:\n%s", port, limit, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pingLines are the lines of out starting with prefix.
func pingLines(out, prefix string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			lines = append(lines, l)
		}
	}
	return lines
}

// checkPings requires count pings: the client's i-th line is ping i, as
// the server printed it: what the server read from the client's source
// buffer is what came back into its sink.
func checkPings(t *testing.T, cli, srv *proc, count, size int) {
	t.Helper()
	cl := pingLines(cli.stdout.String(), "ping data: ")
	sl := pingLines(srv.stdout.String(), "server ping data: ")
	require.Len(t, cl, count, "%s", cli)
	require.Len(t, sl, count, "%s", srv)
	for i := range cl {
		require.True(t, strings.HasPrefix(cl[i], fmt.Sprintf("ping data: rdma-ping-%d: ", i)), "line %d: %q", i, cl[i])
		require.Len(t, cl[i], len("ping data: ")+size-1, "line %d", i)
		require.Equal(t, "server "+cl[i], sl[i], "ping %d", i)
	}
	assert.NotContains(t, cli.stdout.String()+cli.stderr.String(), "mismatch")
}

type pairCase struct {
	name  string
	extra []string // both sides' extra flags (-S)
	size  int
}

var pairCases = []pairCase{
	{"default size", nil, defaultSize},
	{"4000 bytes", []string{"-S", "4000"}, 4000}, // several packets each way at MTU 1024
}

// pingPair runs a server on node B and a client on node A, -v -V -C 10,
// and checks both exit 0 with the data validated.
func pingPair(t *testing.T, port int, server, client func(args ...string) *exec.Cmd, serverName, clientName string) {
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	for i, c := range pairCases {
		t.Run(c.name, func(t *testing.T) {
			p := strconv.Itoa(port + i)
			srv := start(t, server(append([]string{"-s", "-a", b.IP, "-p", p, "-v"}, c.extra...)...), serverName)
			waitListening(t, srv, port+i)
			cli := start(t, client(append([]string{"-c", "-a", b.IP, "-I", a.IP, "-p", p, "-v", "-V", "-C", "10"}, c.extra...)...), clientName)
			require.Equal(t, 0, cli.wait(t), "%s", cli)
			require.Equal(t, 0, srv.wait(t), "%s", srv)
			checkPings(t, cli, srv, 10, c.size)
		})
	}
}

// TestGoClientCServer: our client against rdmacm-utils' rping server.
func TestGoClientCServer(t *testing.T) {
	rxetest.NoLeaks(t)
	pingPair(t, 7200, func(args ...string) *exec.Cmd { return cRping(t, args...) }, goRping, "C rping server", "Go rping client")
}

// TestCClientGoServer: rdmacm-utils' rping client against our server.
func TestCClientGoServer(t *testing.T) {
	rxetest.NoLeaks(t)
	pingPair(t, 7210, goRping, func(args ...string) *exec.Cmd { return cRping(t, args...) }, "Go rping server", "C rping client")
}

// TestGoGo: our client against our server.
func TestGoGo(t *testing.T) {
	rxetest.NoLeaks(t)
	pingPair(t, 7220, goRping, goRping, "Go rping server", "Go rping client")
}

// TestGoClientDebug: -d prints each step of the protocol (the buffer
// advertisements and completions), and the disconnect as rping does.
func TestGoClientDebug(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	srv := start(t, cRping(t, "-s", "-a", b.IP, "-p", "7230"), "C rping server")
	waitListening(t, srv, 7230)
	cli := start(t, goRping("-c", "-d", "-a", b.IP, "-I", a.IP, "-p", "7230", "-C", "2"), "Go rping client")
	require.Equal(t, 0, cli.wait(t), "%s", cli)
	require.Equal(t, 0, srv.wait(t), "%s", srv)
	out := cli.stdout.String()
	assert.Contains(t, out, "count 2\n")
	assert.Contains(t, out, "rdma_connect successful\n")
	assert.Equal(t, 4, strings.Count(out, "RDMA addr "), out)
	assert.Equal(t, 4, strings.Count(out, "send completion\n"), out)
	assert.Equal(t, 4, strings.Count(out, "recv completion\n"), out)
	assert.Empty(t, pingLines(out, "ping data: "), "no -v, no ping data")
	assert.Equal(t, "client DISCONNECT EVENT...\n", cli.stderr.String())
}

// TestRefused: a client of a port nobody listens on fails at once with a
// clear error and rping's status, 255.
func TestRefused(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	cli := start(t, goRping("-c", "-a", b.IP, "-I", a.IP, "-p", "7999", "-v", "-V", "-C", "1"), "Go rping client")
	require.Equal(t, exitFailure, cli.wait(t), "%s", cli)
	assert.Empty(t, cli.stdout.String())
	assert.Contains(t, cli.stderr.String(), "rping: client: connect to "+b.IP+":7999: ")
	assert.Contains(t, cli.stderr.String(), "RDMA_CM_EVENT_REJECTED")
	assert.Contains(t, cli.stderr.String(), ": connection refused\n")
}

// TestPersistentServer: with -P our server serves one C client after
// another, and SIGTERM ends it cleanly with 128+SIGTERM.
func TestPersistentServer(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	srv := start(t, goRping("-s", "-P", "-a", b.IP, "-p", "7250", "-v"), "Go rping server -P")
	waitListening(t, srv, 7250)
	var lines []string
	for i := range 2 {
		cli := start(t, cRping(t, "-c", "-a", b.IP, "-I", a.IP, "-p", "7250", "-v", "-V", "-C", "3"), fmt.Sprintf("C rping client %d", i))
		require.Equal(t, 0, cli.wait(t), "%s", cli)
		cl := pingLines(cli.stdout.String(), "ping data: ")
		require.Len(t, cl, 3, "%s", cli)
		for _, l := range cl {
			lines = append(lines, "server "+l)
		}
	}
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 128+int(syscall.SIGTERM), srv.wait(t), "%s", srv)
	assert.Equal(t, lines, pingLines(srv.stdout.String(), "server ping data: "))
	assert.Equal(t, "server DISCONNECT EVENT...\nserver DISCONNECT EVENT...\n", srv.stderr.String())
}

// TestClientTooLarge: a C client pinging 120 bytes to a server of 50 (-S)
// ends the server with a clear error and status 255 (rping's server fails
// the RDMA read instead); the client is let go.
func TestClientTooLarge(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	srv := start(t, goRping("-s", "-a", b.IP, "-p", "7240", "-S", "50"), "Go rping server")
	waitListening(t, srv, 7240)
	cli := start(t, cRping(t, "-c", "-a", b.IP, "-I", a.IP, "-p", "7240", "-V", "-C", "2", "-S", "120"), "C rping client")
	require.Equal(t, exitFailure, srv.wait(t), "%s", srv)
	assert.Contains(t, srv.stderr.String(), "rping: server: ping 0: the client's ping of 120 bytes does not fit the server's 50 (-S)")
	cli.wait(t) // ends, whatever its status (rping 44 and 65 exit 0 here)
	assert.Empty(t, pingLines(cli.stdout.String(), "ping data: "))
}
