//go:build linux

package rxebed

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Building for a root whose glibc is older than the host's.
//
// A cgo binary built on the host needs the host's glibc (2.36): pthread_create, dlopen and
// __libc_start_main carry the version GLIBC_2.34, which bullseye's 2.31 does not define, so
// such a binary does not start there. Linked against the root's own glibc instead, the same
// binary needs only versions the root has, and runs on every newer root as well. The host's
// gcc does that with the root as its sysroot (the root holds libc6-dev for it, see
// tools/inputs/roots.txt), given the root's start files and libraries ahead of its own
// (-B, -L: gcc searches its own prefix first, and there lie the host's). The other headers
// a package includes come from pinned inputs rather than from the root: rdma-core 44's (the
// host's libibverbs-dev: the same declarations as a host build) and the pinned kernel's
// UAPI headers (the root's are Linux 5.10's, which lack struct rxe_queue_buf).

const (
	libDir       = "usr/lib/x86_64-linux-gnu"
	sysrootMark  = libDir + "/libc_nonshared.a" // libc6-dev is installed
	rdmaCoreInc  = ".cache/inputs/rdma-core-44/usr/include"
	uapiInc      = ".cache/inputs/linux-uapi/usr/include"
	hostCompiler = "gcc"
)

// CCArgs returns the compiler and the flags that build C code for root: the host's gcc
// with no flags where a host build runs there (the host root, and roots whose glibc is
// newer than the host's), and with the root as sysroot where the root is one (it has
// libc6-dev).
func CCArgs(repo, root string) ([]string, error) {
	if !slices.Contains(Roots, root) {
		return nil, bedErr(ExitUsage, nil, "unknown root %q (want one of %s)", root, strings.Join(Roots, ", "))
	}
	if root == RootHost {
		return []string{hostCompiler}, nil
	}
	dir := resolved(filepath.Join(repo, RootDir(root)))
	if _, err := os.Stat(filepath.Join(dir, rootStamp)); err != nil {
		return nil, bedErr(ExitNoRoot, err, "the %s root is not built in %s (run make inputs)", root, RootDir(root))
	}
	if _, err := os.Stat(filepath.Join(dir, sysrootMark)); err != nil {
		return []string{hostCompiler}, nil
	}
	args := []string{hostCompiler, "--sysroot=" + dir,
		"-B" + filepath.Join(dir, libDir) + "/",
		"-L" + filepath.Join(dir, libDir), "-L" + filepath.Join(dir, "lib/x86_64-linux-gnu")}
	for _, inc := range []string{rdmaCoreInc, uapiInc, uapiInc + "/x86_64-linux-gnu"} {
		abs := resolved(filepath.Join(repo, inc))
		if _, err := os.Stat(abs); err != nil {
			return nil, bedErr(ExitNoKernel, err, "the pinned headers %s are missing (run make inputs)", inc)
		}
		args = append(args, "-isystem", abs)
	}
	return args, nil
}

// checkRuns fails when the host binary bin needs a symbol version (GLIBC_2.34, ...) that
// the library of the same name in the root at dir does not define: the binary would not
// start there. Libraries the root lacks are left to the guest's loader to report.
func checkRuns(bin, dir, root string) error {
	f, err := elf.Open(bin)
	if err != nil {
		return nil // not an ELF file (a script, a guest-only path): nothing to check
	}
	defer f.Close()
	needs, err := f.DynamicVersionNeeds()
	if err != nil || len(needs) == 0 {
		return nil // static, or no versioned dependencies
	}
	for _, n := range needs {
		have, ok := definedVersions(dir, n.Name)
		if !ok {
			continue
		}
		for _, d := range n.Needs {
			if !have[d.Dep] {
				return bedErr(ExitCommandFailed, nil, "%s needs %s from %s, which the %s root's %s does not define (its glibc is older than the host's): build it for that root with CC=$PWD/bin/cc-%s (make bin/cc-%s; docs/testing.md, The test bed)", bin, d.Dep, n.Name, root, n.Name, root, root)
			}
		}
	}
	return nil
}

// definedVersions lists the symbol versions the library lib of the root at dir defines.
func definedVersions(dir, lib string) (map[string]bool, bool) {
	for _, d := range []string{"lib/x86_64-linux-gnu", libDir} {
		f, err := elf.Open(resolvedIn(dir, filepath.Join(d, lib)))
		if err != nil {
			continue
		}
		vs, err := f.DynamicVersions()
		f.Close()
		if err != nil {
			return nil, false
		}
		have := map[string]bool{}
		for _, v := range vs {
			have[v.Name] = true
		}
		return have, true
	}
	return nil, false
}

// resolvedIn follows the links of path inside the root at dir, as the guest would: a
// root's absolute links name paths inside the root.
func resolvedIn(dir, path string) string {
	p := filepath.Join(dir, path)
	for range 8 {
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if filepath.IsAbs(t) {
			p = filepath.Join(dir, t)
		} else {
			p = filepath.Join(filepath.Dir(p), t)
		}
	}
	return p
}
