package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The targets for the binding on the host CPU: a call's overhead
// over the same work from C at most overTarget empty cgo calls; at
// bigBatch completions or work requests per call, at most bigTarget times
// C (the table judges such a call by the ratio alone).
const (
	overTarget = 1.5
	bigTarget  = 1.05
	bigBatch   = 256
)

// The section of docs/benchmarks.md that -host writes.
const hostBegin, hostEnd = "<!-- host:begin -->", "<!-- host:end -->"

// hostVerb is one benchmark of rdma's host group (rdma/hostbench_test.go)
// and the ways it measures, in the order shown.
type hostVerb struct {
	bench, label, per string // per: what n counts ("completion", "WR"), "" for none
	params            []string
	impls             []hostImpl
}

// hostImpl is one way of doing a verb's work; crossings, where not nil,
// is how many cgo calls it makes per call of n completions or work
// requests (else one).
type hostImpl struct {
	impl, label string
	crossings   func(n int) int
}

// crossingsOf is im's cgo calls per call of n.
func (im hostImpl) crossingsOf(n int) int {
	if im.crossings == nil {
		return 1
	}
	return im.crossings(n)
}

// perGetter: ibv_start_poll, eleven getters per completion (the fields of
// the benchmark's CQ), ibv_next_poll between completions, ibv_end_poll.
func perGetter(n int) int { return 12*n + 1 }

// perCompletion: ibv_start_poll, FastReadWCEx per completion,
// ibv_next_poll between them, ibv_end_poll.
func perCompletion(n int) int { return 2*n + 1 }

// perBuilder: ibv_wr_start, two builders per work request (RDMA write,
// SGE), ibv_wr_complete.
func perBuilder(n int) int { return 2*n + 2 }

var (
	// implC2 is the C loop measured again beside itself: its ratio is the
	// measurement's own spread (1 on a quiet machine), shown without a
	// target.
	implC2   = hostImpl{"c2", "C loop, again (the measurement's own spread)", nil}
	implIBV  = hostImpl{"ibv", "ibv, checked binding", nil}
	implFast = hostImpl{"fast", "ibv fast path", nil}
)

// hostVerbs are the benchmarks and ways the report shows, and -check
// requires.
var hostVerbs = []hostVerb{
	{"HostPollCQ", "poll_cq", "completion", []string{"n=0", "n=1", "n=16", "n=256"},
		[]hostImpl{implC2, implIBV, implFast, {"rdma", "rdma CQ.Poll", nil}, {"rdmabatch", "rdma CQ.PollBatch", nil}}},
	{"HostReqNotifyCQ", "req_notify_cq", "", []string{""},
		[]hostImpl{implC2, implIBV, implFast, {"rdma", "rdma (CQ re-arm, as Wait does)", nil}}},
	{"HostPostSend", "post_send", "WR", []string{"n=1", "n=16", "n=256"},
		[]hostImpl{implC2, implIBV, implFast, {"rdma", "rdma QP.PostSend", nil}}},
	{"HostPostRecv", "post_recv", "WR", []string{"n=1", "n=16", "n=256"},
		[]hostImpl{implC2, implIBV, implFast, {"rdma", "rdma QP.PostRecv", nil}}},
	{"HostPostSRQRecv", "post_srq_recv", "WR", []string{"n=1", "n=16", "n=256"},
		[]hostImpl{implC2, implIBV, implFast, {"rdma", "rdma SRQ.PostRecv", nil}}},
	{"HostPollCQEx", "extended CQ, start_poll … end_poll", "completion", []string{"n=1", "n=16", "n=256"},
		[]hostImpl{implC2, {"ibv", "ibv, checked getters", perGetter}, {"fast", "ibv fast path, a call per getter", perGetter},
			{"fastread", "ibv fast path, FastReadWCEx", perCompletion}, {"fastbatch", "ibv.FastPollCQEx", nil}, {"rdma", "rdma CQ.PollEx", nil}}},
	{"HostWR", "extended QP, wr_start … wr_complete", "WR", []string{"n=1", "n=16", "n=256"},
		[]hostImpl{implC2, {"ibv", "ibv, checked builders (rdma's QP.Ex)", perBuilder}, {"fast", "ibv fast path", perBuilder}}},
}

// hostN is the count of a parameter n=N, 0 for none.
func hostN(param string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(param, "n="))
	return n
}

