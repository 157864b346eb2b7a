//go:build linux

package rxetest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Kinds are the verbs object kinds the kernel tracks per process and `rdma resource show`
// lists; the guest's kernel (6.1) reports all of them on every root (resdump.go).
var Kinds = []string{"ctx", "pd", "mr", "cq", "srq", "qp", "cm_id"}

// Resource is one verbs object the kernel's resource tracker knows.
type Resource struct {
	Kind string // one of Kinds
	Dev  string // RDMA device, e.g. "rxe_a"
	ID   int64  // the object's number on the device (pdn, lqpn, ...)
	PID  int    // owning process; 0 for the kernel's own objects
	Comm string // owning process's name (or "ib_core")
}

func (r Resource) String() string {
	return fmt.Sprintf("%s %d on %s (pid %d %s)", r.Kind, r.ID, r.Dev, r.PID, r.Comm)
}

// Resources returns the verbs objects that process pid owns, as the kernel's resource
// tracker lists them over RDMA netlink (what `rdma resource show <kind>` shows), in Kinds
// order. It needs an RDMA netlink socket, that is, the guest.
//
// The kernel records the thread that created an object and reports that thread's id as
// its "pid" (task_pid_vnr), so a Go program's objects carry the ids of whichever of its
// threads made the call. Resources therefore matches pid and every thread of pid.
func Resources(pid int) ([]Resource, error) {
	owners, err := threads(pid)
	if err != nil {
		return nil, err
	}
	all, err := AllResources()
	if err != nil {
		return nil, err
	}
	var mine []Resource
	for _, r := range all {
		if owners[r.PID] {
			mine = append(mine, r)
		}
	}
	return mine, nil
}

// AllResources returns the verbs objects of every user process (the kernel's own, with no
// pid, are left out), as the kernel's resource tracker lists them, in Kinds order.
func AllResources() ([]Resource, error) {
	devs, err := rdmaDevices()
	if err != nil {
		return nil, fmt.Errorf("listing the RDMA devices over netlink: %w", err)
	}
	var all []Resource
	for _, k := range resKinds {
		rs, err := listKindOn(k, devs)
		if err != nil {
			return nil, err
		}
		all = append(all, userOwned(rs)...)
	}
	return all, nil
}

// userOwned drops the kernel's own objects (no pid: the GSI QP, ib_core's PD and CQ).
func userOwned(rs []Resource) []Resource {
	var out []Resource
	for _, r := range rs {
		if r.PID > 0 {
			out = append(out, r)
		}
	}
	return out
}

// threads returns the ids of pid's threads (pid among them) from /proc/pid/task.
func threads(pid int) (map[int]bool, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("threads of %d: %w", pid, err)
	}
	ids := map[int]bool{pid: true}
	for _, e := range ents {
		if id, err := strconv.Atoi(e.Name()); err == nil {
			ids[id] = true
		}
	}
	return ids, nil
}

// NoLeaks, called as the first line of an rxe test, fails the test at its end if the test
// process owns verbs objects (see Kinds) it did not own when NoLeaks was called, or runs
// goroutines that were not running then. Objects that exist before — a library's
// process-wide cache such as librdmacm's device contexts, opened on its first use and kept
// until exit — are not the test's: initialise such a library in TestMain. The check runs
// after every cleanup registered later, so objects closed in t.Cleanup do not count. The
// verbs objects are per process: do not combine it with t.Parallel.
func NoLeaks(t testing.TB) {
	t.Helper()
	noLeaks(t, func() ([]Resource, error) { return Resources(os.Getpid()) }, ignoreCurrent())
}

func noLeaks(t testing.TB, list func() ([]Resource, error), opts ...leakOption) {
	t.Helper()
	before, berr := list()
	t.Cleanup(func() {
		t.Helper()
		if berr != nil {
			t.Errorf("cannot list verbs objects at the start: %v", berr)
			return
		}
		if msg := leakReport(func() ([]Resource, error) {
			after, err := list()
			return newSince(before, after), err
		}, opts...); msg != "" {
			t.Error(msg)
		}
	})
}

// newSince is after less every object already in before.
func newSince(before, after []Resource) []Resource {
	type key struct {
		kind, dev string
		id        int64
	}
	old := map[key]bool{}
	for _, r := range before {
		old[key{r.Kind, r.Dev, r.ID}] = true
	}
	var out []Resource
	for _, r := range after {
		if !old[key{r.Kind, r.Dev, r.ID}] {
			out = append(out, r)
		}
	}
	return out
}

// leakReport describes what leaked, or returns "" when nothing did.
func leakReport(list func() ([]Resource, error), opts ...leakOption) string {
	var b strings.Builder
	res, err := list()
	switch {
	case err != nil:
		fmt.Fprintf(&b, "cannot list verbs objects: %v\n", err)
	case len(res) > 0:
		fmt.Fprintf(&b, "%d verbs object(s) leaked:\n", len(res))
		for _, r := range res {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	if err := findLeakedGoroutines(opts...); err != nil {
		fmt.Fprintf(&b, "goroutines leaked: %v\n", err)
	}
	return b.String()
}
