// Package testinputs locates the repository root and the pinned inputs for
// tests. Tests that need the inputs fail (never skip) when they are
// missing, telling to run `make inputs`.
package testinputs

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the repository root: the nearest directory above the
// working directory that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testinputs: working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testinputs: no go.mod above the working directory")
		}
		dir = parent
	}
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
