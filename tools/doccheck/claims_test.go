//go:build linux && !rxe

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// The untestable: and no_failure_probe: entries are checked like probes: functions of the
// spec, a reason, known fixtures, a proof (check:) unless proof: none says none is possible;
// a function is claimed once and never beside a probe the claim denies; errors name the line.
func TestBadClaims(t *testing.T) {
	set := loadSpec(t)
	const failProbe = "probes:\n  - function: ibv_alloc_pd\n    case: x\n    why: w\n    call: f()\n    expect: error\n"
	for _, tc := range []struct{ yaml, want string }{
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    needs: [ctx]\n    check: check_fail(\"x\");\n", ""},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    proof: none\n", ""},
		{"untestable:\n  - functions: [ibv_alloc_pd]\n    reason: r\n", ""},
		{"untestable:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    needs: [dev_attr]\n    check: if (0) check_fail(\"x\");\n", ""},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n", "probes.yaml:2: no_failure_probe [ibv_alloc_pd]: needs a check:"},
		{"no_failure_probe:\n  - functions: [ibv_wc_status_str]\n    reason: r\n    proof: none\n", "has no error channel"},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    proof: none\n    check: x;\n", "exclude each other"},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    proof: maybe\n", `proof "maybe"`},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    proof: none\n", "needs a reason"},
		{"no_failure_probe:\n  - functions: []\n    reason: r\n    proof: none\n", "names no function"},
		{"no_failure_probe:\n  - functions: [ibv_nope]\n    reason: r\n    proof: none\n", "ibv_nope is not in spec/"},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    needs: [gpu]\n    check: x;\n", `unknown fixture "gpu"`},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    needs: [rconn]\n    check: x;\n", "only for librpma"},
		{"untestable:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    needs: [ctx]\n", "needs fixtures but has no check"},
		{"no_failure_probe:\n  - reason: r\n    functions: [ibv_alloc_pd]\n    proof: none\n  -\n", "no_failure_probe entry 2 is empty"},
		{failProbe + "no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    proof: none\n", "has a failure probe"},
		{strings.Replace(failProbe, "error", "success", 1) + "untestable:\n  - functions: [ibv_alloc_pd]\n    reason: r\n", "untestable ibv_alloc_pd has a probe"},
		{"no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    proof: none\nuntestable:\n  - functions: [ibv_alloc_pd]\n    reason: r\n", "claimed twice"},
	} {
		_, err := parseProbes("probes.yaml", []byte(tc.yaml), set)
		if tc.want == "" {
			require.NoError(t, err, tc.yaml)
			continue
		}
		require.ErrorContains(t, err, tc.want, tc.yaml)
	}
	// Across files too: a failure probe in one file, the claim in another.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(failProbe), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("no_failure_probe:\n  - functions: [ibv_alloc_pd]\n    reason: r\n    proof: none\n"), 0o644))
	_, err := LoadProbes(dir, set)
	require.ErrorContains(t, err, "b.yaml:2: ibv_alloc_pd is in no_failure_probe but has a failure probe")
}

