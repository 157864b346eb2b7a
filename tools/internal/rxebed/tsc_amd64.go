//go:build linux

package rxebed

import (
	"time"

	"github.com/goverbs/goverbs/internal/cycles"
)

// hostTSCkHz measures the host's TSC rate against its monotonic clock
// (20 ms). Under TCG the guest's RDTSC reads the host's TSC, but the guest
// kernel cannot calibrate it (no PIT/HPET reference without ACPI) and falls
// back to the jiffies clocksource: 4 ms time resolution, every clock read a
// system call. Passing the rate (tsc_early_khz) gives the guest the TSC
// clocksource, as on hardware; perftest needs it to time anything.
func hostTSCkHz() int64 {
	t0, c0 := time.Now(), cycles.Now()
	time.Sleep(20 * time.Millisecond)
	c1, el := cycles.Now(), time.Since(t0)
	if c1 <= c0 || el <= 0 {
		return 0
	}
	return int64(float64(c1-c0) / el.Seconds() / 1000)
}
