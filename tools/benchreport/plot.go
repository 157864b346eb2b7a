package main

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotLatency draws send latency (t_typical, the median) by message size,
// goverbs, its C twins and ib_send_lat, each way of waiting, on a log scale (a
// busy-polled round trip is an order of magnitude shorter than one that
// waits for events).
func plotLatency(r *results, path string) error {
	var sizes []int
	for _, impl := range []string{"pairpoll", "pairblocking", "pairnetpoll"} {
		sizes = append(sizes, paramsOf(r, "SendLat", impl, "size", "t_typical_us")...)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if len(sizes) == 0 {
		return fmt.Errorf("no SendLat results to plot")
	}
	p := plot.New()
	p.Title.Text = "RC send latency on rxe (qemu TCG guest)"
	p.X.Label.Text = "message size (bytes, log2)"
	p.Y.Label.Text = "t_typical (µs, half round trip, median, log)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{}
	var lines []any
	for _, impl := range []struct{ name, unit, label string }{
		{"pairpoll", "t_typical_us", "goverbs, busy poll (CQ.PollSpin)"}, {"pairpoll", "c_t_typical_us", "its C twin"},
		{"perftestpoll", "t_typical_us", "ib_send_lat"},
		{"pairblocking", "t_typical_us", "goverbs, CompChannel.WaitBlockingPoll"}, {"pairnetpoll", "t_typical_us", "goverbs, CompChannel.WaitPoll"},
		{"pairblocking", "c_t_typical_us", "their C twin"}, {"perftest", "t_typical_us", "ib_send_lat -e"},
	} {
		var pts plotter.XYs
		for _, s := range sizes {
			if v, ok := r.get("SendLat", impl.name, "size="+strconv.Itoa(s), impl.unit); ok {
				pts = append(pts, plotter.XY{X: float64(s), Y: v})
			}
		}
		if len(pts) > 0 {
			lines = append(lines, impl.label, pts)
		}
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
