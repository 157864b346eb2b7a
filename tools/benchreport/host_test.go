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

func loadHost(t *testing.T, path string) *results {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := parse(f, path)
	require.NoError(t, err)
	return r
}

// TestReportHost: per verb, batch and way, the medians of the passes (ns
// per call and per completion, the C loop's, the ratio), the ratio's range
// by pass, the overhead per crossing (a call per getter: 193 crossings for
// 16 completions), the 256 target on the ratio too, the most allocations
// of a pass, and the floor.
func TestReportHost(t *testing.T) {
	table, err := reportHost(loadHost(t, "testdata/host.txt"))
	require.NoError(t, err)
	// fast: ratio 1.03 (1.02, 1.04) <= 1.05, the target of a call of 256: met.
	assert.Contains(t, table, "| poll_cq | 256 completions | ibv fast path | 2120 | 8.28 | 2100 | 1.030 | 1.02–1.04 | 1 | 0.80 (0.60–1.00) | ≤ 1.05× | yes | 0 |")
	// rdma: ratio 1.08 > 1.05: not met; a pass allocated.
	assert.Contains(t, table, "| poll_cq | 256 completions | rdma CQ.Poll | 2300 | 8.98 | 2100 | 1.080 | 1.06–1.10 | 1 | 4.00 (3.00–5.00) | ≤ 1.05× | no | 1 |")
	assert.Contains(t, table, "| extended CQ, start_poll … end_poll | 16 completions | ibv fast path, a call per getter | 10500 | 656 | 410 | 26.000 | 25.00–27.00 | 193 | 1.50 (1.00–2.00) | ≤ 1.5 cgo | yes | 0 |")
	assert.Contains(t, table, "an empty cgo call (no argument), in every group's rounds: 40.00 ns (median; 40.00–50.00 over groups and passes)")
	assert.Contains(t, table, "Medians of 2 passes.")
	assert.Contains(t, table, "Host CPU: Test CPU")
	_, err = reportHost(load(t))
	assert.ErrorContains(t, err, "no host results")
}

// hostLines is one pass of every way of every verb, each allocating
// allocs per call.
func hostLines(allocs float64) string {
	var b strings.Builder
	for _, v := range hostVerbs {
		for _, p := range v.params {
			name := "BenchmarkHost" + strings.TrimPrefix(v.bench, "Host")
			if p != "" {
				name += "/" + p
			}
			fmt.Fprintf(&b, "%s-2 \t 3 \t 100 c-ns/call \t 40 cgo-ns/call", name)
			for _, im := range v.impls {
				fmt.Fprintf(&b, " \t 200 %s-ns/call \t %v %s-allocs/call \t 2 %s-x \t 2.5 %s-over", im.impl, allocs, im.impl, im.impl, im.impl)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestCheckHost: -check passes a run of every way, and fails one lacking
// a way or allocating.
func TestCheckHost(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) *results {
		p := filepath.Join(dir, "h.txt")
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return loadHost(t, p)
	}
	require.NoError(t, checkHost(write(hostLines(0))))
	err := checkHost(write(hostLines(1)))
	assert.ErrorContains(t, err, "BenchmarkHostPollCQ n=0 impl=ibv: 1 allocations per call")
	missing := strings.ReplaceAll(hostLines(0), "rdmabatch-ns/call", "other-ns/call")
	assert.ErrorContains(t, checkHost(write(missing)), "BenchmarkHostPollCQ n=16 impl=rdmabatch: not measured")
}

// TestRunHostWritesFiles: -host writes its own section, leaving the
// others alone, and its plot.
func TestRunHostWritesFiles(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "benchmarks.md")
	const keep = "<!-- bench:begin -->\nkeep\n<!-- bench:end -->\n"
	require.NoError(t, os.WriteFile(doc, []byte("a\n<!-- host:begin -->\nold\n<!-- host:end -->\n"+keep), 0o644))
	in := filepath.Join(dir, "h.txt")
	require.NoError(t, os.WriteFile(in, []byte("cpu: Test CPU\n"+hostLines(0)), 0o644))
	svg := filepath.Join(dir, "h.svg")
	require.NoError(t, runHost(in, "", svg, doc))
	got, err := os.ReadFile(doc)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "a\n<!-- host:begin -->\n| verb |"))
	assert.True(t, strings.HasSuffix(string(got), "<!-- host:end -->\n"+keep))
	assert.NotContains(t, string(got), "old")
	s, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(s), "<svg")
	assert.Contains(t, string(s), "C loop")
}

// TestBenchmarksDocHasHostSection: make bench-host replaces the text of
// docs/benchmarks.md between the host markers, so the file must keep them,
// once each and in order.
func TestBenchmarksDocHasHostSection(t *testing.T) {
	b, err := os.ReadFile("../../docs/benchmarks.md")
	require.NoError(t, err)
	s := string(b)
	require.Equal(t, 1, strings.Count(s, hostBegin), "docs/benchmarks.md: %s", hostBegin)
	require.Equal(t, 1, strings.Count(s, hostEnd), "docs/benchmarks.md: %s", hostEnd)
	assert.Less(t, strings.Index(s, hostBegin), strings.Index(s, hostEnd))
}
