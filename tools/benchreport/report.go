package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The targets of the provider path end to end (issue 28), each against a
// C twin paired with the Go loop in one run: busy-polled send latency at
// most busyTarget times its twin's (ib_send_lat's loop); an event-driven
// ping-pong waiting in C (CompChannel.WaitBlockingPoll) at most
// blockingTarget times its twin's (ib_send_lat -e's loop), one waiting on
// the netpoller (CompChannel.WaitPoll) at most netpollTarget times; the
// 64-byte RDMA-write message rate, post lists of 32, at least rateTarget
// times its twin's (ib_write_bw's loop).
const (
	busyTarget     = 1.05
	blockingTarget = 1.10
	netpollTarget  = 1.5
	rateTarget     = 0.95
)

// A comparison of one Go figure with its C or perftest twin against the
// issue's target.
type row struct {
	what       string
	unit       string
	goV, refV  float64
	ref        string
	ratio      float64
	lo, hi     float64 // lowest and highest ratio of one run's figures
	haveRuns   bool
	best       float64 // the ratio of the two sides' best runs
	haveBest   bool
	target     string // "" for a row shown for information, without a target
	met        bool
	allocs     float64
	haveAllocs bool
}

// paramsOf lists the values of name=N in the parameters of bench's impl
// results in unit, sorted.
func paramsOf(r *results, bench, impl, name, unit string) []int {
	var out []int
	for k := range r.median {
		if k.bench == bench && k.unit == unit && k.impl == impl {
			if v, ok := strings.CutPrefix(k.param, name+"="); ok {
				n, _ := strconv.Atoi(v)
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func report(r *results) (string, error) {
	var rows []row
	// compare appends the row comparing the figure gk with ck; limit 0: no
	// target; allocs: gk is goverbs', with its allocations per op.
	compare := func(what string, gk, ck key, refName string, lowerBetter bool, limit float64, allocs bool) {
		g, ok1 := r.median[gk]
		c, ok2 := r.median[ck]
		if !ok1 || !ok2 || c == 0 {
			return
		}
		x := row{what: what, unit: gk.unit, goV: g, refV: c, ref: refName, ratio: g / c}
		x.lo, x.hi, x.haveRuns = r.runRatios(gk, ck)
		x.best, x.haveBest = r.bestRatio(gk, ck, lowerBetter)
		// Met: the ratio of the medians within the target, and that of
		// the best runs too where there are several, so that neither a
		// stalled reference run nor a lucky Go one marks a target met.
		best := x.ratio
		if x.haveBest {
			best = x.best
		}
		switch {
		case limit == 0:
		case lowerBetter:
			x.target, x.met = fmt.Sprintf("≤ %.2f×", limit), x.ratio <= limit && best <= limit
		default:
			x.target, x.met = fmt.Sprintf("≥ %.2f×", limit), x.ratio >= limit && best >= limit
		}
		if allocs {
			x.allocs, x.haveAllocs = r.median[key{gk.bench, gk.impl, gk.param, "allocs/op"}]
		}
		rows = append(rows, x)
	}
	// add is compare for goImpl's figure for bench in unit against refImpl's.
	add := func(what, bench, goImpl, param, unit, refImpl, refName string, lowerBetter bool, limit float64) {
		compare(what, key{bench, goImpl, param, unit}, key{bench, refImpl, param, unit}, refName, lowerBetter, limit, true)
	}
	// paired appends the row of a Go loop paired with its C twin in one
	// run: the two loops' figures (goUnit, cUnit) and, as the ratio judged
	// against limit, the median over the runs of each run's paired_ratio
	// (by run: their range). The host's speed, which moves a figure by up
	// to 2.7x from one pass to the next, is the same for both sides of a
	// pair; a ratio of separate runs' figures could not resolve the
	// targets.
	paired := func(what, bench, impl, param, goUnit, cUnit string, limit float64, lowerBetter bool) {
		g, ok1 := r.get(bench, impl, param, goUnit)
		c, ok2 := r.get(bench, impl, param, cUnit)
		k := key{bench, impl, param, "paired_ratio"}
		ratio, ok3 := r.median[k]
		if !ok1 || !ok2 || !ok3 {
			return
		}
		x := row{what: what, unit: goUnit, goV: g, refV: c, ref: "C twin", ratio: ratio}
		if lowerBetter {
			x.target, x.met = fmt.Sprintf("≤ %.2f×", limit), ratio <= limit
		} else {
			x.target, x.met = fmt.Sprintf("≥ %.2f×", limit), ratio >= limit
		}
		if runs := r.runs[k]; len(runs) > 1 {
			x.lo, x.hi, x.haveRuns = slices.Min(runs), slices.Max(runs), true
		}
		x.allocs, x.haveAllocs = r.get(bench, impl, param, "allocs/op")
		rows = append(rows, x)
	}
	// The ways the latency ping-pong waits, each paired with its C twin
	// (BenchmarkSendLat): busy polling, and completion events waited for
	// in C or on the netpoller. Each twin is then shown against perftest's
	// tool waiting the same way, without a target: that the twin is the
	// loop ib_send_lat runs.
	waits := []struct {
		impl, label, twin, ref, refName string
		limit                           float64
	}{
		{"pairpoll", "busy poll, CQ.PollSpin", "busy poll", "perftestpoll", "ib_send_lat", busyTarget},
		{"pairblocking", "events in C, CompChannel.WaitBlockingPoll", "events, paired with WaitBlockingPoll", "perftest", "ib_send_lat -e", blockingTarget},
		{"pairnetpoll", "events on the netpoller, CompChannel.WaitPoll", "events, paired with WaitPoll", "perftest", "ib_send_lat -e", netpollTarget},
	}
	for _, w := range waits {
		for _, s := range paramsOf(r, "SendLat", w.impl, "size", "paired_ratio") {
			paired(fmt.Sprintf("RC send latency (%s, paired with its C twin), %d B, median", w.label, s),
				"SendLat", w.impl, "size="+strconv.Itoa(s), "t_typical_us", "c_t_typical_us", w.limit, true)
		}
	}
	for _, w := range waits {
		for _, s := range paramsOf(r, "SendLat", w.impl, "size", "c_t_typical_us") {
			p := "size=" + strconv.Itoa(s)
			compare(fmt.Sprintf("RC send latency (%s), the C twin (not goverbs), %d B, median", w.twin, s),
				key{"SendLat", w.impl, p, "c_t_typical_us"}, key{"SendLat", w.ref, p, "t_typical_us"}, w.refName, true, 0, false)
		}
	}
	// The write rate alike (BenchmarkWriteRate): Go paired with its C
	// twin, then the twin against ib_write_bw.
	paired("RDMA write rate, 64 B, post lists of 32 (paired with its C twin)", "WriteRate", "pair", "", "Mpps", "c_Mpps", rateTarget, false)
	compare("RDMA write rate, 64 B, post lists of 32, the C twin (not goverbs)", key{"WriteRate", "pair", "", "c_Mpps"},
		key{"WriteRate", "perftest", "", "Mpps"}, "ib_write_bw", false, 0, false)
	for _, n := range paramsOf(r, "Drain", "gobatch", "batch", "ns/completion") {
		b := "batch=" + strconv.Itoa(n)
		// gobatch: CQ.PollBatch, the batched poll API, one cgo crossing
		// into the provider's poll_cq per batch.
		add("drain a full CQ (CQ.PollBatch), batch "+strconv.Itoa(n)+", per completion, median round", "Drain", "gobatch", b, "ns/completion", "c", "C loop", true, 1.10)
	}
	if len(rows) == 0 {
		return "", fmt.Errorf("no Go/reference pairs in the results")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| measurement | goverbs | reference | ratio | ratio by run | ratio of best runs | target | met | allocs/op |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range rows {
		allocs := "—"
		if x.haveAllocs {
			allocs = strconv.FormatFloat(x.allocs, 'f', -1, 64)
		}
		met, target := "no", x.target
		switch {
		case target == "":
			met, target = "—", "—"
		case x.met:
			met = "yes"
		}
		byRun := "—"
		if x.haveRuns {
			byRun = fmt.Sprintf("%.2f–%.2f", x.lo, x.hi)
		}
		best := "—"
		if x.haveBest {
			best = fmt.Sprintf("%.3f", x.best)
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s: %s | %.3f | %s | %s | %s | %s | %s |\n", x.what, num(x.goV), x.unit, x.ref, num(x.refV), x.ratio, byRun, best, target, met, allocs)
	}
	fmt.Fprintln(&b)
	var extra []string
	if g, ok := r.get("PollEmpty", "go", "", "ns/op"); ok {
		c, _ := r.get("PollEmpty", "c", "", "ns/op")
		cg, _ := r.get("PollEmpty", "cgo", "", "ns/op")
		s := fmt.Sprintf("an empty-CQ poll costs %s ns through rdma.CQ.Poll", num(g))
		extra = append(extra, s+fmt.Sprintf(", %s ns through a bare cgo call, %s ns from C", num(cg), num(c)))
	}
	if n, ok := r.get("CgoNoop", "", "", "ns/op"); ok {
		s := fmt.Sprintf("a cgo call of an empty C function costs %s ns", num(n))
		if p, ok := r.get("CgoPointerArgs", "", "", "ns/op"); ok {
			s += fmt.Sprintf(", %s ns with three pointer arguments, which cgo checks at run time (ibv's fast-path trampolines take none)", num(p))
		}
		extra = append(extra, s)
	}
	if rd, ok := r.get("Wake", "", "wait=read", "round_trip_us"); ok {
		if pl, ok := r.get("Wake", "", "wait=poll", "round_trip_us"); ok {
			extra = append(extra, fmt.Sprintf("two threads waking each other through eventfds take %s µs a round trip blocked in read(2), as ib_send_lat -e and CompChannel.WaitBlocking wait, and %s µs with a poll(2) first, as WaitBlocking waits where it cannot make its waker (median)", num(rd), num(pl)))
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, "In the same run: %s.\n\n", strings.Join(extra, "; "))
	}
	fmt.Fprintf(&b, "Guest CPU: %s; measured by `make bench` (sid root, rdma-core 65, qemu TCG).\n", orDash(r.config["cpu"]))
	return b.String(), nil
}

func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

const beginMark, endMark = "<!-- bench:begin -->", "<!-- bench:end -->"

// updateSection replaces the text between beginMark and endMark in the file at path
// with table.
func updateSection(path, table string) error {
	return updateSectionBetween(path, table, beginMark, endMark)
}

// updateSectionBetween replaces the text between the markers begin and end in the
// file at path with table.
func updateSectionBetween(path, table, begin, end string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s ... %s section", path, begin, end)
	}
	s = s[:i+len(begin)] + "\n" + table + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}
