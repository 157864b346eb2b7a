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

// The targets for many connections: set-up time per connection at
// most setupTarget times cmtime's; at most GOMAXPROCS + threadsOver OS
// threads while every connection's goroutine waits.
const (
	setupTarget = 1.10
	threadsOver = 10
)

// The section of docs/benchmarks.md that -conns writes.
const connsBegin, connsEnd = "<!-- conns:begin -->", "<!-- conns:end -->"

// reportConns is the many-connections table (BenchmarkConns): by number
// of connections, set-up time against cmtime's, threads and memory while
// all wait, and the aggregate write rate against the C twin on the same
// QPs.
func reportConns(r *results) (string, error) {
	ns := paramsOf(r, "Conns", "go", "n", "setup_us/conn")
	if len(ns) == 0 {
		return "", fmt.Errorf("no Conns results")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| connections | set-up, rdma.Dial (µs/conn) | cmtime (µs/conn) | ratio | ratio by run | ratio of best runs | target | met | OS threads while all wait | target | met | RSS per conn | Go heap per conn | stacks per conn | fds per conn |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range ns {
		p := "n=" + strconv.Itoa(n)
		g, _ := r.get("Conns", "go", p, "setup_us/conn")
		ratio, byRun, best, target, met, ref := "—", "—", "—", "—", "—", "—"
		gk, ck := key{"Conns", "go", p, "setup_us/conn"}, key{"Conns", "cmtime", p, "setup_us/conn"}
		if c, ok := r.median[ck]; ok && c > 0 {
			ref, ratio, target = num(c), fmt.Sprintf("%.3f", g/c), fmt.Sprintf("≤ %.2f×", setupTarget)
			ok := g/c <= setupTarget
			if lo, hi, have := r.runRatios(gk, ck); have {
				byRun = fmt.Sprintf("%.2f–%.2f", lo, hi)
			}
			if bst, have := r.bestRatio(gk, ck, true); have {
				best = fmt.Sprintf("%.3f", bst)
				ok = ok && bst <= setupTarget
			}
			met = yesNo(ok)
		}
		threads, tTarget, tMet := "—", "—", "—"
		if th, ok := r.get("Conns", "go", p, "threads"); ok {
			threads = count(th)
			var at []string
			if before, ok := r.get("Conns", "go", p, "threads_before"); ok {
				at = append(at, count(before)+" before dialing")
			}
			if dialed, ok := r.get("Conns", "go", p, "threads_dialed"); ok {
				at = append(at, count(dialed)+" once dialed")
			}
			if len(at) > 0 {
				threads += " (" + strings.Join(at, ", ") + ")"
			}
			if gm, ok := r.get("Conns", "go", p, "gomaxprocs"); ok {
				tTarget, tMet = fmt.Sprintf("≤ %s", count(gm+threadsOver)), yesNo(th <= gm+threadsOver)
			}
		}
		mem := func(unit, suffix string) string {
			if v, ok := r.get("Conns", "go", p, unit); ok {
				return num(v) + " " + suffix
			}
			return "—"
		}
		fds := "—"
		if v, ok := r.get("Conns", "go", p, "fds/conn"); ok {
			fds = count(v)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", n, num(g), ref, ratio, byRun, best, target, met,
			threads, tTarget, tMet, mem("rss_KiB/conn", "KiB"), mem("heap_B/conn", "B"), mem("stack_B/conn", "B"), fds)
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "| connections | 64 B RDMA-write rate, goroutine per connection (Mpps) | one goroutine polling every CQ (Mpps) | C twin, one thread, same QPs (Mpps) | ratio, goroutine per connection | ratio by run | ratio, one goroutine polling | ratio by run | CPU per write (µs): goroutine per connection, polling, C twin |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range ns {
		p := "n=" + strconv.Itoa(n)
		g, ok1 := r.get("Conns", "go", p, "Mpps")
		c, ok2 := r.get("Conns", "go", p, "c_Mpps")
		if !ok1 || !ok2 {
			continue
		}
		ratio := func(unit string) (string, string) {
			k := key{"Conns", "go", p, unit}
			v, ok := r.median[k]
			if !ok {
				return "—", "—"
			}
			byRun := "—"
			if runs := r.runs[k]; len(runs) > 1 {
				byRun = fmt.Sprintf("%.2f–%.2f", slices.Min(runs), slices.Max(runs))
			}
			return fmt.Sprintf("%.3f", v), byRun
		}
		rate, rateByRun := ratio("rate_ratio")
		poll, pollByRun := ratio("poll_ratio")
		pollV := "—"
		if v, ok := r.get("Conns", "go", p, "poll_Mpps"); ok {
			pollV = num(v)
		}
		var cpu []string
		for _, unit := range []string{"cpu_ns/write", "poll_cpu_ns/write", "c_cpu_ns/write"} {
			if v, ok := r.get("Conns", "go", p, unit); ok {
				cpu = append(cpu, num(v/1e3))
			} else {
				cpu = append(cpu, "—")
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", n, num(g), pollV, num(c), rate, rateByRun, poll, pollByRun, strings.Join(cpu, ", "))
	}
	fmt.Fprintln(&b)
	var warm []string
	for _, n := range ns {
		if runs := r.runs[key{"Conns", "go", "n=" + strconv.Itoa(n), "warmup_us"}]; len(runs) > 0 {
			warm = append(warm, fmt.Sprintf("%s–%s ms", num(slices.Min(runs)/1e3), num(slices.Max(runs)/1e3)))
		}
	}
	if len(warm) > 0 {
		fmt.Fprintf(&b, "The warm-up connection before each set-up (not counted): %s, by number of connections in the order above.\n\n", strings.Join(warm, ", "))
	}
	passes := len(r.runs[key{"Conns", "go", "n=" + strconv.Itoa(ns[0]), "setup_us/conn"}])
	fmt.Fprintf(&b, "Medians of %d passes. Guest CPU: %s; measured by `make bench-conns` (sid root, rdma-core 65, qemu TCG).\n", passes, orDash(r.config["cpu"]))
	return b.String(), nil
}

// count shows a count (threads, descriptors per connection) as it is,
// with its fraction where a median of passes has one.
func count(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// plotConns draws, side by side, the set-up time per connection (rdma.Dial
// and cmtime) and the aggregate write rate (Go and the C twin) against the
// number of connections, both on log scales.
func plotConns(r *results, path string) error {
	ns := paramsOf(r, "Conns", "go", "n", "setup_us/conn")
	if len(ns) == 0 {
		return fmt.Errorf("no Conns results to plot")
	}
	series := func(p *plot.Plot, lines ...[3]string) error {
		var args []any
		for _, l := range lines {
			var pts plotter.XYs
			for _, n := range ns {
				if v, ok := r.get("Conns", l[0], "n="+strconv.Itoa(n), l[1]); ok && v > 0 {
					pts = append(pts, plotter.XY{X: float64(n), Y: v})
				}
			}
			if len(pts) > 0 {
				args = append(args, l[2], pts)
			}
		}
		return plotutil.AddLinePoints(p, args...)
	}
	setup := plot.New()
	setup.Title.Text = "RC connection set-up (rxe, qemu TCG guest)"
	setup.X.Label.Text = "connections (log)"
	setup.Y.Label.Text = "µs per connection (median of passes, log)"
	rate := plot.New()
	rate.Title.Text = "64 B RDMA-write rate over all connections"
	rate.X.Label.Text = "connections (log)"
	rate.Y.Label.Text = "Mpps (median of passes, log)"
	for _, p := range []*plot.Plot{setup, rate} {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
		p.Legend.Top = true
	}
	if err := series(setup, [3]string{"go", "setup_us/conn", "rdma.Dial"}, [3]string{"cmtime", "setup_us/conn", "cmtime"}); err != nil {
		return err
	}
	if err := series(rate, [3]string{"go", "Mpps", "goverbs, goroutine per connection"}, [3]string{"go", "c_Mpps", "C twin, one thread"}); err != nil {
		return err
	}
	img := vgsvg.New(11*vg.Inch, 4*vg.Inch)
	dc := draw.New(img)
	cs := plot.Align([][]*plot.Plot{{setup, rate}}, draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8}, dc)
	setup.Draw(cs[0][0])
	rate.Draw(cs[0][1])
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
