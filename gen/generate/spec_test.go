package generate

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/emit"
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/spec"
)

// TestSpecMatchesIR checks that the functions the headers declare and the
// functions the spec describes are the same, one for one: the spec keys the
// public name (ibv_query_port), the IR also holds what a function-like
// macro makes of it (Impl: ___ibv_query_port).
func TestSpecMatchesIR(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	set, err := spec.Load(filepath.Join(repo, "spec"))
	require.NoError(t, err)
	for _, s := range input.Specs {
		r, err := Load(repo, s.Name)
		require.NoError(t, err)
		var fromIR, fromSpec []string
		for _, f := range r.Pkg.Funcs {
			fromIR = append(fromIR, f.Name)
		}
		e := emit.New(r.Pkg, r.Names)
		e.Spec = set
		macros := map[string]bool{}
		for _, m := range r.Pkg.Macros {
			macros[m.Name] = true
		}
		for _, f := range e.SpecFuncs() {
			// A public name that the newest header declares only as a
			// macro (mlx5dv_create_flow, an extern function before
			// rdma-core 65) is its Impl in the IR.
			if !(f.Impl != "" && macros[f.Name] && !slices.Contains(fromIR, f.Name)) {
				fromSpec = append(fromSpec, f.Name)
			}
			if f.Impl != "" {
				assert.Contains(t, fromIR, f.Impl, "%s: Impl of %s", s.Name, f.Name)
				if !slices.Contains(fromSpec, f.Impl) {
					fromSpec = append(fromSpec, f.Impl)
				}
			}
		}
		sort.Strings(fromIR)
		sort.Strings(fromSpec)
		fromIR = slices.Compact(fromIR)
		assert.Equal(t, fromIR, fromSpec, "package %s: functions of the headers (IR) and of the spec", s.Name)
	}
}

// TestEveryFunctionBound checks that the coverage report accounts for every
// spec function: an exported binding, or a reason.
func TestEveryFunctionBound(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	set, err := spec.Load(filepath.Join(repo, "spec"))
	require.NoError(t, err)
	for _, s := range input.Specs {
		r, err := Load(repo, s.Name)
		require.NoError(t, err)
		e := emit.New(r.Pkg, r.Names)
		e.Spec = set
		files, err := e.Files()
		require.NoError(t, err)
		require.Contains(t, files, "zapi.go", s.Name)
		for _, u := range e.Coverage().Unbound {
			assert.NotEmpty(t, u.Reason, "%s: %s", s.Name, u.Name)
		}
	}
}

// TestHandWritten checks that every function the generator leaves to a
// hand-written file is declared there.
func TestHandWritten(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	set, err := spec.Load(filepath.Join(repo, "spec"))
	require.NoError(t, err)
	check := func(c, file string, want ...string) {
		b, err := os.ReadFile(filepath.Join(repo, file))
		if assert.NoError(t, err, c) {
			found := false
			for _, w := range want {
				found = found || strings.Contains(string(b), w)
			}
			assert.True(t, found, "%s: %s: none of %q", file, c, want)
		}
	}
	for c, file := range emit.Hand {
		f, ok := set.Lookup(c)
		if assert.True(t, ok, "%s is not in the spec", c) {
			// An implementation bound by hand drops its Impl suffix
			// (_devx_set is mlx5dv.DevxSet).
			g := strings.TrimSuffix(f.GoName, "Impl")
			check(c, file, ") "+g+"(", "func "+g+"(")
		}
	}
	for c, file := range emit.HandShims {
		check(c, file, "func c_"+c+"(")
	}
	for c := range emit.Excluded {
		_, ok := set.Lookup(c)
		assert.True(t, ok, "%s is not in the spec", c)
	}
}
