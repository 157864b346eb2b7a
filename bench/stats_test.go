package bench

import (
	"math"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
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
	assert.Equal(t, 0.0, median[int64](nil))
	assert.Equal(t, 1.5, median([]float64{2, 1}))
}

func TestPairedHalfRTTs(t *testing.T) {
	// Chunks of 3 rounds, Go's first: Go 10 10 | C 8 8 | Go 12 12 | C 10
	// 10 | Go 11 (the last chunk short), in µs round trips, each chunk's
	// last round (1000: the switch) left out. Go's median 11, C's 9.
	posts := postsOf(10, 10, 1000, 8, 8, 1000, 12, 12, 1000, 10, 10, 1000, 11, 1000)
	ns := func(s uint64) int64 { return int64(s) * 1000 }
	goTyp, cTyp, ratio := pairedHalfRTTs(ns, posts, 3, 0)
	assert.InDelta(t, 5.5, goTyp, 1e-9, "median of 10 10 12 12 11, halved")
	assert.InDelta(t, 4.5, cTyp, 1e-9, "median of 8 8 10 10, halved")
	assert.InDelta(t, 11.0/9, ratio, 1e-9)

	// Only Go's first chunk: no C rounds, no ratio.
	goTyp, cTyp, ratio = pairedHalfRTTs(ns, posts[:4], 3, 0)
	assert.InDelta(t, 5.0, goTyp, 1e-9)
	assert.Zero(t, cTyp)
	assert.Zero(t, ratio)

	goTyp, cTyp, ratio = pairedHalfRTTs(ns, posts, 1, 0)
	assert.Zero(t, goTyp+cTyp+ratio, "a chunk of one round has no round trip of its own")

	// Chunks of 4, the first round of each left out (the 100s: the
	// switch): Go 10 10 | C 8 8 | Go 12 12 | C 10 10.
	posts = postsOf(100, 10, 10, 1000, 100, 8, 8, 1000, 100, 12, 12, 1000, 100, 10, 10, 1000)
	goTyp, cTyp, ratio = pairedHalfRTTs(ns, posts, 4, 1)
	assert.InDelta(t, 5.5, goTyp, 1e-9, "median of 10 10 12 12, halved")
	assert.InDelta(t, 4.5, cTyp, 1e-9, "median of 8 8 10 10, halved")
	assert.InDelta(t, 11.0/9, ratio, 1e-9)
	goTyp, cTyp, ratio = pairedHalfRTTs(ns, posts, 4, 3)
	assert.Zero(t, goTyp+cTyp+ratio, "no round of a chunk of 4 is left when the first 3 are skipped")
}

// postsOf is the stamps of posts rtts apart, from 0.
func postsOf(rtts ...uint64) []uint64 {
	posts := []uint64{0}
	for _, r := range rtts {
		posts = append(posts, posts[len(posts)-1]+r)
	}
	return posts
}

func TestPairChunkFor(t *testing.T) {
	assert.Equal(t, 20, pairChunkFor(100), "a round trip of 200 µs: 4 ms is 20 rounds")
	assert.Equal(t, pairChunkMax, pairChunkFor(1), "capped")
	assert.Equal(t, pairChunkMin, pairChunkFor(1000), "at least")
	assert.Equal(t, pairChunkMin, pairChunkFor(0), "no calibration")
	assert.Equal(t, pairChunkMin, pairChunkFor(math.NaN()))
}
