//go:build linux && !rxe

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// Every row of the direct-verbs table names a spec library, a header of the newest pinned
// rdma-core and a generated package; the main roots have what their release ships: 44 no
// hnsdv.h and no ionic_dv.h, 65 all of them.
func TestDVLibs(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(repo, rxebed.RootDir(rxebed.RootSid), ".goverbs-stamp")); err != nil {
		t.Fatal("the pinned inputs are missing: run make inputs")
	}
	set := loadSpec(t)
	for _, l := range dvLibs {
		assert.NotEmpty(t, set.Library(l.Library), l.Library)
		assert.FileExists(t, filepath.Join(repo, ".cache/inputs/rdma-core-65/usr/include", l.Header))
		assert.DirExists(t, filepath.Join(repo, l.Package))
		for _, f := range set.Library(l.Library) {
			got, ok := dvLibOf(f.Name)
			assert.True(t, ok && got.Library == l.Library, "%s: prefix %s", f.Name, l.Prefix)
		}
	}
	names := func(r root) []string {
		var out []string
		for _, l := range r.DV {
			out = append(out, l.Library)
		}
		return out
	}
	for _, r := range roots(repo) {
		switch r.Name {
		case rxebed.RootHost:
			assert.Equal(t, []string{"efa", "mana", "mlx4", "mlx5"}, names(r))
			assert.Contains(t, r.LinkArgs, "-l:libefa.so.1")
		case rxebed.RootSid:
			assert.Equal(t, []string{"efa", "hns", "ionic", "mana", "mlx4", "mlx5"}, names(r))
		default:
			assert.Empty(t, r.DV, r.Name)
		}
	}
	assert.True(t, isDVWithout("hnsdv_query_device", []string{"efa"}))
	assert.False(t, isDVWithout("hnsdv_query_device", []string{"hns"}))
	assert.False(t, isDVWithout("ibv_open_device", nil))
	for _, fn := range []string{"mlx5dv_query_device", "_mlx5dv_query_port", "__mlx5dv_create_flow", "_devx_get"} {
		l, ok := dvLibOf(fn)
		assert.True(t, ok && l.Library == "mlx5", fn)
	}
}

// Every function of a direct-verbs library is probed or declared untestable, and every
// guard's function has a probe among its evidence (spec/guards).
func TestDVCoverage(t *testing.T) {
	set := loadSpec(t)
	p, err := LoadProbes("probes", set)
	require.NoError(t, err)
	probed := map[string]bool{}
	for _, pr := range p.Probes {
		probed[pr.Function] = true
	}
	for _, u := range p.Untestable {
		for _, f := range u.Functions {
			probed[f] = true
		}
	}
	for _, l := range dvLibs {
		for _, f := range set.Library(l.Library) {
			assert.True(t, probed[f.Name], "%s is neither probed nor untestable (tools/doccheck/probes/%s.yaml)", f.Name, l.Library)
		}
	}
	for _, g := range set.AllGuards() {
		own := false
		for _, pr := range p.Probes {
			if pr.guard == g {
				assert.NotEmpty(t, pr.Go, pr.Function+"/"+pr.Case)
				own = own || pr.Function == g.Function
			}
		}
		assert.True(t, own, "%s: no evidence probe of the function itself", g.Function)
	}
}

// A guard's evidence must name a probe, with a Go side, of no other guard.
func TestLinkGuards(t *testing.T) {
	set := loadSpec(t)
	p, err := LoadProbes("probes", set)
	require.NoError(t, err)
	drop := func(fc string) *Probes {
		c := &Probes{}
		for _, pr := range p.Probes {
			if pr.Function+"/"+pr.Case != fc {
				q := *pr
				q.guard, q.evidence = nil, nil
				c.Probes = append(c.Probes, &q)
			}
		}
		return c
	}
	require.ErrorContains(t, linkGuards(drop("mlx4dv_query_device/non-mlx4"), set), "mlx4dv_query_device's evidence mlx4dv_query_device/non-mlx4 is no probe")
	c := drop("")
	i := slices.IndexFunc(c.Probes, func(pr *Probe) bool { return pr.Function == "mlx4dv_create_qp" })
	c.Probes[i].Go = ""
	require.ErrorContains(t, linkGuards(c, set), "needs a go: side")
	c = drop("")
	require.NoError(t, linkGuards(c, set))
	require.ErrorContains(t, linkGuards(c, set), "is the evidence of")
}

