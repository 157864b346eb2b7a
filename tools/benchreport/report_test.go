package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func load(t *testing.T) *results {
	f, err := os.Open("testdata/bench.txt")
	require.NoError(t, err)
	defer f.Close()
	r, err := parse(f, "bench.txt")
	require.NoError(t, err)
	return r
}

func TestParse(t *testing.T) {
	r := load(t)
	v, ok := r.get("SendLat", "perftest", "size=2", "t_typical_us")
	require.True(t, ok)
	assert.Equal(t, 98.0, v)
	v, ok = r.get("SendLat", "perftest", "size=2", "t_avg_us")
	require.True(t, ok)
	assert.Equal(t, 120.0, v)
	v, ok = r.get("Drain", "c", "batch=64", "ns/op")
	require.True(t, ok, "ns/op comes back from benchfmt's sec/op")
	assert.InDelta(t, 80.48, v, 1e-9)
	v, ok = r.get("CgoNoop", "", "", "ns/op")
	require.True(t, ok, "results after a second header (make bench's second run) are read")
	assert.Equal(t, 2333.0, v)
	assert.Equal(t, "QEMU TCG CPU version 2.5+", r.config["cpu"])
}

func TestReport(t *testing.T) {
	table, err := report(load(t))
	require.NoError(t, err)
	// Each way of waiting has its paired rows and its target, the ratio
	// the run's paired ratio: the netpoller's 1.020 and 1.007 within its
	// 1.5; the blocking one (only at 2 B here) 1.010 within its 1.10; busy
	// polling 1.25, over its 1.05. Each C twin against perftest's tool,
	// without a target. A paired write rate of 0.966 meets 0.95; the
	// drains (median rounds) are far over 1.10.
	assert.Contains(t, table, "| RC send latency (events on the netpoller, CompChannel.WaitPoll, paired with its C twin), 2 B, median | 100 t_typical_us | C twin: 98.00 | 1.020 | — | — | ≤ 1.50× | yes | 0 |")
	assert.Contains(t, table, "| RC send latency (events on the netpoller, CompChannel.WaitPoll, paired with its C twin), 4096 B, median | 150 t_typical_us | C twin: 149 | 1.007 | — | — | ≤ 1.50× | yes | 0 |")
	assert.Contains(t, table, "| RC send latency (events in C, CompChannel.WaitBlockingPoll, paired with its C twin), 2 B, median | 99.00 t_typical_us | C twin: 98.00 | 1.010 | — | — | ≤ 1.10× | yes | 0 |")
	assert.Contains(t, table, "| RC send latency (busy poll, CQ.PollSpin, paired with its C twin), 2 B, median | 20.00 t_typical_us | C twin: 16.00 | 1.250 | — | — | ≤ 1.05× | no | 0 |")
	assert.Contains(t, table, "| RC send latency (busy poll), the C twin (not goverbs), 2 B, median | 16.00 c_t_typical_us | ib_send_lat: 16.00 | 1.000 | — | — | — | — | — |")
	assert.Contains(t, table, "| RC send latency (events, paired with WaitBlockingPoll), the C twin (not goverbs), 2 B, median | 98.00 c_t_typical_us | ib_send_lat -e: 98.00 | 1.000 | — | — | — | — | — |")
	assert.Contains(t, table, "| RC send latency (events, paired with WaitPoll), the C twin (not goverbs), 4096 B, median | 149 c_t_typical_us | ib_send_lat -e: 149 | 1.000 | — | — | — | — | — |")
	assert.NotContains(t, table, "CQ.PollSpin, paired with its C twin), 4096 B")
	assert.NotContains(t, table, "WaitBlockingPoll, paired with its C twin), 4096 B")
	assert.Contains(t, table, "| RDMA write rate, 64 B, post lists of 32 (paired with its C twin) | 0.00483 Mpps | C twin: 0.005 | 0.966 | — | — | ≥ 0.95× | yes | 0 |")
	assert.Contains(t, table, "| RDMA write rate, 64 B, post lists of 32, the C twin (not goverbs) | 0.005 c_Mpps | ib_write_bw: 0.0052 | 0.962 | — | — | — | — | — |")
	assert.Contains(t, table, "| drain a full CQ (CQ.PollBatch), batch 64, per completion, median round | 240 ns/completion | C loop: 80.48 | 2.982 | — | — | ≤ 1.10× | no | 0 |")
	assert.Contains(t, table, "3486 ns through rdma.CQ.Poll, 1594 ns through a bare cgo call, 140 ns from C")
	assert.Contains(t, table, "an empty C function costs 2333 ns, 4100 ns with three pointer arguments")
	assert.Contains(t, table, "take 200 µs a round trip blocked in read(2), as ib_send_lat -e and CompChannel.WaitBlocking wait, and 230 µs with a poll(2) first")
}

