// Package pinned locates the repository and its pinned C inputs (.cache/inputs, fetched by
// make inputs) for the generator (gen/input) and the layout tests (internal/layouttest). It
// needs the standard library only: the layout tests are tests of the root module, whose
// only requirement is golang.org/x/sys.
package pinned

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Versions are the rdma-core input roots, newest first. The newest one is the source of the
// generated Go; the others only date symbols and are checked by the layout tests.
var Versions = []string{"65", "56", "44", "33"}

// ErrMissing is wrapped by every error about absent pinned inputs.
var ErrMissing = errors.New("pinned inputs missing: run `make inputs`")

// Root is the set of include directories of one input version.
type Root struct {
	Version string
	Include []string // searched first, in order, before the host's system paths
}

// RepoRoot walks up from dir to the repository: the directory holding inputs.lock (the
// root module's; gen and tools are modules of their own below it).
func RepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "inputs.lock")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("inputs.lock not found above the working directory: run inside the goverbs repository")
		}
		dir = up
	}
}

// FindRoot returns the include directories of version v under repo.
func FindRoot(repo, v string) (Root, error) {
	dirs := []string{
		filepath.Join(repo, ".cache", "inputs", "rdma-core-"+v, "usr", "include"),
		filepath.Join(repo, ".cache", "inputs", "librpma", "usr", "include"),
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			return Root{}, fmt.Errorf("%s: %w", d, ErrMissing)
		}
	}
	return Root{Version: v, Include: dirs}, nil
}

// Has reports whether the root ships header h (an include path).
func (r Root) Has(h string) bool {
	_, ok := r.Find(h)
	return ok
}

// Find returns the include directory of the root that holds header h.
func (r Root) Find(h string) (string, bool) {
	for _, d := range r.Include {
		if _, err := os.Stat(filepath.Join(d, h)); err == nil {
			return d, true
		}
	}
	return "", false
}
