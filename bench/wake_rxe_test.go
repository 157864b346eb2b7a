//go:build rxe

package bench

import (
	"testing"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// BenchmarkWake is the cost, in the guest, of making a wait cancellable
// with poll(2), what rdma.CompChannel.WaitBlocking's waker spares it: two
// threads of one C program wake each other b.N times through eventfds,
// "read" blocked in read(2) (as ib_send_lat -e waits, and WaitBlocking
// with its waker), "poll" in poll(2) on the eventfd and a cancellation
// eventfd, then a non-blocking read(2) (as WaitBlocking waits without a
// waker). round_trip_us is the median round trip: two wakes.
func BenchmarkWake(b *testing.B) {
	rxetest.Guest(b)
	for _, w := range []struct {
		name   string
		polled bool
	}{{"read", false}, {"poll", true}} {
		b.Run("wait="+w.name, func(b *testing.B) {
			rt := make([]int64, b.N)
			if err := wakeRoundTrips(w.polled, rt[:min(b.N, 1000)]); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ResetTimer()
			if err := wakeRoundTrips(w.polled, rt); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(median(rt)/1e3, "round_trip_us")
		})
	}
}