// The loader reads *.yaml only: a file beside them (notes.pending) is not a probe file,
// whatever it holds.
func TestPendingFileNotRead(t *testing.T) {
	set := loadSpec(t)
	real, err := LoadProbes("probes", set)
	require.NoError(t, err)
	dir := t.TempDir()
	files, err := filepath.Glob("probes/*.yaml")
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.pending"), []byte("no_failure_probe: [not, even: valid\n"), 0o644))
	p, err := LoadProbes(dir, set)
	require.NoError(t, err)
	require.Len(t, p.Probes, len(real.Probes))
	require.Len(t, p.NoFailureProbe, len(real.NoFailureProbe))
}

// No vacuous verdict: a success probe of a value or void function and every probe of a post
// function must check what the call did, and a Go side must check too, in every probe file.
func TestVacuousRule(t *testing.T) {
	set := loadSpec(t)
	for _, tc := range []struct{ file, yaml, want string }{
		{"x.yaml", "probes:\n  - function: ibv_wc_status_str\n    case: x\n    why: w\n    call: ibv_wc_status_str(0)\n    expect: success\n", "a success probe of a value function needs a check:"},
		{"x.yaml", "probes:\n  - function: ibv_ack_cq_events\n    case: x\n    why: w\n    call: f()\n    void: true\n    expect: success\n", "void function needs a check:"},
		{"x.yaml", "probes:\n  - function: rdma_post_send\n    case: x\n    why: w\n    call: f()\n    expect: error\n", "a probe of a post function needs a check:"},
		{"x.yaml", "probes:\n  - function: ibv_post_send\n    case: x\n    why: w\n    call: f()\n    expect: success\n", "a probe of a post function needs a check:"},
		{"x.yaml", "probes:\n  - function: ibv_wr_complete\n    case: x\n    why: w\n    call: f()\n    expect: success\n", "a probe of a post function needs a check:"},
		{"x.yaml", "probes:\n  - function: ibv_wc_status_str\n    case: x\n    why: w\n    call: f()\n    check: check_fail(\"x\");\n    expect: success\n    go: |\n      return got(ibv.WCStatusStr(0), nil)\n", "its go: snippet returns the call's error only"},
		{"x.yaml", "probes:\n  - function: ibv_wc_status_str\n    case: x\n    why: w\n    call: f()\n    check: check_fail(\"x\");\n    expect: success\n    go: |\n      return same(ibv.WCStatusStr(0))\n", ""},
		{"x.yaml", "probes:\n  - function: ibv_alloc_pd\n    case: x\n    why: w\n    call: f()\n    expect: success\n", ""},
		{"x.yaml", "probes:\n  - function: ibv_query_gid\n    case: x\n    why: w\n    call: f()\n    expect: EINVAL\n", "reports no errno or code"},
		{"libibverbs.yaml", "probes:\n  - function: ibv_wc_status_str\n    case: x\n    why: w\n    call: ibv_wc_status_str(0)\n    expect: success\n", "a success probe of a value function needs a check:"},
	} {
		p, err := parseProbes(tc.file, []byte(tc.yaml), set)
		if err == nil {
			err = p.vacuousError()
		}
		if tc.want == "" {
			require.NoError(t, err, tc.yaml)
			continue
		}
		require.ErrorContains(t, err, tc.want, tc.yaml)
		require.True(t, strings.HasPrefix(err.Error(), tc.file+":2: "), err.Error())
	}
	// A guard's evidence is judged by spec/guards' evidence and its Go side's refusal: the
	// rule leaves it out (a void call through efa's view of rxe's QP checks nothing in C).
	all, err := LoadProbes("probes", set)
	require.NoError(t, err)
	i := slices.IndexFunc(all.Probes, func(p *Probe) bool { return p.Function+"/"+p.Case == "efadv_wr_set_processing_hints/non-efa-qp" })
	require.True(t, i >= 0)
	require.Error(t, all.Probes[i].vacuous)
	require.NotNil(t, all.Probes[i].guard)
}

// hostRoot is the host root's harness settings, linked against this machine's own libraries:
// the harness runs here, not in the guest.
func hostRoot(t *testing.T) (string, root) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, r := range roots(repo) {
		if r.Name == rxebed.RootHost {
			r.LinkArgs = []string{"-libverbs", "-lrdmacm"}
			return repo, r
		}
	}
	t.Fatal("no host root")
	return "", root{}
}

// runHarness builds probes for the host root and runs them here, returning the run's results.
func runHarness(t *testing.T, set *spec.Set, p *Probes) *Results {
	repo, host := hostRoot(t)
	run := append(append([]*Probe(nil), p.Probes...), p.proofs()...)
	bin, kept, err := buildHarness(repo, t.TempDir(), host, run)
	require.NoError(t, err)
	require.Len(t, kept, len(run))
	out, err := exec.Command(bin).Output()
	require.NoError(t, err)
	g, err := ParseGuestOutput(out)
	require.NoError(t, err)
	return &Results{Set: set, Probes: p, Roots: []root{host}, Raw: map[string]map[int]Raw{host.Name: g.C},
		Go: map[string]map[int]GoRaw{}, Leftovers: map[string]Leftovers{host.Name: {Seen: true}}}
}