// TestMedianOfPasses: with several passes (make bench's), each side's
// figure is the median of its passes, so one pass stalled by the host
// moves neither it nor the ratio; the table gives the lowest and highest
// ratio of one pass's figures and the ratio of each side's best pass.
func TestMedianOfPasses(t *testing.T) {
	const pass = `BenchmarkSendLat/impl=pairpoll/size=2-2 10 5 ns/op 30 t_typical_us %d c_t_typical_us 1.1 paired_ratio
BenchmarkSendLat/impl=perftestpoll/size=2-2 10 5 ns/op %d t_typical_us
`
	in := fmt.Sprintf(pass, 22, 20) + fmt.Sprintf(pass, 22, 90) + fmt.Sprintf(pass, 23, 21)
	r, err := parse(strings.NewReader(in), "passes")
	require.NoError(t, err)
	table, err := report(r)
	require.NoError(t, err)
	assert.Contains(t, table, "| RC send latency (busy poll), the C twin (not goverbs), 2 B, median | 22.00 c_t_typical_us | ib_send_lat: 21.00 | 1.048 | 0.24–1.10 | 1.100 | — | — | — |")
	assert.Equal(t, 2.5, median([]float64{4, 1, 2, 3}))
}

func TestReportNeedsPairs(t *testing.T) {
	_, err := parse(strings.NewReader("goos: linux\n"), "empty")
	require.ErrorContains(t, err, "no benchmark results")
	r, err := parse(strings.NewReader("BenchmarkSendLat/impl=pairpoll/size=2-2 10 5 ns/op 1 t_typical_us\n"), "half")
	require.NoError(t, err)
	_, err = report(r)
	require.ErrorContains(t, err, "no Go/reference pairs")
}

func TestRunWritesFiles(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "benchmarks.md")
	require.NoError(t, os.WriteFile(doc, []byte("a\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nb\n"), 0o644))
	md, svg := filepath.Join(dir, "b.md"), filepath.Join(dir, "b.svg")
	require.NoError(t, run("testdata/bench.txt", md, svg, doc))
	got, err := os.ReadFile(doc)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "a\n<!-- bench:begin -->\n| measurement |"))
	assert.True(t, strings.HasSuffix(string(got), "<!-- bench:end -->\nb\n"))
	assert.NotContains(t, string(got), "old")
	s, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(s), "<svg")
	require.Error(t, updateSection(md, "x"), "a file without the markers is an error")
}

// TestBestRuns: the ratio of best runs takes each side's lowest latency
// and highest rate, whichever runs they came from.
func TestBestRuns(t *testing.T) {
	const pass = `BenchmarkSendLat/impl=pairpoll/size=2-2 10 5 ns/op 1 t_typical_us %d c_t_typical_us 1 paired_ratio
BenchmarkSendLat/impl=perftestpoll/size=2-2 10 5 ns/op %d t_typical_us
BenchmarkWriteRate/impl=pair-2 10 5 ns/op 1 Mpps %s c_Mpps 1 paired_ratio
BenchmarkWriteRate/impl=perftest-2 10 5 ns/op %s Mpps
`
	in := fmt.Sprintf(pass, 30, 20, "0.9", "0.5") + fmt.Sprintf(pass, 22, 90, "1.0", "1.2") + fmt.Sprintf(pass, 25, 40, "0.8", "0.6")
	r, err := parse(strings.NewReader(in), "passes")
	require.NoError(t, err)
	table, err := report(r)
	require.NoError(t, err)
	assert.Contains(t, table, "| RC send latency (busy poll), the C twin (not goverbs), 2 B, median | 25.00 c_t_typical_us | ib_send_lat: 40.00 | 0.625 | 0.24–1.50 | 1.100 | — | — | — |")
	assert.Contains(t, table, "| RDMA write rate, 64 B, post lists of 32, the C twin (not goverbs) | 0.9 c_Mpps | ib_write_bw: 0.6 | 1.500 | 0.83–1.80 | 0.833 | — | — | — |")
}

