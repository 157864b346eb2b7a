//go:build linux

package rxetest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

// A dump as runtime.Stack writes it: the header's extra fields and the state's
// annotations dropped, arguments cut from the functions, "created by" read.
func TestParseGoroutines(t *testing.T) {
	dump := "goroutine 1 [running]:\n" +
		"main.main()\n\t/src/main.go:10 +0x1d\n\n" +
		"goroutine 7 gp=0xc000007a40 m=nil [chan receive, 2 minutes, locked to thread]:\n" +
		"testing.(*T).Run(0xc000003180, {0x5a3b1e?, 0x4}, 0x5b4c38)\n\t/go/src/testing/testing.go:2005 +0x485\n" +
		"main.f(...)\n\t/src/main.go:3\n" +
		"created by testing.(*T).Run in goroutine 1\n\t/go/src/testing/testing.go:1997 +0x465\n"
	gs, err := parseGoroutines(dump)
	require.NoError(t, err)
	require.Len(t, gs, 2)
	require.Equal(t, 1, gs[0].id)
	require.Equal(t, "running", gs[0].state)
	require.Equal(t, []string{"main.main"}, gs[0].funcs)
	require.Equal(t, 7, gs[1].id)
	require.Equal(t, "chan receive", gs[1].state)
	require.Equal(t, []string{"testing.(*T).Run", "main.f", "testing.(*T).Run"}, gs[1].funcs)
	require.True(t, strings.HasPrefix(gs[1].trace, "goroutine 7 gp="))
	require.True(t, strings.HasSuffix(gs[1].trace, "+0x465"))

	for _, bad := range []string{"goroutine x [running]:\nmain.main()\n", "goroutine 3 running:\n", "gorutine 3 [running]:\n"} {
		_, err := parseGoroutines(bad)
		require.ErrorContains(t, err, "goroutine header", bad)
	}
}

// The testing package's goroutines waiting on tests, os/signal's and cgo's are ignored;
// the same functions doing something else are not.
func TestIgnoredByDefault(t *testing.T) {
	for _, c := range []struct {
		g    goroutine
		want bool
	}{
		{goroutine{state: "chan receive", funcs: []string{"testing.(*T).Run", "main.Test"}}, true},
		{goroutine{state: "chan receive", funcs: []string{"testing.tRunner.func1", "testing.tRunner"}}, true},
		{goroutine{state: "chan receive", funcs: []string{"testing.(*T).Parallel"}}, true},
		{goroutine{state: "select", funcs: []string{"testing.(*T).Run"}}, false},
		{goroutine{state: "syscall", funcs: []string{"os/signal.signal_recv", "os/signal.loop"}}, true},
		{goroutine{state: "chan receive", funcs: []string{"os/signal.Notify.func1.1", "runtime.ensureSigM"}}, true},
		{goroutine{state: "syscall", funcs: []string{"runtime.cgocall", "runtime.goexit"}}, true},
		{goroutine{state: "chan receive", funcs: []string{"main.worker", "runtime.goexit"}}, false},
		{goroutine{state: "chan receive", funcs: []string{"main.worker", "testing.(*T).Run"}}, false},
	} {
		require.Equal(t, c.want, ignoredByDefault(c.g), "%+v", c.g)
	}
}

// With nothing ignored but the defaults, a plain test sees no goroutine but the test
// runner's, itself excepted, once the previous test's goroutine has ended.
func TestNoGoroutinesOfTheRunner(t *testing.T) {
	require.NoError(t, findLeakedGoroutines())
	// A subtest: its parent waits in Run.
	t.Run("sub", func(t *testing.T) { require.NoError(t, findLeakedGoroutines()) })
}

// A goroutine started after the snapshot is reported with its stack, until it ends;
// one that ends while the check waits is not; a goroutine from the snapshot is not.
func TestFindLeakedGoroutines(t *testing.T) {
	defer func(w time.Duration) { leakWait = w }(leakWait)
	leakWait = 300 * time.Millisecond

	old := make(chan struct{})
	defer close(old)
	go leakyGoroutine(old)
	snap := ignoreCurrent()
	require.NoError(t, findLeakedGoroutines(snap))

	stop := make(chan struct{})
	go leakyGoroutine(stop)
	err := findLeakedGoroutines(snap)
	require.Error(t, err)
	require.Contains(t, err.Error(), "found 1 unexpected goroutine(s):\n[goroutine ")
	require.Contains(t, err.Error(), "rxetest.leakyGoroutine(")
	require.Contains(t, err.Error(), "created by github.com/goverbs/goverbs/internal/rxetest.TestFindLeakedGoroutines")
	require.Equal(t, 1, strings.Count(err.Error(), "leakyGoroutine("), "the goroutine from the snapshot is not reported")
	require.Error(t, findLeakedGoroutines(), "without the snapshot both are reported")
	require.Equal(t, 2, strings.Count(findLeakedGoroutines().Error(), "leakyGoroutine("))

	require.NoError(t, findLeakedGoroutines(snap, ignoreTopFunction("github.com/goverbs/goverbs/internal/rxetest.leakyGoroutine")))

	// Ended while the check retries: no leak.
	leakWait = time.Minute
	go func() { time.Sleep(50 * time.Millisecond); close(stop) }()
	require.NoError(t, findLeakedGoroutines(snap))
}

// The dump of a process with many goroutines outgrows the first buffer; every goroutine is
// read.
func TestAllGoroutinesLargeDump(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	snap := ignoreCurrent()
	const n = 2000
	for range n {
		go leakyGoroutine(stop)
	}
	f := &leakFilter{ids: map[int]bool{}}
	snap(f)
	// A goroutine just created may not have reached its blocking receive yet (the guest's
	// two CPUs run them in turn): dump until all n are parked there, for a while.
	count := 0
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		count = 0
		for _, g := range allGoroutines() {
			if !f.ids[g.id] && g.top() == "github.com/goverbs/goverbs/internal/rxetest.leakyGoroutine" {
				count++
			}
		}
		if count == n || time.Now().After(deadline) {
			break
		}
	}
	require.Equal(t, n, count, "of %s", strconv.Itoa(n))
}
