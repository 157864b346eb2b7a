//go:build linux

package rxetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// libDirs are where the dynamic loader looks for libibverbs.so.1 on the roots (Debian's
// multiarch directory first), after LD_LIBRARY_PATH.
var libDirs = []string{"usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu", "usr/lib64", "lib64", "usr/lib", "lib"}

// InstalledRelease tells which rdma-core the root at dir ("/" in the guest) has installed:
// its version ("56.1") and major release (56), from the file libibverbs.so.1 leads to.
// rdma-core names that file libibverbs.so.1.<ABI minor>.<rdma-core version>
// (libibverbs.so.1.11.33.2, libibverbs.so.1.14.44.0, libibverbs.so.1.14.56.1,
// libibverbs.so.1.18.65.0): the library itself says which release it is, whatever the
// distribution's package calls it (the bed's test checks it against dpkg's).
func InstalledRelease(dir string) (version string, major int, err error) {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, strings.TrimPrefix(d, "/"))
		}
	}
	for _, d := range append(dirs, libDirs...) {
		link := filepath.Join(dir, d, "libibverbs.so.1")
		if _, err := os.Lstat(link); err != nil {
			continue
		}
		target, err := filepath.EvalSymlinks(link)
		if err != nil {
			return "", 0, fmt.Errorf("%s: %w", link, err)
		}
		return releaseOf(filepath.Base(target))
	}
	return "", 0, fmt.Errorf("no libibverbs.so.1 in %s (is rdma-core installed?)", strings.Join(libDirs, ", "))
}

// releaseOf reads the rdma-core version out of the name of libibverbs' file.
func releaseOf(name string) (string, int, error) {
	rest, ok := strings.CutPrefix(name, "libibverbs.so.1.")
	abi, version, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || abi == "" {
		return "", 0, fmt.Errorf("libibverbs.so.1 leads to %q, not libibverbs.so.1.<ABI minor>.<rdma-core version>", name)
	}
	if _, err := strconv.Atoi(abi); err != nil {
		return "", 0, fmt.Errorf("libibverbs.so.1 leads to %q: ABI minor %q is not a number", name, abi)
	}
	majorS, minorS, _ := strings.Cut(version, ".")
	major, err := strconv.Atoi(majorS)
	if err != nil || major <= 0 {
		return "", 0, fmt.Errorf("libibverbs.so.1 leads to %q: release %q is not a number", name, majorS)
	}
	if _, err := strconv.Atoi(minorS); err != nil {
		return "", 0, fmt.Errorf("libibverbs.so.1 leads to %q: version %q is not major.minor", name, version)
	}
	return version, major, nil
}

// Releases of rdma-core at which the soft-RoCE provider (librxe) changed what a test sees;
// tests compare Env.Release with them, never the root's name.
const (
	// RxeExtended: librxe implements ibv_create_cq_ex and ibv_create_qp_ex with the extended
	// CQ and QP operations (linux-rdma/rdma-core#878; providers/rxe/rxe.c has them from v34.0). Before
	// it (33) both calls fail with EOPNOTSUPP.
	RxeExtended = 34
	// RxeRecvResetRefused: librxe's post_recv refuses a QP in RESET with EINVAL (the
	// specification's C10-97.2.1), from rdma-core 40; before it queues the receive.
	RxeRecvResetRefused = 40
	// RxeMW: librxe allocates and binds memory windows (ibv_alloc_mw), from rdma-core 36;
	// before, libibverbs fails the call with EOPNOTSUPP.
	RxeMW = 36
)
