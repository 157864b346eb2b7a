package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

func TestParseArgs(t *testing.T) {
	def := options{port: defaultPort, size: defaultSize}
	with := func(f func(*options)) options { o := def; f(&o); return o }
	for _, c := range []struct {
		args []string
		want options
	}{
		{[]string{"-s"}, with(func(o *options) { o.server = true })},
		{[]string{"-s", "-a", "192.0.2.2", "-P", "-S", "4000"}, with(func(o *options) { o.server, o.addr, o.persistent, o.size = true, "192.0.2.2", true, 4000 })},
		{[]string{"-c", "-a", "192.0.2.2", "-I", "192.0.2.1", "-vVd", "-C10", "-p", "7999"}, with(func(o *options) {
			o.client, o.addr, o.srcAddr, o.verbose, o.validate, o.debug, o.count, o.port = true, "192.0.2.2", "192.0.2.1", true, true, true, 10, 7999
		})},
		{[]string{"-s", "-c", "-a192.0.2.2", "-S23"}, with(func(o *options) { o.client, o.addr, o.size = true, "192.0.2.2", 23 })},
		{[]string{"-c", "-s", "-S", "65535"}, with(func(o *options) { o.server, o.size = true, 65535 })},
	} {
		var stderr bytes.Buffer
		o, err := parseArgs(c.args, &stderr)
		require.NoError(t, err, "%v", c.args)
		assert.Equal(t, c.want, o, "%v", c.args)
		assert.Empty(t, stderr.String())
	}
}

// TestUsageErrors: exit status 22 and rping's messages, checked against
// rping's own (rdma-core 44 and 65) where it has one.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, ""},
		{[]string{"-v", "-C", "1"}, ""},
		{[]string{"-c", "-a", "192.0.2.2", "-S", "22"}, "Invalid size 22 (valid range is 23 to 65536)\n"},
		{[]string{"-c", "-a", "192.0.2.2", "-S", "65536"}, "Invalid size 65536 (valid range is 23 to 65536)\n"},
		{[]string{"-c", "-a", "192.0.2.2", "-S", "abc"}, "Invalid size abc (valid range is 23 to 65536)\n"},
		{[]string{"-c", "-a", "192.0.2.2", "-C", "-1"}, "Invalid count -1\n"},
		{[]string{"-c", "-a", "192.0.2.2", "-p", "70000"}, "Invalid port 70000\n"},
		{[]string{"-c", "-a"}, "option requires an argument -- 'a'\n"},
		{[]string{"-c", "-x"}, "invalid option -- 'x'\n"},
		{[]string{"-c", "-q", "-a", "192.0.2.2"}, "-q (a QP created and modified by the application) is not supported"},
		{[]string{"-c", "-C", "1"}, "the client needs the server's address (-a)\n"},
		{[]string{"-s", "extra"}, "unexpected argument \"extra\"\n"},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitUsage, run(context.Background(), c.args, &stdout, &stderr), "%v", c.args)
		assert.Empty(t, stdout.String())
		assert.Contains(t, stderr.String(), c.msg, "%v", c.args)
		assert.Contains(t, stderr.String(), usageText, "%v", c.args)
	}
}

func TestDebugFlags(t *testing.T) {
	var b bytes.Buffer
	options{port: 7999, count: 2, size: defaultSize, verbose: true, validate: true}.debugFlags(&b)
	assert.Equal(t, "port 7999\ncount 2\nverbose\nvalidate data\n", b.String())
}

func TestResolve(t *testing.T) {
	ap, err := resolve("192.0.2.2", 7174)
	require.NoError(t, err)
	assert.Equal(t, "192.0.2.2:7174", ap.String())
	ap, err = resolve("::ffff:192.0.2.1", 0)
	require.NoError(t, err)
	assert.Equal(t, "192.0.2.1:0", ap.String())
}
