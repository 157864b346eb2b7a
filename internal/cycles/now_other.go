//go:build !amd64

package cycles

import "time"

var origin = time.Now()

// Now is the monotonic time since the package's start, in nanoseconds.
func Now() uint64 { return uint64(time.Since(origin)) }