// reportHost is the table of the host group: per verb, batch and way, the
// time per call and per completion or work request, the C loop's, the
// ratio and the overhead per cgo crossing in empty cgo calls (each the
// median of the passes' medians of rounds), the targets and the
// allocations.
func reportHost(r *results) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "| verb | per call | way | ns/call | ns per completion or WR | C loop, ns/call | ratio to C | ratio by pass | crossings | overhead per crossing, empty cgo calls | target | met | allocs/call |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	rows := 0
	for _, v := range hostVerbs {
		for _, p := range v.params {
			c, ok := r.get(v.bench, "", p, "c-ns/call")
			if !ok {
				continue
			}
			n := hostN(p)
			batch := "1"
			switch {
			case v.bench == "HostPollCQ" && n == 0:
				batch = "empty CQ, up to 16"
			case v.per != "":
				batch = fmt.Sprintf("%d %s", n, v.per)
				if n > 1 {
					batch += "s"
				}
			}
			for _, im := range v.impls {
				g, ok := r.get(v.bench, "", p, im.impl+"-ns/call")
				if !ok {
					continue
				}
				perUnit := "—"
				if n > 0 {
					perUnit = num(g / float64(n))
				}
				xk := key{v.bench, "", p, im.impl + "-x"}
				ratio, byPass := r.median[xk], "—"
				if runs := r.runs[xk]; len(runs) > 1 {
					byPass = fmt.Sprintf("%.2f–%.2f", slices.Min(runs), slices.Max(runs))
				}
				// The overhead over the C loop in empty cgo calls, per
				// crossing: the target is per call of the verbs.
				ovk := key{v.bench, "", p, im.impl + "-over"}
				cross := float64(im.crossingsOf(n))
				over := r.median[ovk] / cross
				overS := fmt.Sprintf("%.2f", over)
				if runs := r.runs[ovk]; len(runs) > 1 {
					overS += fmt.Sprintf(" (%.2f–%.2f)", slices.Min(runs)/cross, slices.Max(runs)/cross)
				}
				// A call of bigBatch: its overhead is within the
				// measurement's spread (the C loop against itself moves by
				// a few per cent of thousands of ns, some empty cgo calls),
				// so the ratio is its target.
				target, met := fmt.Sprintf("≤ %.1f cgo", overTarget), yesNo(over <= overTarget)
				if n == bigBatch {
					target, met = fmt.Sprintf("≤ %.2f×", bigTarget), yesNo(ratio <= bigTarget)
				}
				if im.impl == implC2.impl {
					target, met = "—", "—"
				}
				allocs := "—"
				if runs := r.runs[key{v.bench, "", p, im.impl + "-allocs/call"}]; len(runs) > 0 {
					allocs = strconv.FormatFloat(slices.Max(runs), 'f', -1, 64)
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.3f | %s | %d | %s | %s | %s | %s |\n",
					v.label, batch, im.label, num(g), perUnit, num(c), ratio, byPass, int(cross), overS, target, met, allocs)
				rows++
			}
		}
	}
	if rows == 0 {
		return "", fmt.Errorf("no host results")
	}
	fmt.Fprintln(&b)
	var floors []float64
	for k, vs := range r.runs {
		if k.unit == "cgo-ns/call" {
			floors = append(floors, vs...)
		}
	}
	passes := 0
	for k, vs := range r.runs {
		if k.unit == "c-ns/call" {
			passes = max(passes, len(vs))
		}
	}
	if len(floors) > 0 {
		s := fmt.Sprintf("The floor, an empty cgo call (no argument), in every group's rounds: %s ns (median; %s–%s over groups and passes)",
			num(median(floors)), num(slices.Min(floors)), num(slices.Max(floors)))
		if a, ok := r.get("HostCgo", "", "", "args-ns/call"); ok {
			s += fmt.Sprintf("; shaped as ibv's fast-path trampolines (two integers and a pointer to pointer-free memory, noescape, nocallback): %s ns", num(a))
		}
		fmt.Fprintf(&b, "%s.\n\n", s)
	}
	fmt.Fprintf(&b, "Medians of %d passes. Host CPU: %s; measured by `make bench-host`.\n", passes, orDash(r.config["cpu"]))
	return b.String(), nil
}

// checkHost fails unless every way of every verb and batch of hostVerbs
// was measured, with the C loop and the floor beside it, and none
// allocated: make bench-host-smoke's verdict (no time is judged).
func checkHost(r *results) error {
	var errs []string
	for _, v := range hostVerbs {
		for _, p := range v.params {
			for _, impl := range append([]string{"c", "cgo"}, implNames(v.impls)...) {
				if _, ok := r.get(v.bench, "", p, impl+"-ns/call"); !ok {
					errs = append(errs, fmt.Sprintf("Benchmark%s %s impl=%s: not measured", v.bench, p, impl))
					continue
				}
				if impl == "c" || impl == "cgo" {
					continue
				}
				for _, a := range r.runs[key{v.bench, "", p, impl + "-allocs/call"}] {
					if a != 0 {
						errs = append(errs, fmt.Sprintf("Benchmark%s %s impl=%s: %v allocations per call", v.bench, p, impl, a))
						break
					}
				}
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("host group:\n\t%s", strings.Join(errs, "\n\t"))
	}
	return nil
}

func implNames(ims []hostImpl) []string {
	var out []string
	for _, im := range ims {
		out = append(out, im.impl)
	}
	return out
}

// plotHost draws, per verb with batches, each way's time against the C
// loop's (the median of the rounds' ratios) by the batch, both on log
// scales: where a way's line meets 1, the C loop's, the binding costs
// nothing.
func plotHost(r *results, path string) error {
	var plots []*plot.Plot
	for _, v := range hostVerbs {
		if v.per == "" {
			continue
		}
		p := plot.New()
		p.Title.Text = v.label
		p.X.Label.Text = v.per + "s per call (log)"
		p.Y.Label.Text = "time / the C loop's (log)"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		var lines []any
		for _, im := range v.impls {
			var pts plotter.XYs
			for _, prm := range v.params {
				n := hostN(prm)
				if x, ok := r.get(v.bench, "", prm, im.impl+"-x"); ok && n > 0 && x > 0 {
					pts = append(pts, plotter.XY{X: float64(n), Y: x})
				}
			}
			if len(pts) > 0 {
				lines = append(lines, im.label, pts)
			}
		}
		if len(lines) == 0 {
			continue
		}
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return err
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return fmt.Errorf("no host results to plot")
	}
	const cols = 3
	rowsN := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rowsN)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, p := range plots {
		grid[i/cols][i%cols] = p
	}
	img := vgsvg.New(15*vg.Inch, vg.Length(rowsN)*4.5*vg.Inch)
	dc := draw.New(img)
	cs := plot.Align(grid, draw.Tiles{Rows: rowsN, Cols: cols, PadX: vg.Inch / 4, PadY: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8}, dc)
	for i, row := range grid {
		for j, p := range row {
			if p != nil {
				p.Draw(cs[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