// A claim's proof runs in the harness, in a probe process of its own, after the probes: a
// check that holds proves the reason; one that fails fails the run, and the report says which
// and why. The checks here need no device (they run on the host).
func TestHarnessProofCanFail(t *testing.T) {
	set := loadSpec(t)
	p, err := parseProbes("probes.yaml", []byte(`no_failure_probe:
  - functions: [ibv_get_device_list]
    reason: a reason that holds (the string of IBV_WC_SUCCESS is "success")
    check: if (strcmp(ibv_wc_status_str(IBV_WC_SUCCESS), "success")) check_fail("it is %s", ibv_wc_status_str(IBV_WC_SUCCESS)); else note("success");
  - functions: [ibv_open_device]
    reason: a false reason
    check: check_fail("the reason is false");
  - functions: [ibv_alloc_pd]
    reason: no check is possible
    proof: none
untestable:
  - functions: [ibv_alloc_dm]
    reason: no proof given
`), set)
	require.NoError(t, err)
	proofs := p.proofs()
	require.Len(t, proofs, 2)
	require.Equal(t, proofIDBase, proofs[0].id)
	require.Equal(t, proofIDBase+1, proofs[1].id)
	res := runHarness(t, set, p)
	rt := res.Roots[0]
	good, ok := res.proofOutcome(p.NoFailureProbe[0], rt)
	require.True(t, ok)
	require.Equal(t, Proven, good.Verdict, good.Detail)
	bad, ok := res.proofOutcome(p.NoFailureProbe[1], rt)
	require.True(t, ok)
	require.Equal(t, ProofFailed, bad.Verdict)
	require.Contains(t, bad.Detail, "the reason is false")
	_, ok = res.proofOutcome(p.NoFailureProbe[2], rt)
	require.False(t, ok, "proof: none runs nothing")
	unexpected := res.Unexpected()
	require.Len(t, unexpected, 1)
	require.Contains(t, unexpected[0], "no_failure_probe ibv_open_device (a false reason)")
	require.Contains(t, res.Summary(), "Reasons (untestable, no_failure_probe): 1 proven in the guest, 1 failed, 1 with no check possible, 1 without a proof")
	md := res.Markdown()
	require.Contains(t, md, "- no failure probe `ibv_open_device`: a false reason — proof failed on rdma-core 44 (the reason is false here: the reason is false)")
	require.Contains(t, md, "- untestable `ibv_alloc_dm`: no proof given — no proof")
}

// A deliberately wrong convention fails the run: rdma_getaddrinfo with no node, service or
// hints fails with -1 and errno EINVAL (librdmacm's own check, before it needs a device, so
// it runs here), which holds under the spec's convention and is violated under a convention
// whose failure is a positive errno; and the EAI_SERVICE that the guest measures for an
// unknown service (-8, errno 0) holds under the spec's convention and is violated under the
// page's zero_or_minus_one_errno.
func TestWrongConventionFailsTheRun(t *testing.T) {
	set := loadSpec(t)
	p, err := parseProbes("probes.yaml", []byte(`probes:
  - function: rdma_getaddrinfo
    case: all-null
    why: no node, service or hints
    call: ({ struct rdma_addrinfo *ai; int rc = rdma_getaddrinfo(NULL, NULL, NULL, &ai); if (!rc) rdma_freeaddrinfo(ai); rc; })
    expect: EINVAL
  - function: rdma_getaddrinfo
    case: unknown-service
    why: the guest's measurement, replayed
    call: "0"
    expect: EAI_SERVICE
`), set)
	require.NoError(t, err)
	res := runHarness(t, set, p)
	rt := res.Roots[0]
	res.Raw[rt.Name][p.Probes[1].id] = Raw{ID: p.Probes[1].id, Status: "ok", Kind: "int", Value: -8, Errno: 0}
	require.Empty(t, res.Unexpected(), "under the spec's convention")
	f, _ := set.Lookup("rdma_getaddrinfo")
	require.Equal(t, spec.ZeroOrEAIOrMinusOneErrno, f.Convention)
	for _, wrong := range []spec.Convention{spec.ZeroOrErrno, spec.ZeroOrMinusOneErrno} {
		saved := f.Convention
		f.Convention = wrong
		bad := res.Unexpected()
		f.Convention = saved
		require.NotEmpty(t, bad, "under %s", wrong)
		require.Contains(t, strings.Join(bad, "\n"), "violated", "under %s", wrong)
	}
}

// Every documented function with an error channel, in every library, has a failure probe or a
// claim (no_failure_probe: or untestable:) whose reason a check in the guest proves (issue 26:
// "every function with an error channel has a failure probe ... or a reason that a test
// checks").
func TestFailureCoverage(t *testing.T) {
	set := loadSpec(t)
	all, err := LoadProbes("probes", set)
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, p := range all.Probes {
		// A guard's evidence expects a failure of its Go side: the guard's *DeviceError
		// (the C call reads rxe's object as its provider's own, and may crash).
		if p.Expect != "success" || p.guard != nil {
			covered[p.Function] = true
		}
	}
	for _, c := range all.Claims() {
		for _, fn := range c.Functions {
			covered[fn] = true
		}
	}
	var missing []string
	n := 0
	for _, f := range set.Functions() {
		if !f.Documented || !hasErrorChannel(f.Convention) {
			continue
		}
		n++
		if !covered[f.Name] {
			missing = append(missing, f.Library+" "+f.Name)
		}
	}
	require.Empty(t, missing, "documented functions with an error channel without a failure probe or a claim")
	require.Greater(t, n, 190)
}
