//go:build linux && !rxe

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

func TestRealCrashMapLoads(t *testing.T) {
	set := loadSpec(t)
	m, err := LoadCrashMap("crashmap.yaml", set)
	require.NoError(t, err)
	require.NotEmpty(t, m.Classes)
	p, err := LoadProbes("probes", set)
	require.NoError(t, err)
	for _, c := range m.probes() {
		// Ids must not collide with the probes' (goprobe and the harness key by id).
		assert.GreaterOrEqual(t, c.id, crashIDBase)
		assert.Less(t, len(p.Probes), crashIDBase)
		assert.Equal(t, crashRoots, c.Roots)
	}
}

func TestBadCrashMap(t *testing.T) {
	set := loadSpec(t)
	entry := func(extra string) string {
		return "classes:\n  - function: ibv_query_port\n    class: port-0\n    why: w\n    call: f()\n" + extra
	}
	for _, tc := range []struct{ yaml, want string }{
		{"classes:\n  - function: ibv_nope\n    class: x\n    why: w\n    call: f()\n    go_not: n\n", "no function ibv_nope"},
		{"classes:\n  - function: rdma_create_id\n    class: x\n    why: w\n    call: f()\n    go_not: n\n", "covers libibverbs"},
		{entry("    go: return nil\n    go_not: n\n"), "exclude each other"},
		{entry(""), "needs its Go side"},
		{entry("    go_not: n\n    needs: [rconn]\n"), `unknown fixture "rconn"`},
		{entry("    go_not: n\n    expect: success\n"), "unknown field"},
		{entry("    go_not: n\n") + "  - function: ibv_query_port\n    class: port-0\n    why: w\n    call: f()\n    go_not: n\n", "duplicate class"},
		{"classes:\n  - function: ibv_query_port\n    class: Port 0\n    why: w\n    call: f()\n    go_not: n\n", "lower-case words"},
		{"classes:\n  - function: ibv_query_port\n    class: x\n    call: f()\n    go_not: n\n", "call and why"},
		{"classes:\n  -\n", "is empty"},
		// spec/crashes claims ibv_ack_cq_events/nevents-huge: a map without that class is refused.
		{entry("    go_not: n\n"), "spec/crashes claims ibv_ack_cq_events/nevents-huge"},
	} {
		_, err := parseCrashMap("crashmap.yaml", []byte(tc.yaml), set)
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want)
		assert.True(t, strings.HasPrefix(err.Error(), "crashmap.yaml"), err.Error())
	}
}

func TestClassifyCrashC(t *testing.T) {
	errnoFn := &spec.Function{Name: "ibv_query_port", Convention: spec.ZeroOrErrno}
	ptrFn := &spec.Function{Name: "ibv_create_cq_ex", Convention: spec.PointerOrNullErrno}
	strFn := &spec.Function{Name: "ibv_wc_status_str", Convention: spec.Value}
	for _, tc := range []struct {
		name string
		f    *spec.Function
		r    Raw
		want CrashResult
	}{
		{"segfault", errnoFn, Raw{Status: "crashed: signal 11"}, CrashResult{Kind: CrashCrashed, Signal: "SIGSEGV"}},
		{"abort", errnoFn, Raw{Status: "crashed: signal 6"}, CrashResult{Kind: CrashCrashed, Signal: "SIGABRT"}},
		{"hang", errnoFn, Raw{Status: "crashed: signal 14 (hung for 20 s)"}, CrashResult{Kind: CrashHung, Signal: "hang"}},
		{"errno", errnoFn, Raw{Status: "ok", Kind: "int", Value: 22}, CrashResult{Kind: CrashError, Detail: "EINVAL"}},
		{"success", errnoFn, Raw{Status: "ok", Kind: "int"}, CrashResult{Kind: CrashOK}},
		{"NULL without errno", ptrFn, Raw{Status: "ok", Kind: "ptr", Null: true}, CrashResult{Kind: CrashOther, Detail: "NULL, errno 0"}},
		{"string", strFn, Raw{Status: "ok", Kind: "ptr"}, CrashResult{Kind: CrashOK}},
		{"NULL string", strFn, Raw{Status: "ok", Kind: "ptr", Null: true}, CrashResult{Kind: CrashOK, Detail: "NULL"}},
		{"fixture", errnoFn, Raw{Status: fixtureFailed, Errno: 12}, CrashResult{Kind: CrashNoRun, Detail: fixtureFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, ClassifyCrashC(tc.f, tc.r)) })
	}
}

