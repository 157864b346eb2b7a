//go:build linux && !rxe

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// The harness compiles, with -Werror, against the pinned headers of both rdma-core
// versions; probes of functions a version lacks are left out of its harness.
func TestHarnessBuilds(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(repo, rxebed.RootDir(rxebed.RootSid), ".goverbs-stamp")); err != nil {
		t.Fatal("the pinned inputs are missing: run make inputs")
	}
	p, err := LoadProbes("probes", loadSpec(t))
	require.NoError(t, err)
	for _, r := range roots(repo) {
		bin, kept, err := buildHarness(repo, t.TempDir(), r, p.Probes)
		require.NoError(t, err, r.Name)
		require.FileExists(t, bin)
		require.NotEmpty(t, kept)
		for _, k := range kept {
			if r.Version == "44" {
				require.NotEqual(t, "ionic_dv_pd_set_rqcmb", k.Function, "ionic_dv.h is new in 65")
			}
		}
	}
}

// A probe's check runs in the harness and can fail it: two probes of a value function that
// needs no device (ibv_wc_status_str), built for the host root and run here, one whose
// check holds and notes what it saw, one whose check fails; a quote and a newline in a
// message reach the parent intact through the JSON line.
func TestHarnessCheckCanFail(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	set := loadSpec(t)
	p, err := parseProbes("probes.yaml", []byte(`probes:
  - function: ibv_wc_status_str
    case: known
    why: the string of IBV_WC_SUCCESS
    call: ibv_wc_status_str(IBV_WC_SUCCESS)
    check: if (strcmp(ret, "success")) check_fail("got %s", ret); else note("string %s", ret);
    expect: success
  - function: ibv_wc_status_str
    case: wrong
    why: a check that cannot hold
    call: ibv_wc_status_str(IBV_WC_SUCCESS)
    check: check_fail("got \"%s\"\nnot it", ret); check_fail("second");
    expect: success
`), set)
	require.NoError(t, err)
	var host root
	for _, r := range roots(repo) {
		if r.Name == rxebed.RootHost {
			host = r
		}
	}
	// Link against the host's own libibverbs: the harness runs here, not in the guest.
	host.LinkArgs = []string{"-libverbs", "-lrdmacm"}
	bin, kept, err := buildHarness(repo, t.TempDir(), host, p.Probes)
	require.NoError(t, err)
	require.Len(t, kept, 2)
	out, err := exec.Command(bin).Output()
	require.NoError(t, err)
	g, err := ParseGuestOutput(out)
	require.NoError(t, err)
	f, _ := set.Lookup("ibv_wc_status_str")
	ok := Classify(f, p.Probes[0], g.C[0])
	require.Equal(t, Holds, ok.Verdict, ok.Detail)
	require.Equal(t, "string success", g.C[0].Note)
	bad := Classify(f, p.Probes[1], g.C[1])
	require.Equal(t, CheckFailed, bad.Verdict)
	require.Equal(t, "got \"success\"\nnot it", bad.Detail)
}
