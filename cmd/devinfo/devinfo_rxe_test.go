//go:build rxe

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// runMainEnv makes the test binary run the command itself (main's run on
// its arguments): the guest's roots have no Go toolchain to build it with.
const runMainEnv = "GOVERBS_DEVINFO_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runCmd runs cmd, returning its stdout, stderr and exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, status int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return o.String(), e.String(), exit.ExitCode()
	}
	require.NoError(t, err, "running %v", cmd.Args)
	return o.String(), e.String(), 0
}

// devinfoCmd is the command devinfo with args, run by the test binary.
func devinfoCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// compVectorsSince is the rdma-core release whose ibv_devinfo -v first
// prints num_comp_vectors (linux-rdma/rdma-core#976, April 2021): 33's
// does not, 44's does.
const compVectorsSince = 35

// TestSameAsIBVDevinfo runs ibverbs-utils' ibv_devinfo of the guest's
// root and devinfo with the same flags, and requires the same output, byte
// for byte. Both read the same devices within a few milliseconds: nothing
// they print (GUIDs, GIDs and counters included) changes between the two
// runs, so no line is exempt. devinfo prints what the newest ibv_devinfo
// does: against an older one (before compVectorsSince), its
// num_comp_vectors lines must be there and are left out of the comparison.
func TestSameAsIBVDevinfo(t *testing.T) {
	env := rxetest.Guest(t)
	tool, err := exec.LookPath("ibv_devinfo")
	require.NoError(t, err, "the %s root lacks ibv_devinfo (ibverbs-utils)", env.Root)
	dev := env.Nodes[0].Dev
	for _, args := range [][]string{
		{},
		{"-v"},
		{"-d", dev},
		{"-l"},
		{"-i", "1"},
		{"-v", "-d", dev, "-i", "1"},
		{"--ib-dev=" + dev, "--ib-port=1", "--verbose"},
	} {
		t.Run(strings.Join(append([]string{"args"}, args...), " "), func(t *testing.T) {
			want, wantErr, wantStatus := runCmd(t, exec.Command(tool, args...))
			require.Equal(t, 0, wantStatus, "ibv_devinfo %v: %s", args, wantErr)
			got, gotErr, status := runCmd(t, devinfoCmd(args...))
			require.Equal(t, 0, status, "devinfo %v: %s", args, gotErr)
			require.Contains(t, got, dev, "devinfo %v printed no device", args)
			if env.Release < compVectorsSince && slices.ContainsFunc(args, isVerbose) {
				older := compVectorsLine.ReplaceAllString(got, "")
				require.NotEqual(t, got, older, "devinfo %v prints num_comp_vectors", args)
				got = older
			}
			require.Equal(t, want, got, "devinfo %v", args)
		})
	}
}

// compVectorsLine is the line ibv_devinfo -v prints since compVectorsSince.
var compVectorsLine = regexp.MustCompile(`(?m)^\tnum_comp_vectors:\t\t\d+\n`)

func isVerbose(arg string) bool { return arg == "-v" || arg == "--verbose" }

// TestErrors checks the failures devinfo reports for what the guest does
// not have: a device or port that does not exist.
func TestErrors(t *testing.T) {
	env := rxetest.Guest(t)
	dev := env.Nodes[0].Dev

	out, errOut, status := runCmd(t, devinfoCmd("-d", "no_such_dev"))
	require.Equal(t, 1, status)
	require.Empty(t, out)
	require.Equal(t, "devinfo: IB device 'no_such_dev' wasn't found\n", errOut)

	out, errOut, status = runCmd(t, devinfoCmd("-d", dev, "-i", "2"))
	require.Equal(t, 1, status)
	require.Empty(t, out)
	require.Equal(t, "devinfo: "+dev+": invalid port 2 requested: the device has 1 port(s) (phys_port_cnt)\n", errOut)
}
