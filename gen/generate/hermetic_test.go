package generate

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/input"
)

// TestHermetic checks that no Go file of the generated packages or of their
// run-time support includes a header outside the C standard library and
// libdl: the packages must build where no rdma-core headers are installed.
func TestHermetic(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	allowed := map[string]bool{"stdbool.h": true, "stdint.h": true, "stdlib.h": true, "dlfcn.h": true}
	include := regexp.MustCompile(`#\s*include\s*[<"]([^>"]+)[>"]`)
	dirs := []string{filepath.Join(repo, "internal", "dl")}
	for _, s := range input.Specs {
		dirs = append(dirs, filepath.Join(repo, s.Name))
	}
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range include.FindAllStringSubmatch(string(b), -1) {
				assert.True(t, allowed[m[1]], "%s includes <%s>", f, m[1])
			}
		}
	}
}
