//go:build linux

package rxetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

func TestNoLeaksReports(t *testing.T) {
	defer func(w time.Duration) { leakWait = w }(leakWait)
	leakWait = 300 * time.Millisecond // the leak below stays: wait less for it to end
	leaked := []Resource{{Kind: "pd", Dev: "rxe_a", ID: 3, PID: 42, Comm: "x.test"}, {Kind: "qp", Dev: "rxe_b", ID: 17, PID: 42, Comm: "x.test"}}

	// Clean: nothing reported.
	rec := &recTB{TB: t}
	noLeaks(rec, func() ([]Resource, error) { return nil, nil }, ignoreCurrent())
	rec.runCleanups()
	require.Empty(t, rec.errs)

	// Objects and a goroutine started after the snapshot.
	rec = &recTB{TB: t}
	noLeaks(rec, sequence([]Resource{}, leaked), ignoreCurrent())
	stop := make(chan struct{})
	go leakyGoroutine(stop)
	rec.runCleanups()
	close(stop)
	require.Len(t, rec.errs, 1)
	msg := rec.errs[0]
	require.Contains(t, msg, "2 verbs object(s) leaked")
	require.Contains(t, msg, "pd 3 on rxe_a (pid 42 x.test)")
	require.Contains(t, msg, "qp 17 on rxe_b (pid 42 x.test)")
	require.Contains(t, msg, "goroutines leaked")
	require.Contains(t, msg, "leakyGoroutine")

	// Objects the process owned before NoLeaks (a library's cached
	// contexts) are not the test's; new ones beside them are.
	rec = &recTB{TB: t}
	cached := Resource{Kind: "ctx", Dev: "rxe_a", ID: 0, PID: 42, Comm: "x.test"}
	noLeaks(rec, sequence([]Resource{cached}, append([]Resource{cached}, leaked[0])), ignoreCurrent())
	rec.runCleanups()
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], "1 verbs object(s) leaked")
	require.Contains(t, rec.errs[0], "pd 3 on rxe_a")
	require.NotContains(t, rec.errs[0], "ctx 0")

	// A listing that fails, at the start or at the end, is a failure, not a pass.
	rec = &recTB{TB: t}
	noLeaks(rec, func() ([]Resource, error) { return nil, errors.New("no netlink") }, ignoreCurrent())
	rec.runCleanups()
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], "cannot list verbs objects at the start: no netlink")
	rec = &recTB{TB: t}
	calls := 0
	noLeaks(rec, func() ([]Resource, error) {
		if calls++; calls > 1 {
			return nil, errors.New("no netlink")
		}
		return nil, nil
	}, ignoreCurrent())
	rec.runCleanups()
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], "cannot list verbs objects: no netlink")
}

// sequence lists first, then (every later call) then.
func sequence(first, then []Resource) func() ([]Resource, error) {
	n := 0
	return func() ([]Resource, error) {
		if n++; n == 1 {
			return first, nil
		}
		return then, nil
	}
}

func leakyGoroutine(stop chan struct{}) { <-stop }

// kindsOf returns the kinds of rendered resources, in order, each once.
func kindsOf(rendered []string) []string {
	var out []string
	for _, r := range rendered {
		k, _, _ := strings.Cut(r, " ")
		if len(out) == 0 || out[len(out)-1] != k {
			out = append(out, k)
		}
	}
	return out
}