func TestClassifyCrashGo(t *testing.T) {
	c := &CrashClass{Go: "return nil"}
	for _, tc := range []struct {
		name string
		g    GoRaw
		ran  bool
		want string // Kind, then Signal or Detail
	}{
		{"nil", GoRaw{Status: "ok"}, true, "succeeded"},
		{"errno", GoRaw{Status: "ok", Err: "ibv_x: invalid argument", Is: []string{"IBV_REREG_MR_ERR_INPUT", "EINVAL"}}, true, "error EINVAL"},
		{"no errno", GoRaw{Status: "ok", Err: "ibv_x: failed (-1)", Is: []string{"IBV_REREG_MR_ERR_INPUT"}}, true, `error "ibv_x: failed (-1)"`},
		{"runtime SIGSEGV", GoRaw{Status: "child exit status 2 (SIGSEGV): goroutine 1 [running]:"}, true, "crashed SIGSEGV"},
		{"killed by a signal", GoRaw{Status: "child signal: aborted (SIGABRT): x"}, true, "crashed SIGABRT"},
		{"died without a signal", GoRaw{Status: "child exit status 3: x"}, true, "crashed died"},
		{"panic", GoRaw{Status: "panicked: runtime error: index out of range"}, true, "crashed panic"},
		{"hang", GoRaw{Status: "hung for 20s"}, true, "hung hang"},
		{"fixture", GoRaw{Status: "fixture set-up failed: fixture ctx: x"}, true, "did not run"},
		{"no line", GoRaw{}, false, "did not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ClassifyCrashGo(c, tc.g, tc.ran)
			got := r.Kind
			switch {
			case r.Signal != "":
				got += " " + r.Signal
			case r.Kind == CrashError:
				got += " " + r.Detail
			}
			assert.Equal(t, tc.want, got)
		})
	}
	assert.Equal(t, CrashNoGo, ClassifyCrashGo(&CrashClass{GoNot: "a bool"}, GoRaw{}, false).Kind)
}

func TestCrashDisagreements(t *testing.T) {
	c := &CrashClass{Function: "ibv_post_send", Class: "num-sge-huge", Go: "x"}
	claims := []spec.Crash{{Function: "ibv_post_send", Class: "num-sge-huge", Signal: "SIGSEGV", GoSignal: "panic", C: []int{44, 65}, Go: []int{65}, When: "w"}}
	segv := CrashResult{Kind: CrashCrashed, Signal: "SIGSEGV"}
	panicked := CrashResult{Kind: CrashCrashed, Signal: "panic"}
	einval := CrashResult{Kind: CrashError, Detail: "EINVAL"}
	hung := CrashResult{Kind: CrashHung, Signal: "hang"}
	for _, tc := range []struct {
		name string
		rel  int
		side string
		r    CrashResult
		want string // "" for agreement
	}{
		{"claimed and crashed", 44, "C", segv, ""},
		{"claimed, Go's own signal", 65, "Go", panicked, ""},
		{"claimed crash did not happen", 65, "C", einval, "claims SIGSEGV, but it error EINVAL"},
		{"measured crash not claimed", 44, "Go", segv, "does not claim"},
		{"another signal", 44, "C", hung, "claims SIGSEGV, but it **hung**"},
		{"not claimed, no crash", 44, "Go", einval, ""},
		{"did not run", 44, "C", CrashResult{Kind: CrashNoRun, Detail: "fixture"}, "did not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CrashDisagreements(c, claims, tc.rel, tc.side, tc.r)
			if tc.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Contains(t, got[0], tc.want)
			assert.Contains(t, got[0], "ibv_post_send/num-sge-huge")
		})
	}
	noGo := &CrashClass{Function: "ibv_post_send", Class: "num-sge-huge", GoNot: "n"}
	assert.Contains(t, strings.Join(CrashDisagreements(noGo, claims, 65, "Go", ClassifyCrashGo(noGo, GoRaw{}, false)), ""), "has no Go side")
	assert.Empty(t, CrashDisagreements(noGo, claims, 44, "Go", ClassifyCrashGo(noGo, GoRaw{}, false)))
}

