// Package input finds the pinned C headers under the repository's .cache and
// parses them with modernc.org/cc/v4.
package input

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goverbs/goverbs/gen/ir"
)

// Versions are the rdma-core input roots, newest first. The newest one is the
// source of the generated Go; the others only date symbols and are checked by
// the layout tests.
var Versions = []ir.Version{"65", "56", "44", "33"}

// ErrMissing is wrapped by every error about absent pinned inputs.
var ErrMissing = errors.New("pinned inputs missing: run `make inputs`")

// Root is the set of include directories of one input version.
type Root struct {
	Version ir.Version
	Include []string // searched first, in order, before the host's system paths
}

// RepoRoot walks up from dir to the directory holding go.mod.
func RepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = up
	}
}

// FindRoot returns the include directories of version v under repo.
func FindRoot(repo string, v ir.Version) (Root, error) {
	dirs := []string{
		filepath.Join(repo, ".cache", "inputs", "rdma-core-"+string(v), "usr", "include"),
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
