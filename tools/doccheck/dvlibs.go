//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// dvLib is one provider's direct-verbs library: its header, the prefix of its functions,
// its shared object and the generated Go package. A root has it where its pinned headers
// have the header and its guest root ships the library; the harness then includes the
// header and links the library, and goprobe imports the package. A new direct-verbs
// package is one more row.
type dvLib struct {
	Library string // the spec library ("efa")
	Prefix  string // its functions' prefix ("efadv_")
	Header  string // "infiniband/efadv.h"
	SO      string // "libefa.so.1"
	Package string // the generated Go package ("efadv")
	// Helpers are more prefixes of the library's functions: the header's internal helpers
	// ("_devx_" of mlx5dv.h's DEVX_SET); a leading "_" of a prefixed name is allowed anyway
	// (_mlx5dv_query_port, __mlx5dv_create_flow).
	Helpers []string
}

var dvLibs = []dvLib{
	{Library: "efa", Prefix: "efadv_", Header: "infiniband/efadv.h", SO: "libefa.so.1", Package: "efadv"},
	{Library: "hns", Prefix: "hnsdv_", Header: "infiniband/hnsdv.h", SO: "libhns.so.1", Package: "hnsdv"},
	{Library: "ionic", Prefix: "ionic_dv_", Header: "infiniband/ionic_dv.h", SO: "libionic.so.1", Package: "ionicdv"},
	{Library: "mana", Prefix: "manadv_", Header: "infiniband/manadv.h", SO: "libmana.so.1", Package: "manadv"},
	{Library: "mlx4", Prefix: "mlx4dv_", Header: "infiniband/mlx4dv.h", SO: "libmlx4.so.1", Package: "mlx4dv"},
	{Library: "mlx5", Prefix: "mlx5dv_", Header: "infiniband/mlx5dv.h", SO: "libmlx5.so.1", Package: "mlx5dv", Helpers: []string{"_devx_"}},
}

// dvLibOf is the direct-verbs library of function fn, if it is one's.
func dvLibOf(fn string) (dvLib, bool) {
	for _, l := range dvLibs {
		if strings.HasPrefix(strings.TrimLeft(fn, "_"), l.Prefix) {
			return l, true
		}
		for _, h := range l.Helpers {
			if strings.HasPrefix(fn, h) {
				return l, true
			}
		}
	}
	return dvLib{}, false
}

// hasDV reports whether the root has l.
func (r root) hasDV(l dvLib) bool {
	for _, d := range r.DV {
		if d.Library == l.Library {
			return true
		}
	}
	return false
}

// dvFor is what a bed root has of dvLibs: the header among its pinned headers (include,
// relative to repo) and the library in its root's library directory.
func dvFor(repo, name, include string) []dvLib {
	libDir := filepath.Join(repo, rxebed.RootDir(name), "usr/lib/x86_64-linux-gnu")
	if name == rxebed.RootHost {
		libDir = "/usr/lib/x86_64-linux-gnu"
	}
	var out []dvLib
	for _, l := range dvLibs {
		if exists(filepath.Join(repo, include, l.Header)) && exists(filepath.Join(libDir, l.SO)) {
			out = append(out, l)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// dvLinkArgs links the root's direct-verbs libraries: by path in a built root (rootLibs),
// by name (-l:libefa.so.1) on the host's and the installed rdma-core.
func dvLinkArgs(repo, name string, dv []dvLib) []string {
	var args []string
	for _, l := range dv {
		if name == rxebed.RootHost || name == ownRootName {
			args = append(args, "-l:"+l.SO)
		} else {
			args = append(args, filepath.Join(repo, rxebed.RootDir(name), "usr/lib/x86_64-linux-gnu", l.SO))
		}
	}
	return args
}

// isDVWithout reports whether fn is a direct-verbs function whose library is not among
// libs (dvLib.Library names).
func isDVWithout(fn string, libs []string) bool {
	l, ok := dvLibOf(fn)
	if !ok {
		return false
	}
	for _, x := range libs {
		if x == l.Library {
			return false
		}
	}
	return true
}

// libInstalled reports whether the shared object so is in one of the usual library
// directories (the provider libraries come in another package than the headers).
func libInstalled(so string) bool {
	for _, d := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu", "/lib64"} {
		if exists(filepath.Join(d, so)) {
			return true
		}
	}
	return false
}
