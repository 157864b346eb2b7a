// Package testinputs locates the repository root and the pinned inputs for
// tests. Tests that need the inputs fail (never skip) when they are
// missing, telling to run `make inputs`.
package testinputs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goverbs/goverbs/internal/pinned"
)

// RepoRoot returns the repository root (pinned.RepoRoot: the nearest directory above the
// working directory that holds inputs.lock).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := pinned.RepoRoot(".")
	if err != nil {
		t.Fatalf("testinputs: %v", err)
	}
	return dir
}

// Dir returns the directory of the unpacked pinned inputs
// (<root>/.cache/inputs), failing the test when it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), ".cache", "inputs")
	for _, want := range []string{"rdma-core-65", "librpma"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Fatalf("pinned inputs missing (%v): run `make inputs` at the repository root", err)
		}
	}
	return dir
}

// Man3 returns the man3 directory of one input package ("rdma-core-65",
// "librpma").
func Man3(t testing.TB, pkg string) string {
	t.Helper()
	return filepath.Join(Dir(t), pkg, "usr", "share", "man", "man3")
}

// Include returns the include directory of one input package.
func Include(t testing.TB, pkg string) string {
	t.Helper()
	return filepath.Join(Dir(t), pkg, "usr", "include")
}