// TestPaired: a paired row takes its ratio from the runs' paired ratios
// (their median; by run, their range), not from the two loops' figures,
// which here, pooled over host states, say otherwise; a rate's target is
// a floor.
func TestPaired(t *testing.T) {
	const pass = `BenchmarkSendLat/impl=pairpoll/size=2-2 10 5 ns/op %[1]d t_typical_us %[2]d c_t_typical_us %[3]s paired_ratio 0 allocs/op
BenchmarkSendLat/impl=pairpoll/size=8-2 10 5 ns/op 40 t_typical_us 40 c_t_typical_us 1.01 paired_ratio 0 allocs/op
BenchmarkSendLat/impl=pairblocking/size=8-2 10 5 ns/op 400 t_typical_us 300 c_t_typical_us %[4]s paired_ratio 0 allocs/op
BenchmarkWriteRate/impl=pair-2 10 5 ns/op 0.5 Mpps 0.4 c_Mpps %[5]s paired_ratio 0 allocs/op
`
	in := fmt.Sprintf(pass, 40, 38, "1.08", "1.2", "0.94") + fmt.Sprintf(pass, 90, 100, "1.06", "1.0", "0.97") + fmt.Sprintf(pass, 44, 41, "1.07", "1.1", "0.96")
	r, err := parse(strings.NewReader(in), "passes")
	require.NoError(t, err)
	table, err := report(r)
	require.NoError(t, err)
	assert.Contains(t, table, "| RC send latency (busy poll, CQ.PollSpin, paired with its C twin), 2 B, median | 44.00 t_typical_us | C twin: 41.00 | 1.070 | 1.06–1.08 | — | ≤ 1.05× | no | 0 |")
	assert.Contains(t, table, "| RC send latency (busy poll, CQ.PollSpin, paired with its C twin), 8 B, median | 40.00 t_typical_us | C twin: 40.00 | 1.010 | 1.01–1.01 | — | ≤ 1.05× | yes | 0 |")
	assert.Contains(t, table, "| RC send latency (events in C, CompChannel.WaitBlockingPoll, paired with its C twin), 8 B, median | 400 t_typical_us | C twin: 300 | 1.100 | 1.00–1.20 | — | ≤ 1.10× | yes | 0 |")
	assert.Contains(t, table, "| RDMA write rate, 64 B, post lists of 32 (paired with its C twin) | 0.5 Mpps | C twin: 0.4 | 0.960 | 0.94–0.97 | — | ≥ 0.95× | yes | 0 |")
	assert.NotContains(t, table, "the C twin (not goverbs), 8 B", "no perftest figure: no twin row")
}

// TestBenchmarksDocHasSection: make bench replaces the table of docs/benchmarks.md
// between the markers, once each and in order, so the file must keep them.
func TestBenchmarksDocHasSection(t *testing.T) {
	b, err := os.ReadFile("../../docs/benchmarks.md")
	require.NoError(t, err)
	s := string(b)
	require.Equal(t, 1, strings.Count(s, beginMark), "docs/benchmarks.md: %s", beginMark)
	require.Equal(t, 1, strings.Count(s, endMark), "docs/benchmarks.md: %s", endMark)
	assert.Less(t, strings.Index(s, beginMark), strings.Index(s, endMark))
	assert.Contains(t, s[strings.Index(s, beginMark):], "| measurement |", "the table sits between the markers")
}
