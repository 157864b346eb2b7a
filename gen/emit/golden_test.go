package emit_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/emit"
	"github.com/goverbs/goverbs/gen/internal/demo"
)

var update = flag.Bool("update", false, "rewrite the golden files of gen/testdata/demo/golden")

// TestGolden emits the demo package and compares every file with its golden
// copy; run with -update after an intended change of the emitters.
func TestGolden(t *testing.T) {
	pkg, err := demo.Load()
	require.NoError(t, err)
	names, err := emit.NewNames(demo.Spec, pkg, nil)
	require.NoError(t, err)
	files, err := emit.New(pkg, names).Files()
	require.NoError(t, err)
	dir := filepath.Join(demo.Dir(), "golden")
	if *update {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for n, b := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n+".golden"), b, 0o644))
		}
	}
	got, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	require.NoError(t, err)
	assert.Len(t, got, len(files), "golden files")
	for _, n := range emit.FileNames(files) {
		want, err := os.ReadFile(filepath.Join(dir, n+".golden"))
		if assert.NoError(t, err, n) {
			assert.Equal(t, string(want), string(files[n]), n)
		}
	}
}

// TestReproducible renders twice and expects the same bytes.
func TestReproducible(t *testing.T) {
	render := func() map[string][]byte {
		pkg, err := demo.Load()
		require.NoError(t, err)
		names, err := emit.NewNames(demo.Spec, pkg, nil)
		require.NoError(t, err)
		files, err := emit.New(pkg, names).Files()
		require.NoError(t, err)
		return files
	}
	assert.Equal(t, render(), render())
}

func TestNameCollision(t *testing.T) {
	pkg, err := demo.Load()
	require.NoError(t, err)
	pkg.Enums[0].Tag, pkg.Enums[0].Key = "demo_ctx", "enum demo_ctx" // same Go name as struct demo_ctx
	_, err = emit.NewNames(demo.Spec, pkg, nil)
	assert.ErrorContains(t, err, "both map to Go name Ctx")
}
