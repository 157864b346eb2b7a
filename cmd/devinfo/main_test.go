package main

import (
	"bytes"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want options
	}{
		{nil, options{}},
		{[]string{"-d", "rxe_a", "-i", "1", "-v"}, options{dev: "rxe_a", port: 1, verbose: true}},
		{[]string{"--ib-dev=mlx5_0", "--ib-port=255", "--list"}, options{dev: "mlx5_0", port: 255, list: true}},
		{[]string{"-l", "-verbose"}, options{list: true, verbose: true}},
	} {
		var stderr bytes.Buffer
		o, err := parseArgs(c.args, &stderr)
		require.NoError(t, err, "%v", c.args)
		assert.Equal(t, c.want, o, "%v", c.args)
		assert.Empty(t, stderr.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-i", "0"}, "devinfo: invalid port 0: ports are numbered 1 to 255\n"},
		{[]string{"--ib-port=256"}, "devinfo: invalid port 256: ports are numbered 1 to 255\n"},
		{[]string{"-i", "one"}, `invalid value "one" for flag -i`},
		{[]string{"-x"}, "flag provided but not defined: -x\n"},
		{[]string{"rxe_a"}, "devinfo: unexpected argument \"rxe_a\"\n"},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, run(c.args, &stdout, &stderr), "%v", c.args)
		assert.Empty(t, stdout.String())
		assert.Contains(t, stderr.String(), c.msg)
		assert.Contains(t, stderr.String(), "Usage: devinfo [-d device] [-i port] [-l] [-v]\n")
	}
}
