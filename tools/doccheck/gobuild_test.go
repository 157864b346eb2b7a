//go:build linux && !rxe

package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every `go:` snippet of the probe files compiles into goprobe, and goprobe's child mode knows
// each of them: it refuses an id without a snippet.
func TestGoProbesBuild(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	p, err := LoadProbes("probes", loadSpec(t))
	require.NoError(t, err)
	bin, err := buildGoProbes(repo, t.TempDir(), p.Probes, "")
	require.NoError(t, err)
	without := -1
	for _, pr := range p.Probes {
		if pr.Go == "" {
			without = pr.id
			break
		}
	}
	if without >= 0 {
		out, err := exec.Command(bin, "-probe", strconv.Itoa(without)).Output()
		require.NoError(t, err)
		require.Contains(t, string(out), "no Go probe with this id")
	}
}

// A snippet that does not compile fails the build with a message naming its probe.
func TestGoProbesBuildNamesProbe(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	bad := &Probe{Function: "ibv_alloc_pd", Case: "broken", Why: "x", Go: "return ctx().NoSuchMethod()"}
	_, err = buildGoProbes(repo, t.TempDir(), []*Probe{bad}, "")
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "probes[ibv_alloc_pd/broken]:1"), err.Error())
}
