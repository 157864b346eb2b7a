package input

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindRootMissing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inputs.lock"), nil, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a", "go.mod"), []byte("module x\n"), 0o644), "a nested module's go.mod is not the repository")
	sub := filepath.Join(dir, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	repo, err := RepoRoot(sub)
	require.NoError(t, err)
	assert.Equal(t, dir, repo)
	_, err = FindRoot(repo, "65")
	assert.True(t, errors.Is(err, ErrMissing))
	assert.Contains(t, err.Error(), "run `make inputs`")
}

func TestRel(t *testing.T) {
	p := &Parsed{Root: Root{Include: []string{"/x/rdma-core-65/usr/include", "/x/librpma/usr/include"}}, sys: []string{"/usr/include", "/usr/include/x86_64-linux-gnu"}}
	assert.Equal(t, "infiniband/verbs.h", p.Rel("/x/rdma-core-65/usr/include/infiniband/verbs.h"))
	assert.Equal(t, "", p.Rel("/usr/include/stdio.h"))
	assert.Equal(t, "bits/socket.h", p.HostRel("/usr/include/x86_64-linux-gnu/bits/socket.h"), "the innermost system directory wins")
	p.Spec = Spec{Owns: []string{"infiniband/verbs.h"}}
	assert.True(t, p.Owned("/x/rdma-core-65/usr/include/infiniband/verbs.h"))
	assert.False(t, p.Owned("/x/rdma-core-65/usr/include/infiniband/sa.h"))
}

func TestSpecs(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Specs {
		for _, d := range s.Deps {
			assert.True(t, seen[d], "%s depends on %s, which must come first", s.Name, d)
		}
		seen[s.Name] = true
		assert.NotEmpty(t, s.Lib, s.Name)
		assert.Subset(t, s.Owns, s.Headers, "%s owns the headers it includes", s.Name)
	}
	_, ok := Lookup("ibv")
	assert.True(t, ok)
	_, ok = Lookup("nope")
	assert.False(t, ok)
}
