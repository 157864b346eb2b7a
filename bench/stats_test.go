package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHalfRTTs(t *testing.T) {
	// Stamps of a counter at 2 GHz, turned into ns by ns: round trips of
	// 10, 12, 100 and 14 µs. The median (13 µs) ignores the outlier, the
	// mean (34 µs) does not; both are halved.
	ns := func(s uint64) int64 { return int64(s-1000) / 2 }
	posts := []uint64{1000, 21_000, 45_000, 245_000, 273_000}
	typ, mean := halfRTTs(ns, posts)
	assert.InDelta(t, 6.5, typ, 1e-9)
	assert.InDelta(t, 17.0, mean, 1e-9)
	assert.Equal(t, []uint64{1000, 21_000, 45_000, 245_000, 273_000}, posts, "posts is left as given")

	typ, mean = halfRTTs(ns, []uint64{5})
	assert.Zero(t, typ)
	assert.Zero(t, mean)
}

func TestMedian(t *testing.T) {
	assert.Equal(t, 3.0, median([]int64{9, 3, 1}))
	assert.Equal(t, 2.5, median([]int64{4, 1, 3, 2}))
	assert.Equal(t, 0.0, median(nil))
}
