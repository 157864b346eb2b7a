//go:build !linux || !cgo

package dl

import (
	"runtime"
	"unsafe"
)

// Supported is whether this build can call C libraries: Linux with cgo. This one
// cannot: every library is missing, with an error matching ErrNotSupported.
const Supported = false

// unsupported is why no library opens in this build.
var unsupported = func() string {
	s := "goverbs calls rdma-core on Linux with cgo only; this program is built for " + runtime.GOOS + "/" + runtime.GOARCH
	if runtime.GOOS == "linux" {
		s += " with CGO_ENABLED=0" // this file builds on Linux only without cgo
	}
	return s
}()

func sysOpen(string) (unsafe.Pointer, string)      { return nil, unsupported }
func sysPath(unsafe.Pointer) string                { return "" }
func sysSym(unsafe.Pointer, string) unsafe.Pointer { return nil }
