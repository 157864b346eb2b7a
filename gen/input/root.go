// Package input finds the pinned C headers under the repository's .cache and
// parses them with modernc.org/cc/v4.
package input

import (
	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/internal/pinned"
)

// Versions are the rdma-core input roots, newest first (internal/pinned.Versions). The
// newest one is the source of the generated Go; the others only date symbols and are
// checked by the layout tests.
var Versions = func() []ir.Version {
	var vs []ir.Version
	for _, v := range pinned.Versions {
		vs = append(vs, ir.Version(v))
	}
	return vs
}()

// ErrMissing is wrapped by every error about absent pinned inputs.
var ErrMissing = pinned.ErrMissing

// Root is the set of include directories of one input version.
type Root struct {
	Version ir.Version
	Include []string // searched first, in order, before the host's system paths
}

// RepoRoot walks up from dir to the repository (pinned.RepoRoot: the directory holding
// inputs.lock).
func RepoRoot(dir string) (string, error) { return pinned.RepoRoot(dir) }

// FindRoot returns the include directories of version v under repo.
func FindRoot(repo string, v ir.Version) (Root, error) {
	r, err := pinned.FindRoot(repo, string(v))
	if err != nil {
		return Root{}, err
	}
	return Root{Version: v, Include: r.Include}, nil
}

// Has reports whether the root ships header h (an include path).
func (r Root) Has(h string) bool { return pinned.Root{Include: r.Include}.Has(h) }

// Find returns the include directory of the root that holds header h.
func (r Root) Find(h string) (string, bool) { return pinned.Root{Include: r.Include}.Find(h) }
