package cycles

import (
	"testing"
	"time"
)

// TestClock checks that stamps become the wall time between them: stamps
// keep their order, the Clock's own end reads as the wall time of its
// interval, and a sleep of 20 ms between two stamps as at least 20 ms.
func TestClock(t *testing.T) {
	c := Start()
	a := Now()
	time.Sleep(20 * time.Millisecond)
	b := Now()
	c.Stop()
	if b <= a {
		t.Fatalf("stamps out of order: %d then %d", a, b)
	}
	na, nb := c.Ns(a), c.Ns(b)
	if na < 0 || nb <= na {
		t.Fatalf("Ns: %d then %d", na, nb)
	}
	// The stop reads as the interval's wall time, and the sleep inside it
	// as at least the sleep.
	if whole, want := time.Duration(c.Ns(c.c1)), c.t1.Sub(c.t0); whole < want-time.Microsecond || whole > want+time.Microsecond {
		t.Fatalf("the interval measured %v, its wall time %v", whole, want)
	}
	if d := time.Duration(nb - na); d < 20*time.Millisecond {
		t.Fatalf("a 20 ms sleep measured %v", d)
	}
}

// TestClockUnmeasured: a Clock never stopped scales nothing.
func TestClockUnmeasured(t *testing.T) {
	c := Start()
	if got := c.Ns(Now()); got != 0 {
		t.Fatalf("Ns before Stop = %d, want 0", got)
	}
}
