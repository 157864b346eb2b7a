package main

import (
	"bytes"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
)

func TestParseArgsDefaults(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseArgs(nil, &stderr)
	require.NoError(t, err)
	assert.Equal(t, options{port: 18515, ibPort: 1, size: 4096, mtu: ibv.MTU1024, rxDepth: 500, iters: 1000, gidIndex: -1}, o)
	assert.Empty(t, stderr.String())
}

func TestParseArgs(t *testing.T) {
	want := options{port: 1234, dev: "rxe_a", ibPort: 2, size: 1, mtu: ibv.MTU4096, rxDepth: 7, iters: 9,
		gidIndex: 1, events: true, validate: true, server: "192.0.2.2"}
	for _, args := range [][]string{
		{"-p", "1234", "-d", "rxe_a", "-i", "2", "-s", "1", "-m", "4096", "-r", "7", "-n", "9", "-g", "1", "-e", "-c", "192.0.2.2"},
		{"--port=1234", "--ib-dev=rxe_a", "--ib-port=2", "--size=1", "--mtu=4096", "--rx-depth=7", "--iters=9", "--gid-idx=1", "--events", "--chk", "192.0.2.2"},
		// getopt permutes: the server name may come first or between flags.
		{"192.0.2.2", "-p", "1234", "-d", "rxe_a", "-i", "2", "-s", "1", "-m", "4096", "-r", "7", "-n", "9", "-g", "1", "-e", "-c"},
		{"-p", "1234", "-d", "rxe_a", "-i", "2", "-s", "1", "192.0.2.2", "-m", "4096", "-r", "7", "-n", "9", "-g", "1", "-e", "-c"},
	} {
		var stderr bytes.Buffer
		o, err := parseArgs(args, &stderr)
		require.NoError(t, err, "%v: %s", args, stderr.String())
		assert.Equal(t, want, o, "%v", args)
	}
	for mtu, e := range map[string]ibv.MTU{"256": ibv.MTU256, "512": ibv.MTU512, "1024": ibv.MTU1024, "2048": ibv.MTU2048} {
		o, err := parseArgs([]string{"-m", mtu}, &bytes.Buffer{})
		require.NoError(t, err)
		assert.Equal(t, e, o.mtu)
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-m", "1000"}, "rcpingpong: invalid MTU 1000: use 256, 512, 1024, 2048 or 4096"},
		{[]string{"-p", "0"}, "rcpingpong: invalid TCP port 0"},
		{[]string{"-p", "65536"}, "rcpingpong: invalid TCP port 65536"},
		{[]string{"-i", "0"}, "rcpingpong: invalid port 0 of the device"},
		{[]string{"-s", "0"}, "rcpingpong: invalid size 0"},
		{[]string{"-r", "0"}, "rcpingpong: invalid rx depth 0"},
		{[]string{"-n", "0"}, "rcpingpong: invalid iteration count 0"},
		{[]string{"-g", "-2"}, "rcpingpong: invalid GID index -2"},
		{[]string{"a", "b"}, `rcpingpong: one server name at most, got ["a" "b"]`},
		{[]string{"-x"}, "flag provided but not defined: -x"},
		{[]string{"-s", "big"}, `invalid value "big" for flag -s`},
	} {
		var stderr bytes.Buffer
		_, err := parseArgs(c.args, &stderr)
		require.ErrorIs(t, err, errUsage, "%v", c.args)
		assert.Contains(t, stderr.String(), c.msg, "%v", c.args)
		assert.Contains(t, stderr.String(), "Usage:", "%v", c.args)
	}
}

// TestRunUsage: a usage error is status 2, before any device is opened.
func TestRunUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run([]string{"-m", "3"}, &stdout, &stderr))
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "invalid MTU 3")
}
