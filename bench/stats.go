package bench

import "slices"

// halfRTTs turns the times at which a ping-pong posted each ping (stamps,
// in order, that ns turns into nanoseconds: a cycles.Clock's Ns) into its
// typical and mean half round trip in µs, as ib_send_lat reports t_typical
// and t_avg: each round trip is the time from one post to the next;
// typical is the median. It sorts nothing in place: posts stays as given.
func halfRTTs(ns func(uint64) int64, posts []uint64) (typical, mean float64) {
	if len(posts) < 2 {
		return 0, 0
	}
	rtt := make([]int64, len(posts)-1)
	var sum int64
	prev := ns(posts[0])
	for i := range rtt {
		next := ns(posts[i+1])
		rtt[i], prev = next-prev, next
		sum += rtt[i]
	}
	return median(rtt) / 2 / 1e3, float64(sum) / float64(len(rtt)) / 2 / 1e3
}

// median of xs (sorted in place); 0 for none.
func median[T int64 | float64](xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return float64(xs[n/2])
	}
	return (float64(xs[n/2-1]) + float64(xs[n/2])) / 2
}

// The paired ping-pong's chunks (BenchmarkSendLat, impl=pairpoll). How
// the two loops are interleaved moves their ratio by more than the 2 %
// the comparison is for, under TCG with the host at about half speed:
// chunks of 100 rounds (about 19 ms), each loop's own, put the Go loop at
// 1.03–1.05× its C twin; chunks of 30 rounds at 1.018×; chunks of 30 with
// both ends yielding the processor (runtime.Gosched) at each switch at
// 1.002× (docs/notes/2026-12-02-rxe-ring-path.md, "Busy polling"). The C twin's chunk is one cgo
// call, and the Go runtime acts on a goroutine that has run 10 ms since it
// was last scheduled: in Go code it preempts it, in a cgo call it retakes
// its P and hands it to another thread. A chunk of a few milliseconds
// that starts with a yield never meets either, so each loop's rounds are
// its own, the switch aside (the first pairSkip rounds of each chunk,
// left out). A Go program that only polls meets the preemption, every 10
// ms or so; Go chunks of 300 rounds, so preempted, against these C chunks
// measured 1.001 against 1.006 (docs/notes/2026-12-02-rxe-ring-path.md). BenchmarkPairCheck pairs
// each loop with itself the same way.
const (
	pairChunkTime = 4e3 // µs, under the runtime's 10 ms at up to 2.5x slower
	pairChunkMin  = 6   // rounds
	pairChunkMax  = 100 // rounds
)

// pairChunkFor is the rounds of a chunk of about pairChunkTime, for a
// ping-pong whose half round trip is halfRTT µs (a calibration run's
// typical), within [pairChunkMin, pairChunkMax].
func pairChunkFor(halfRTT float64) int {
	if !(halfRTT > 0) {
		return pairChunkMin
	}
	return int(min(max(pairChunkTime/(2*halfRTT), pairChunkMin), pairChunkMax))
}

// pairedHalfRTTs is halfRTTs for a ping-pong whose rounds alternate
// between two loops in chunks of chunk rounds, the Go loop's first, then
// the C loop's (see BenchmarkSendLat, impl=pairpoll): each loop's typical
// half round trip in µs, the median over its own rounds, and their ratio,
// Go's over C's. A round trip is a chunk's only if both its posts are and
// it is not one of the chunk's first skip: the last of each chunk ends
// with the other loop's first post, after the switch, and is left out,
// and so are the first skip rounds, which pay for the switch. With chunks
// of milliseconds both loops sample the host's speed, which moves over
// seconds, alike. (The ratio is of the medians of all rounds, not a median
// of ratios chunk by chunk: a chunk's median over a few rounds is skewed,
// and against the mean of its neighbours' it put even a loop paired with
// itself 2 % fast at chunks of 7 rounds.)
func pairedHalfRTTs(ns func(uint64) int64, posts []uint64, chunk, skip int) (goTyp, cTyp, ratio float64) {
	if chunk < 2 || len(posts) < 2 {
		return 0, 0, 0
	}
	var all [2][]int64 // by loop: Go, C
	rounds := len(posts) - 1
	for start := 0; start < rounds; start += chunk {
		end := min(start+chunk, rounds)
		loop := (start / chunk) % 2
		for i := start + max(skip, 0); i+1 < end; i++ {
			all[loop] = append(all[loop], ns(posts[i+1])-ns(posts[i]))
		}
	}
	goTyp, cTyp = median(all[0])/2/1e3, median(all[1])/2/1e3
	if goTyp > 0 && cTyp > 0 {
		ratio = goTyp / cTyp
	}
	return goTyp, cTyp, ratio
}
