//go:build rxe

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// runMainEnv makes the test binary run the command itself (main's run on
// its arguments): the guest's roots have no Go toolchain to build it with.
const runMainEnv = "GOVERBS_RCPINGPONG_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// An end is the program playing one side: "go" (this command) or "c"
// (the root's ibv_rc_pingpong, rdma-core 44 or 65).
type end string

func (e end) command(ctx context.Context, t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if e == "go" {
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), runMainEnv+"=1")
		return cmd
	}
	tool, err := exec.LookPath("ibv_rc_pingpong")
	require.NoError(t, err, "the root lacks ibv_rc_pingpong (ibverbs-utils)")
	return exec.CommandContext(ctx, tool, args...)
}

// result is one finished process.
type result struct {
	out    string // stdout and stderr
	status int
}

// start runs cmd in the background; the channel gets its result.
func start(t *testing.T, cmd *exec.Cmd) <-chan result {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start(), "%v", cmd.Args)
	done := make(chan result, 1)
	go func() {
		err := cmd.Wait()
		status := 0
		if err != nil {
			status = -1
			if ee, ok := err.(*exec.ExitError); ok {
				status = ee.ExitCode()
			}
		}
		done <- result{out.String(), status}
	}()
	return done
}

// runPair runs a server on node B and a client on node A, each with
// -g, -p port and its flags, and returns their results. When one side
// fails the other is killed after a grace period (a peer left alone may
// wait forever; one that is just ending gets to end). It fails
// the test if the server never listens or the pair does not end in time.
const grace = 10 * time.Second

