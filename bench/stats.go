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

// pairedHalfRTTs is halfRTTs for a ping-pong whose rounds alternate
// between two loops in chunks of chunk rounds, the Go loop's first, then
// the C loop's (see BenchmarkSendLat, impl=pairpoll): each loop's typical
// half round trip in µs, over its own rounds, and the paired ratio, Go's
// over C's: for each Go chunk, its median over the mean of the medians of
// the C chunks on either side of it, and of those the median. A round
// trip is a chunk's only if both its posts are: the last of each chunk
// ends with the other loop's first post, after the switch, and is left
// out. Pairing neighbours cancels what moves slowly, as the speed a busy
// host lends the guest does; a chunk lasts milliseconds.
func pairedHalfRTTs(ns func(uint64) int64, posts []uint64, chunk int) (goTyp, cTyp, ratio float64) {
	if chunk < 2 || len(posts) < 2 {
		return 0, 0, 0
	}
	rounds := len(posts) - 1
	var all [2][]int64 // by loop: Go, C
	var meds []float64 // by chunk
	for start := 0; start < rounds; start += chunk {
		end := min(start+chunk, rounds)
		var rtt []int64
		prev := ns(posts[start])
		for i := start; i+1 < end; i++ {
			next := ns(posts[i+1])
			rtt, prev = append(rtt, next-prev), next
		}
		loop := (start / chunk) % 2
		all[loop] = append(all[loop], rtt...)
		meds = append(meds, median(rtt)) // 0 for a chunk of one round
	}
	var ratios []float64
	for k := 0; k < len(meds); k += 2 {
		var sum float64
		var n int
		for _, j := range []int{k - 1, k + 1} {
			if j >= 0 && j < len(meds) && meds[j] > 0 {
				sum += meds[j]
				n++
			}
		}
		if n > 0 && meds[k] > 0 {
			ratios = append(ratios, meds[k]/(sum/float64(n)))
		}
	}
	return median(all[0]) / 2 / 1e3, median(all[1]) / 2 / 1e3, median(ratios)
}
