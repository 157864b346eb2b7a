// Package cycles is a cheap timestamp for timing loops, as perftest's
// get_cycles is: the CPU's time-stamp counter where there is one (RDTSC
// on amd64), a monotonic clock in nanoseconds elsewhere. A Clock turns
// such stamps into nanoseconds by the wall time that passed between two
// of its own readings, so no rate is read from the CPU or the kernel.
//
// It exists for the benchmarks: under TCG a Go clock read (time.Since,
// through the vDSO) costs about 390 ns in the guest, an RDTSC about 55 ns,
// and the stamp of each iteration sits inside the round trip it times.
package cycles

import "time"

// A Clock relates stamps of Now to wall time: Start it before the stamps
// are taken, Stop it after.
type Clock struct {
	t0, t1 time.Time
	c0, c1 uint64
	nsPer  float64 // nanoseconds per count, from the interval; 0 until Stop
}

// Start begins a Clock's reference interval.
func Start() *Clock {
	c := &Clock{t0: time.Now()}
	c.c0 = Now()
	return c
}

// Stop ends the reference interval and fixes the Clock's rate; Ns may be
// called after it.
func (c *Clock) Stop() {
	c.c1 = Now()
	c.t1 = time.Now()
	if c.c1 > c.c0 {
		c.nsPer = float64(c.t1.Sub(c.t0)) / float64(c.c1-c.c0)
	}
}

// Ns is the stamp s, taken between Start and Stop, in nanoseconds since
// Start. It is 0 for a Clock not stopped, or whose counter did not advance
// (an interval too short to measure).
func (c *Clock) Ns(s uint64) int64 {
	return int64(float64(s-c.c0) * c.nsPer)
}