// An evidence probe's C call is "does not check the device" when it crashed, hung or
// returned (a failure other than EOPNOTSUPP too), and "refused" with EOPNOTSUPP; a probe of
// a function without a page is observed, or fails its check.
func TestClassifyDV(t *testing.T) {
	g := &spec.Guard{Function: "mlx4dv_query_device"}
	ev := &spec.GuardEvidence{Probe: "mlx4dv_query_device/non-mlx4", C: map[int]string{44: spec.Returned}}
	zero := &spec.Function{Name: "mlx4dv_query_device", Library: "mlx4", Convention: spec.ZeroOrErrno}
	p := &Probe{Function: zero.Name, Case: "non-mlx4", Expect: "error", Go: "x", guard: g, evidence: ev}
	for _, tc := range []struct {
		raw     Raw
		verdict string
		kind    string
	}{
		{Raw{Status: "crashed: signal 11"}, Unchecked, "SIGSEGV"},
		{Raw{Status: "crashed: signal 14 (hung for 20 s)"}, Unchecked, "hang"},
		{Raw{Status: "ok", Kind: "int", Value: 0}, Unchecked, spec.Returned},
		{Raw{Status: "ok", Kind: "int", Value: 22}, Unchecked, spec.Returned},
		{Raw{Status: "ok", Kind: "int", Value: 95}, Refused, "refused (95, errno 0)"},
		{Raw{Status: "fixture set-up failed", Errno: 95}, Broken, "fixture set-up failed"},
		// The teardown of what the call damaged crashed: judged by the evidence still.
		{Raw{Status: "ok", Kind: "int", Value: 0, Teardown: "the teardown crashed: signal 6"}, Unchecked, spec.Returned},
		// A leak is a leak, evidence or not.
		{Raw{Status: "ok", Kind: "int", Value: 0, Left: "1 PD"}, Leaked, spec.Returned},
	} {
		o := Classify(zero, p, tc.raw)
		assert.Equal(t, tc.verdict, o.Verdict, "%+v", tc.raw)
		assert.Equal(t, tc.kind, evidenceKind(zero, tc.raw), "%+v", tc.raw)
	}
	und := &spec.Function{Name: "efadv_create_cq", Library: "efa", Convention: spec.Undocumented}
	q := &Probe{Function: und.Name, Case: "non-efa", Expect: "success"}
	assert.Equal(t, Observed, Classify(und, q, Raw{Status: "ok", Kind: "ptr", Null: true, Errno: 95}).Verdict)
	o := Classify(und, q, Raw{Status: "ok", Kind: "ptr", Check: "returned a CQ"})
	assert.Equal(t, CheckFailed, o.Verdict)
	assert.Equal(t, "returned a CQ", o.Detail)
	assert.Equal(t, Broken, Classify(und, q, Raw{Status: "crashed: signal 11"}).Verdict)
	assert.True(t, dvAccepted(Unchecked) && dvAccepted(Observed) && !dvAccepted(Refused))
}

