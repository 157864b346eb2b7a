//go:build linux && rxe

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// A probe that leaks fails the run: the synthetic probes of leakProbesYAML, built by make
// bin/doccheck-leaktest (doccheck -leaktest) for this root's release, run here as doccheck
// runs its probes (goprobe: the C harness, then each Go probe in a child). In C and in Go, the
// probe that keeps a context with a PD and an MR to the end is found by its own leak check
// (the kernel's resource tracker, before the process exits), the probe that leaves an MR on
// the fixture PD by its teardown (the PD's destroy fails with EBUSY); the two controls, one
// of which leaves librdmacm's cached device context behind, hold; and the run's verdict
// lists exactly the four failures.
func TestLeakCheckFails(t *testing.T) {
	env := rxetest.Guest(t)
	dir := filepath.Join("..", "..", "bin", "doccheck-leaktest")
	harness, goBin := filepath.Join(dir, "harness-"+strconv.Itoa(env.Release)), filepath.Join(dir, "goprobe")
	for _, f := range []string{harness, goBin} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v: build the leak probes first (make bin/doccheck-leaktest)", err)
		}
	}
	set, err := spec.Load(filepath.Join("..", "..", "spec"))
	require.NoError(t, err)
	p, err := leakProbes(set)
	require.NoError(t, err)
	var ids []string
	byCase := map[string]*Probe{}
	for _, pr := range p.Probes {
		ids = append(ids, strconv.Itoa(pr.id))
		byCase[pr.Case] = pr
	}
	var stderr bytes.Buffer
	cmd := exec.Command(goBin, "-c", harness, "-ids", strings.Join(ids, ","))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	g, err := ParseGuestOutput(out)
	require.NoError(t, err)
	rt := root{Name: env.Root, Version: strconv.Itoa(env.Release)}
	res := &Results{Set: set, Probes: p, Roots: []root{rt}, Raw: map[string]map[int]Raw{rt.Name: g.C},
		Go: map[string]map[int]GoRaw{rt.Name: g.Go}, Leftovers: map[string]Leftovers{rt.Name: g.Left}}

	for _, c := range []string{"clean", "rdmacm-cache"} {
		o, ok := res.outcome(byCase[c], rt)
		require.True(t, ok, c)
		require.Equal(t, Holds, o.Verdict, "%s: %s", c, o.Detail)
		gOut, ok := res.goOutcome(byCase[c], rt)
		require.True(t, ok, c)
		require.Equal(t, GoHolds, gOut.Verdict, "%s: %s", c, gOut.Detail)
	}
	leak, _ := res.outcome(byCase["leaks-a-context"], rt)
	require.Equal(t, Leaked, leak.Verdict)
	for _, kind := range []string{"leak check: ", "ctx ", "pd ", "mr "} {
		require.Contains(t, leak.Detail, kind)
	}
	goLeak, _ := res.goOutcome(byCase["leaks-a-context"], rt)
	require.Equal(t, GoLeaked, goLeak.Verdict)
	for _, kind := range []string{"left after the teardown", "ctx ", "pd ", "mr "} {
		require.Contains(t, goLeak.Detail, kind)
	}
	busy, _ := res.outcome(byCase["busy-teardown"], rt)
	require.Equal(t, Broken, busy.Verdict)
	require.Contains(t, busy.Detail, "teardown: ibv_dealloc_pd(pd) returned 16")
	goBusy, _ := res.goOutcome(byCase["busy-teardown"], rt)
	require.Equal(t, GoBroken, goBusy.Verdict)
	require.Contains(t, goBusy.Detail, "cleanup failed: ")
	require.Contains(t, goBusy.Detail, "busy")

	bad := res.Unexpected()
	require.Len(t, bad, 4, "the run fails on the two leaking probes, in C and in Go, and on nothing else:\n%s", strings.Join(bad, "\n"))
	for _, c := range []string{"leaks-a-context", "busy-teardown"} {
		n := 0
		for _, b := range bad {
			if strings.Contains(b, "/"+c+" ") {
				n++
			}
		}
		require.Equal(t, 2, n, "%s fails in C and in Go: %v", c, bad)
	}
	fmt.Fprintf(os.Stderr, "the run's failures:\n  %s\n", strings.Join(bad, "\n  "))
}