func runPair(t *testing.T, server end, srvFlags []string, client end, cliFlags []string, port int) (srv, cli result) {
	t.Helper()
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	common := []string{"-g", strconv.Itoa(env.GIDIndex), "-p", strconv.Itoa(port)}
	srvDone := start(t, server.command(ctx, t, append(append([]string{"-d", b.Dev}, common...), srvFlags...)...))
	deadline := time.Now().Add(30 * time.Second)
	for !rxetest.TCPListening(port) {
		select {
		case r := <-srvDone:
			t.Fatalf("%s server ended before listening (status %d):\n%s", server, r.status, r.out)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("%s server not listening on port %d after 30s:\n%s", server, port, (<-srvDone).out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cliDone := start(t, client.command(ctx, t, append(append(append([]string{"-d", a.Dev}, common...), cliFlags...), b.IP)...))
	for srvDone != nil || cliDone != nil {
		select {
		case srv = <-srvDone:
			srvDone = nil
			if srv.status != 0 {
				time.AfterFunc(grace, cancel)
			}
		case cli = <-cliDone:
			cliDone = nil
			if cli.status != 0 {
				time.AfterFunc(grace, cancel)
			}
		}
	}
	require.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded, "timed out:\nserver:\n%s\nclient:\n%s", srv.out, cli.out)
	return srv, cli
}

var (
	localRE  = regexp.MustCompile(`(?m)^  local address:  (LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID \S+)$`)
	remoteRE = regexp.MustCompile(`(?m)^  remote address: (LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID \S+)$`)
	bytesRE  = regexp.MustCompile(`(?m)^(\d+) bytes in \d+\.\d\d seconds = \d+\.\d\d Mbit/sec$`)
	itersRE  = regexp.MustCompile(`(?m)^(\d+) iters in \d+\.\d\d seconds = \d+\.\d\d usec/iter$`)
)

// requireExchanged checks that both sides succeeded, each saw the other's
// address as the other printed it, and both counted iters exchanges of
// size bytes.
func requireExchanged(t *testing.T, srv, cli result, size, iters int, srvIP, cliIP string) {
	t.Helper()
	both := fmt.Sprintf("server:\n%s\nclient:\n%s", srv.out, cli.out)
	require.Equal(t, 0, srv.status, both)
	require.Equal(t, 0, cli.status, both)
	for _, side := range []struct {
		r        result
		ip, peer string
		other    result
	}{{srv, srvIP, cliIP, cli}, {cli, cliIP, srvIP, srv}} {
		local := localRE.FindStringSubmatch(side.r.out)
		remote := remoteRE.FindStringSubmatch(side.r.out)
		require.NotNil(t, local, both)
		require.NotNil(t, remote, both)
		require.True(t, strings.HasSuffix(local[1], "GID ::ffff:"+side.ip), both)
		require.True(t, strings.HasSuffix(remote[1], "GID ::ffff:"+side.peer), both)
		require.Equal(t, remote[1], localRE.FindStringSubmatch(side.other.out)[1], "remote address is not what the peer sent\n%s", both)
		b := bytesRE.FindStringSubmatch(side.r.out)
		it := itersRE.FindStringSubmatch(side.r.out)
		require.NotNil(t, b, both)
		require.NotNil(t, it, both)
		require.Equal(t, strconv.Itoa(2*size*iters), b[1], both)
		require.Equal(t, strconv.Itoa(iters), it[1], both)
	}
}

// TestInterop runs every pairing of this command and ibv_rc_pingpong,
// each as server (node B) and client (node A), over a few message sizes,
// polling and sleeping on completion events.
func TestInterop(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	const iters = 50
	port := 18600
	for _, p := range []struct{ server, client end }{{"c", "go"}, {"go", "c"}, {"go", "go"}} {
		for _, size := range []int{1, 4096, 8192} {
			for _, events := range []bool{false, true} {
				port++
				name := fmt.Sprintf("%s-server/%s-client/size=%d/events=%v", p.server, p.client, size, events)
				t.Run(name, func(t *testing.T) {
					flags := []string{"-s", strconv.Itoa(size), "-n", strconv.Itoa(iters)}
					if events {
						flags = append(flags, "-e")
					}
					srv, cli := runPair(t, p.server, flags, p.client, flags, port)
					requireExchanged(t, srv, cli, size, iters, b.IP, a.IP)
				})
			}
		}
	}
}

// TestDefaults: with only -g (and -d, -p), both ends agree on the
// defaults: 1000 exchanges of 4096 bytes, rx depth 500. Then a shallow
// receive queue (reposted every few messages) and a smaller path MTU.
func TestDefaults(t *testing.T) {
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	srv, cli := runPair(t, "c", nil, "go", nil, 18700)
	requireExchanged(t, srv, cli, 4096, 1000, b.IP, a.IP)
	srv, cli = runPair(t, "go", []string{"-r", "7", "-m", "512", "-n", "50"}, "c", []string{"-m", "512", "-n", "50"}, 18701)
	requireExchanged(t, srv, cli, 4096, 50, b.IP, a.IP)
}

// TestValidate: with -c on both ends the pattern arrives both ways; a
// client without -c sends a buffer without the pattern, which a -c server
// of either kind rejects.
func TestValidate(t *testing.T) {
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	const size, iters = 3 * 4096, 20
	flags := []string{"-s", strconv.Itoa(size), "-n", strconv.Itoa(iters)}
	port := 18710
	for _, p := range []struct{ server, client end }{{"c", "go"}, {"go", "c"}, {"go", "go"}} {
		port++
		t.Run(fmt.Sprintf("%s-server/%s-client", p.server, p.client), func(t *testing.T) {
			chk := append([]string{"-c"}, flags...)
			srv, cli := runPair(t, p.server, chk, p.client, chk, port)
			requireExchanged(t, srv, cli, size, iters, b.IP, a.IP)
			require.NotContains(t, srv.out+cli.out, "nvalid data")
		})
	}
	// A -c server whose client does not write the pattern: ibv_rc_pingpong
	// reports the pages and ends well; this command reports the messages
	// and fails. Either way the exchange runs to its end.
	chk := append([]string{"-c"}, flags...)
	t.Run("c-server -c/go-client", func(t *testing.T) {
		srv, cli := runPair(t, "c", chk, "go", flags, 18721)
		require.Equal(t, 0, cli.status, cli.out)
		require.Equal(t, 0, srv.status, srv.out)
		for page := range size / 4096 {
			require.Contains(t, srv.out, fmt.Sprintf("invalid data in page %d\n", page))
		}
	})
	t.Run("go-server -c/c-client", func(t *testing.T) {
		srv, cli := runPair(t, "go", chk, "c", flags, 18722)
		require.Equal(t, 0, cli.status, cli.out)
		require.Equal(t, 1, srv.status, srv.out)
		require.Contains(t, srv.out, fmt.Sprintf("\n%d iters in ", iters))
		require.Contains(t, srv.out, fmt.Sprintf("rcpingpong: %d of %d messages received failed validation; first: message 1: invalid data in page 0: byte 0 is 0x7b, want 0x00\n", iters, iters))
	})
}
