package generate

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/emit"
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/spec"
)

// TestSince checks spec/since, the exact dating tools/releasedates reads from rdma-core's
// release tags, against the four pinned inputs: a function, struct member or enumerator
// dated release R is declared by every pinned input of R or later and by none older; and
// every one the pinned inputs date after the oldest input is listed, unless the newest
// input is the first to have it and the dating's newest tag is older than it (then it is
// that release's own).
func TestSince(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	set, err := spec.Load(filepath.Join(repo, "spec"))
	require.NoError(t, err)
	checked := 0
	for _, s := range input.Specs {
		lib := emit.Libraries[s.Name]
		d := set.Since(lib)
		if d == nil {
			continue
		}
		r, err := Load(repo, s.Name)
		require.NoError(t, err)
		vs := r.Pkg.Versions
		oldest, newest := vs[len(vs)-1], vs[0]
		require.Equal(t, strconv.Itoa(d.Oldest), string(oldest), "%s: spec/since's oldest release is the oldest input", lib)
		n, _ := strconv.Atoi(string(newest))
		check := func(what string, dated int, in []ir.Version) {
			t.Helper()
			checked++
			if dated == 0 {
				if ir.Has(in, oldest) || len(in) == 0 {
					return
				}
				since := ir.Since(vs, in)
				assert.True(t, since == newest && d.NewestTag < n, "%s: %s: the pinned inputs date it %s, and spec/since does not list it (run tools/releasedates)", lib, what, since)
				return
			}
			for _, v := range vs {
				rv, _ := strconv.Atoi(string(v))
				assert.Equal(t, rv >= dated, ir.Has(in, v), "%s: %s is dated %d by spec/since; rdma-core %s's headers disagree", lib, what, dated, v)
			}
		}
		for _, f := range r.Pkg.Funcs {
			if !strings.HasPrefix(f.Name, "_") {
				check(f.Name, d.Symbol(f.Name), f.In)
			}
		}
		for _, st := range r.Pkg.Structs {
			if st.Foreign || strings.Contains(st.Key, "::") {
				continue
			}
			for _, fd := range st.Fields {
				if fd.Name == "" {
					continue
				}
				key := strings.TrimPrefix(strings.TrimPrefix(st.Key, "struct "), "union ") + "." + fd.Name
				check(key, d.Declaration(key), fd.In)
			}
		}
		for _, en := range r.Pkg.Enums {
			if en.Foreign {
				continue
			}
			for _, v := range en.Values {
				check(v.Name, d.Declaration(v.Name), v.In)
			}
		}
		// Every listed symbol is a function of the package.
		for name := range d.Symbols {
			assert.NotNil(t, r.Pkg.Func(name), "%s: spec/since dates %s, which no pinned header declares", lib, name)
		}
	}
	require.NotZero(t, checked)
}
