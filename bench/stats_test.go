package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHalfRTTs(t *testing.T) {
	// Round trips of 10, 12, 100 and 14 µs: the median (13 µs) ignores the
	// outlier, the mean (34 µs) does not; both are halved.
	posts := []int64{0, 10_000, 22_000, 122_000, 136_000}
	typ, mean := halfRTTs(posts)
	assert.InDelta(t, 6.5, typ, 1e-9)
	assert.InDelta(t, 17.0, mean, 1e-9)
	assert.Equal(t, []int64{0, 10_000, 22_000, 122_000, 136_000}, posts, "posts is left as given")

	typ, mean = halfRTTs([]int64{5})
	assert.Zero(t, typ)
	assert.Zero(t, mean)
}

func TestMedian(t *testing.T) {
	assert.Equal(t, 3.0, median([]int64{9, 3, 1}))
	assert.Equal(t, 2.5, median([]int64{4, 1, 3, 2}))
	assert.Equal(t, 0.0, median(nil))
}
