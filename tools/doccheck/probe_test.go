//go:build linux && !rxe

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

func loadSpec(t *testing.T) *spec.Set {
	set, err := spec.Load("../../spec")
	require.NoError(t, err)
	return set
}

func TestRealProbesLoad(t *testing.T) {
	p, err := LoadProbes("probes", loadSpec(t))
	require.NoError(t, err)
	require.NotEmpty(t, p.Probes)
	_, err = LoadKnown("known.yaml", p)
	require.NoError(t, err)
}

func TestBadProbes(t *testing.T) {
	set := loadSpec(t)
	for _, tc := range []struct{ yaml, want string }{
		{"probes:\n  - function: ibv_no_such\n    case: x\n    why: w\n    call: f()\n    expect: success\n", "no function ibv_no_such"},
		{"probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    expect: EWHATEVER\n", "no errno name or library code"},
		{"probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    expect: EINVAL\n", ""}, // the page names no error: the measured one
		{"probes:\n  - function: ibv_query_gid_ex\n    case: x\n    why: w\n    call: f()\n    expect: EINVAL\n", "does not document"},
		{"probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    needs: [gpu]\n    expect: success\n", `unknown fixture "gpu"`},
		{"probes:\n  - function: ibv_create_cq\n    cas: x\n", "unknown field"},
		{"probes:\n  - function: ibv_create_cq\n    case: Bad Name\n    why: w\n    call: f()\n    expect: success\n", "lower-case words"},
		{"probes:\n  - function: ibv_get_device_name\n    case: x\n    why: w\n    call: f()\n    expect: error\n", ""}, // pointer_or_null has an error channel

		{"probes:\n  - function: ibv_wc_status_str\n    case: x\n    why: w\n    call: f(0)\n    expect: error\n", "no error channel"},
		{"untestable:\n  - functions: [ibv_create_cq]\n", "needs a reason"},
		{"probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    needs: [rconn]\n    expect: success\n", "only for librpma probes"},
	} {
		path := filepath.Join(t.TempDir(), "probes.yaml")
		require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o644))
		_, err := LoadProbes(path, set)
		if tc.want == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, tc.want)
	}
}

// Errors name the line of the entry at fault.
func TestProbeErrorPositions(t *testing.T) {
	set := loadSpec(t)
	_, err := parseProbes("probes.yaml", []byte("probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    expect: success\n  - function: ibv_no\n    case: x\n"), set)
	require.EqualError(t, err, "probes.yaml:7: probe 2 (ibv_no/x): no function ibv_no in spec/")
	_, err = parseProbes("probes.yaml", []byte("probes: []\nuntestable:\n  - functions: [ibv_create_cq]\n    reason: r\n  - functions: [ibv_no]\n    reason: r\n"), set)
	require.EqualError(t, err, "probes.yaml:5: untestable [ibv_no]: function ibv_no is not in spec/")
	_, err = parseProbes("probes.yaml", []byte("# c\r\nprobes:\n  - functio: x\n"), set)
	require.ErrorContains(t, err, "probes.yaml:3:5: ")
	_, err = parseKnown("known.yaml", []byte("# c\n- function: a\n  case: b\n"), &Probes{})
	require.EqualError(t, err, "known.yaml:2: entry 1 names no probe a/b")
}

// An empty list entry is an error, not a crash.
func TestEmptyProbe(t *testing.T) {
	_, err := parseProbes("probes.yaml", []byte("probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    expect: success\n  -\n"), loadSpec(t))
	require.EqualError(t, err, "probes.yaml:7: probe 2 is empty")
}

func TestSelectProbes(t *testing.T) {
	ps := []*Probe{{Function: "rpma_read", Case: "success"}, {Function: "rpma_read", Case: "no-flags"}, {Function: "rpma_write", Case: "success"}}
	got, err := selectProbes(ps, `^rpma_read/`)
	require.NoError(t, err)
	require.Equal(t, ps[:2], got)
	got, err = selectProbes(ps, `/success$`)
	require.NoError(t, err)
	require.Equal(t, []*Probe{ps[0], ps[2]}, got)
	_, err = selectProbes(ps, `^ibv_`)
	require.ErrorContains(t, err, "matches no probe")
	_, err = selectProbes(ps, `(`)
	require.ErrorContains(t, err, "-only")
}