// TestCrashMapFailsRun checks, on the committed spec and crash map, that doccheck's run
// fails (Unexpected) where measured results and spec/crashes disagree, in both directions,
// and passes where they agree; the report's table shows the results.
func TestCrashMapFailsRun(t *testing.T) {
	set := loadSpec(t)
	m, err := LoadCrashMap("crashmap.yaml", set)
	require.NoError(t, err)
	host := root{Name: rxebed.RootHost, Version: "44"}
	results := func(measure func(c *CrashClass) (Raw, GoRaw)) *Results {
		r := &Results{Set: set, Probes: &Probes{}, Crash: m, Roots: []root{host},
			Raw: map[string]map[int]Raw{host.Name: {}}, Go: map[string]map[int]GoRaw{host.Name: {}},
			Leftovers: map[string]Leftovers{host.Name: {Seen: true}}}
		for _, c := range m.Classes {
			cr, gr := measure(c)
			cr.ID, gr.ID = c.probe.id, c.probe.id
			r.Raw[host.Name][c.probe.id] = cr
			if c.Go != "" {
				r.Go[host.Name][c.probe.id] = gr
			}
		}
		return r
	}
	okC, okGo := Raw{Status: "ok", Kind: "int"}, GoRaw{Status: "ok"}
	// As claimed: every claimed class crashes as spec/crashes says, the rest succeed.
	asClaimed := func(c *CrashClass) (Raw, GoRaw) {
		for _, cl := range set.Crashes(c.Function) {
			if cl.Class == c.Class {
				return crashRaw(cl.Signal), crashGo(cl.GoSig())
			}
		}
		return okC, okGo
	}
	r := results(asClaimed)
	assert.Empty(t, r.Unexpected())
	md := r.Markdown()
	assert.Contains(t, md, "## Crash map of the raw packages")
	assert.Contains(t, md, "| `ibv_post_send` | num-sge-huge | num_sge 2^30 with a list of one SGE | **crashed (SIGSEGV)** | **crashed (SIGSEGV)** |")
	assert.Contains(t, md, "None: every crash above is claimed")

	// Nothing crashes: each claim is a failure.
	r = results(func(*CrashClass) (Raw, GoRaw) { return okC, okGo })
	bad := strings.Join(r.Unexpected(), "\n")
	assert.Contains(t, bad, "crash map ibv_post_send/num-sge-huge on rdma-core 44, C: spec/crashes claims SIGSEGV, but it succeeded")
	assert.Contains(t, bad, "crash map ibv_post_send/num-sge-huge on rdma-core 44, Go: spec/crashes claims SIGSEGV")

	// An unclaimed crash fails too.
	r = results(func(c *CrashClass) (Raw, GoRaw) {
		if c.Function == "ibv_query_port" && c.Class == "port-0" {
			return crashRaw("SIGSEGV"), okGo
		}
		return asClaimed(c)
	})
	require.Len(t, r.Unexpected(), 1)
	assert.Contains(t, r.Unexpected()[0], "ibv_query_port/port-0 on rdma-core 44, C: **crashed (SIGSEGV)**, which spec/crashes/libibverbs.yaml does not claim")
	assert.Contains(t, r.Markdown(), "- crash map ibv_query_port/port-0")
	assert.Contains(t, r.Summary(), "1 disagreement(s) with spec/crashes")
}

func crashRaw(sig string) Raw {
	if sig == "hang" {
		return Raw{Status: "crashed: signal 14 (hung for 20 s)"}
	}
	return Raw{Status: "crashed: signal 11"}
}

func crashGo(sig string) GoRaw {
	if sig == "hang" {
		return GoRaw{Status: "hung for 20s"}
	}
	return GoRaw{Status: "child exit status 2 (" + sig + "): goroutine 1"}
}
