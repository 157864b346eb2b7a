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
func median(xs []int64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return float64(xs[n/2])
	}
	return float64(xs[n/2-1]+xs[n/2]) / 2
}