// The Go side of an evidence probe holds only with the *DeviceError of the guarded
// function (which the goprobe reports as guard), unwrapping to EOPNOTSUPP.
func TestClassifyGoDV(t *testing.T) {
	f := &spec.Function{Name: "efadv_wc_read_sgid", Library: "efa", Convention: spec.Undocumented}
	p := &Probe{Function: f.Name, Case: "non-efa-cq", Go: "x", guard: &spec.Guard{Function: "efadv_cq_from_ibv_cq_ex"},
		evidence: &spec.GuardEvidence{}}
	crashed := Raw{Status: "crashed: signal 11"}
	for _, tc := range []struct {
		g    GoRaw
		want string
	}{
		{GoRaw{Status: "ok", Err: "efadv_cq_from_ibv_cq_ex: device rxe_a ...", Guard: "efadv_cq_from_ibv_cq_ex", Is: []string{"ENOTSUP"}}, GoHolds},
		{GoRaw{Status: "ok", Err: "efadv_wc_read_sgid: device rxe_a ...", Guard: "efadv_wc_read_sgid", Is: []string{"ENOTSUP"}}, GoWrong},
		{GoRaw{Status: "ok", Err: "efadv_cq_from_ibv_cq_ex: not installed", Is: []string{"ENOTSUP"}}, GoWrong},
		{GoRaw{Status: "ok"}, GoWrong},
		{GoRaw{Status: "child exit status 2 (SIGSEGV)"}, GoBroken},
	} {
		assert.Equal(t, tc.want, ClassifyGo(f, p, crashed, tc.g).Verdict, "%+v", tc.g)
	}
	q := &Probe{Function: f.Name, Case: "other", Go: "x"}
	assert.Equal(t, GoNotCompared, ClassifyGo(f, q, crashed, GoRaw{Status: "ok"}).Verdict, "not evidence: as before")
}

// What an evidence probe did must be what its guard claims for the release: another
// outcome, or an outcome on a release the guard does not claim, fails the run; the
// own-device mode checks no claims. An evidence probe's verdicts are not mismatches.
func TestDVUnexpected(t *testing.T) {
	set := loadSpec(t)
	f, _ := set.Lookup("mlx4dv_query_device")
	g := &spec.Guard{Function: f.Name}
	p := &Probe{Function: f.Name, Case: "non-mlx4", Expect: "error", Go: "x", id: 0, guard: g,
		evidence: &spec.GuardEvidence{Probe: "mlx4dv_query_device/non-mlx4", C: map[int]string{65: "SIGSEGV"}}}
	res := func(rt root, raw Raw) *Results {
		return &Results{Set: set, Probes: &Probes{Probes: []*Probe{p}}, Roots: []root{rt},
			Raw:       map[string]map[int]Raw{rt.Name: {0: raw}},
			Go:        map[string]map[int]GoRaw{rt.Name: {0: {Status: "ok", Err: "x", Guard: f.Name, Is: []string{"ENOTSUP"}}}},
			Leftovers: map[string]Leftovers{rt.Name: {Seen: true}}}
	}
	sid, host := root{Name: "sid", Version: "65"}, root{Name: "host", Version: "44"}
	assert.Empty(t, res(sid, Raw{Status: "crashed: signal 11"}).Unexpected())
	bad := res(sid, Raw{Status: "ok", Kind: "int"}).Unexpected()
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "returned, where spec/guards/mlx4.yaml (mlx4dv_query_device) claims SIGSEGV")
	bad = res(sid, Raw{Status: "ok", Kind: "int", Value: 95}).Unexpected()
	require.Len(t, bad, 2, "%q", bad)
	assert.Contains(t, bad[0], Refused)
	bad = res(host, Raw{Status: "crashed: signal 11"}).Unexpected()
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "which spec/guards/mlx4.yaml (mlx4dv_query_device) does not claim")
	own := res(host, Raw{Status: "crashed: signal 11"})
	own.Own = &ownDevice{}
	assert.Empty(t, own.dvUnexpected())
	md := res(sid, Raw{Status: "crashed: signal 11"}).Markdown()
	assert.Contains(t, md, "## Direct verbs on rxe")
	assert.Contains(t, md, "crashed: signal 11: "+Unchecked)
	assert.Contains(t, md, "## Mismatches between page and behaviour\n\nNone.\n", "an evidence probe's crash is no page mismatch")
}
