package generate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/emit"
	"github.com/goverbs/goverbs/gen/input"
)

// TestUpToDate regenerates every package in memory and expects the
// committed z*.go files byte for byte: `go generate ./...` is a no-op.
func TestUpToDate(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	for _, s := range input.Specs {
		t.Run(s.Name, func(t *testing.T) {
			files, err := Files(repo, s.Name)
			require.NoError(t, err, "run `make inputs`")
			have, err := filepath.Glob(filepath.Join(repo, s.Name, "z*.go"))
			require.NoError(t, err)
			assert.Len(t, have, len(files), "generated files in %s", s.Name)
			for _, n := range emit.FileNames(files) {
				b, err := os.ReadFile(filepath.Join(repo, s.Name, n))
				if assert.NoError(t, err, "run go generate ./...") {
					assert.True(t, string(b) == string(files[n]), "%s/%s is stale: run go generate ./...", s.Name, n)
				}
			}
		})
	}
}
