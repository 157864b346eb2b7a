package rxetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The samples in testdata/rdma-resource were recorded in the guest on both roots while an
// ibv_rc_pingpong server (pid 108 on host, 107 on sid) and an rping server (109, 108) waited
// for clients.
func TestParseRecordedResources(t *testing.T) {
	for _, root := range []struct {
		name           string
		pingpong, ping int
	}{{"host", 108, 109}, {"sid", 107, 108}} {
		t.Run(root.name, func(t *testing.T) {
			byPID := map[int][]string{}
			for _, kind := range Kinds {
				data, err := os.ReadFile(filepath.Join("testdata/rdma-resource", root.name, kind+".json"))
				require.NoError(t, err)
				rs, err := parseResources(kind, data)
				require.NoError(t, err, kind)
				for _, r := range rs {
					require.Equal(t, kind, r.Kind)
					require.Contains(t, []string{"rxe_a", "rxe_b"}, r.Dev)
					if r.PID == 0 {
						require.Equal(t, "ib_core", r.Comm, "only the kernel's objects have no pid: %s", r)
						continue
					}
					byPID[r.PID] = append(byPID[r.PID], r.String())
				}
			}
			pp, rp := root.pingpong, root.ping
			require.Len(t, byPID, 2)
			require.Equal(t, []string{"ctx", "pd", "mr", "cq", "qp"}, kindsOf(byPID[pp]))
			require.Equal(t, []string{"ctx", "pd", "cm_id"}, kindsOf(byPID[rp]))
			require.Contains(t, byPID[pp], "qp 17 on rxe_b (pid "+strconv.Itoa(pp)+" ibv_rc_pingpong)")
			require.Contains(t, byPID[rp], "cm_id 0 on rxe_b (pid "+strconv.Itoa(rp)+" rping)")
		})
	}
}

func TestParseResourcesErrors(t *testing.T) {
	for _, c := range []struct{ kind, in, want string }{
		{"pd", "Unknown parameter 'x'.", "not a JSON array"},
		{"pd", `[{"ifname":"rxe_a","pdn":1}] []`, "trailing data"},
		{"pd", "[]]", "trailing data"},
		{"pd", `[{"ifname":"rxe_a"}]`, `element 0: no "pdn"`},
		{"qp", `[{"ifname":"rxe_a","lqpn":"x"}]`, `field "lqpn"`},
		{"cq", `[{"cqn":1}]`, `no "ifname"`},
		{"xrcd", `[]`, "unknown resource kind"},
	} {
		_, err := parseResources(c.kind, []byte(c.in))
		require.ErrorContains(t, err, c.want, c.in)
	}
	rs, err := parseResources("srq", []byte("[]\n"))
	require.NoError(t, err)
	require.Empty(t, rs)
}

// recTB records what NoLeaks reports instead of failing the real test.
type recTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recTB) Helper()           {}
func (r *recTB) Cleanup(f func())  { r.cleanups = append(r.cleanups, f) }
func (r *recTB) Error(args ...any) { r.errs = append(r.errs, strings.TrimSpace(fmt.Sprint(args...))) }
func (r *recTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}
func (r *recTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestNoLeaksReports(t *testing.T) {
	leaked := []Resource{{Kind: "pd", Dev: "rxe_a", ID: 3, PID: 42, Comm: "x.test"}, {Kind: "qp", Dev: "rxe_b", ID: 17, PID: 42, Comm: "x.test"}}

	// Clean: nothing reported.
	rec := &recTB{TB: t}
	noLeaks(rec, func() ([]Resource, error) { return nil, nil }, goleak.IgnoreCurrent())
	rec.runCleanups()
	require.Empty(t, rec.errs)

	// Objects and a goroutine started after the snapshot.
	rec = &recTB{TB: t}
	noLeaks(rec, sequence([]Resource{}, leaked), goleak.IgnoreCurrent())
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
	noLeaks(rec, sequence([]Resource{cached}, append([]Resource{cached}, leaked[0])), goleak.IgnoreCurrent())
	rec.runCleanups()
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], "1 verbs object(s) leaked")
	require.Contains(t, rec.errs[0], "pd 3 on rxe_a")
	require.NotContains(t, rec.errs[0], "ctx 0")

	// A listing that fails, at the start or at the end, is a failure, not a pass.
	rec = &recTB{TB: t}
	noLeaks(rec, func() ([]Resource, error) { return nil, errors.New("no netlink") }, goleak.IgnoreCurrent())
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
	}, goleak.IgnoreCurrent())
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

// userOwned keeps exactly the objects of user processes: in the recorded samples, those of
// the two servers, and none of ib_core's.
func TestUserOwned(t *testing.T) {
	data, err := os.ReadFile("testdata/rdma-resource/host/qp.json")
	require.NoError(t, err)
	rs, err := parseResources("qp", data)
	require.NoError(t, err)
	kernel := 0
	for _, r := range rs {
		if r.PID == 0 {
			kernel++
		}
	}
	require.Positive(t, kernel, "the sample holds the kernel's GSI QPs")
	kept := userOwned(rs)
	require.Len(t, kept, len(rs)-kernel)
	for _, r := range kept {
		require.Contains(t, []int{108, 109}, r.PID, r.String())
	}
}
