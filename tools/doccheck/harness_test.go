//go:build linux

package main

import (
	"os"
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
