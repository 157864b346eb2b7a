//go:build linux && !rxe

package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

// fuzzSpec is the committed spec, loaded once for all fuzz inputs.
var fuzzSpec = sync.OnceValues(func() (*spec.Set, error) { return spec.Load("../../spec") })

// probeExcerpt is the head of the real probes/libibverbs.yaml (its comment and first n probes) and
// its first untestable entries: the whole file (90 KB) would slow every execution.
func probeExcerpt(t testing.TB, n int) []byte {
	data, err := os.ReadFile("probes/libibverbs.yaml")
	require.NoError(t, err)
	s := string(data)
	i := strings.Index(s, "\nuntestable:\n")
	require.Positive(t, i)
	head := strings.SplitAfterN(s[:i+1], "\n  - function: ", n+2)
	tail := strings.SplitAfterN(s[i+1:], "\n  - functions: ", 4)
	return []byte(strings.TrimSuffix(strings.Join(head[:n+1], ""), "\n  - function: ") + "\n" +
		strings.TrimSuffix(strings.Join(tail[:3], ""), "\n  - functions: ") + "\n")
}

// checkPos asserts err starts with path[:line[:col]] and that the line is in data.
func checkPos(t *testing.T, path string, err error, data []byte) {
	t.Helper()
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `(?::(\d+))?(?::(\d+))?: \S`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error without file position: %v", err)
	}
	if m[1] != "" {
		line, _ := strconv.Atoi(m[1])
		if n := bytes.Count(data, []byte("\n")) + 1; line < 1 || line > n {
			t.Fatalf("error names line %d of a %d-line file: %v", line, n, err)
		}
	}
}

// FuzzParseProbes feeds the probe-file reader arbitrary bytes, against the committed spec.
// Seeds: an excerpt of the real probes/libibverbs.yaml and testdata/fuzz/FuzzParseProbes. Errors
// carry probes.yaml[:line[:col]] with a line inside the file; an accepted file has only
// known functions, fixtures and roots, unique well-formed cases, expectations the function's
// page and convention allow, and claims (untestable, no_failure_probe) with a reason and a
// proof where one is required.
func FuzzParseProbes(f *testing.F) {
	f.Add(probeExcerpt(f, 6))
	f.Add([]byte("probes:\n  - function: ibv_create_cq\n    case: x\n    why: w\n    call: f()\n    expect: EINVAL\n    roots: [sid]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := fuzzSpec()
		require.NoError(t, err)
		p, err := parseProbes("probes.yaml", data, set)
		if err != nil {
			checkPos(t, "probes.yaml", err, data)
			return
		}
		seen := map[string]bool{}
		for _, pr := range p.Probes {
			fn, ok := set.Lookup(pr.Function)
			require.True(t, ok, pr.Function)
			require.Regexp(t, caseName, pr.Case)
			require.False(t, seen[pr.Function+"/"+pr.Case], "duplicate %s/%s", pr.Function, pr.Case)
			seen[pr.Function+"/"+pr.Case] = true
			require.NotEmpty(t, strings.TrimSpace(pr.Call))
			require.NotEmpty(t, pr.Why)
			for _, n := range pr.Needs {
				require.Contains(t, fixtures, n)
			}
			for _, r := range pr.Roots {
				require.Contains(t, []string{"host", "sid"}, r)
			}
			if pr.Expect != "success" {
				require.True(t, hasErrorChannel(fn.Convention), "%s expects a failure", pr.Function)
			}
			if pr.Expect != "success" && pr.Expect != "error" {
				// One the page documents, or, where it documents none, a code doccheck knows.
				require.True(t, slices.ContainsFunc(fn.Errors, func(e spec.Error) bool { return e.Name == pr.Expect }) ||
					(len(fn.Errors) == 0 && knownCode(pr.Expect)), pr.Expect)
			}
		}
		for _, c := range p.Claims() {
			require.NotEmpty(t, c.Reason)
			require.NotEmpty(t, c.Functions)
			for _, name := range c.Functions {
				fn, ok := set.Lookup(name)
				require.True(t, ok, name)
				if c.kind == claimNoFailure {
					require.True(t, hasErrorChannel(fn.Convention), "%s has no error channel", name)
				}
			}
			require.Equal(t, c.probe != nil, strings.TrimSpace(c.Check) != "", "a proof is run exactly where a check is given")
			if c.kind == claimNoFailure {
				require.True(t, c.probe != nil || c.Proof == "none", "a no_failure_probe entry has a proof or proof: none")
			}
		}
	})
}

// FuzzParseKnown feeds the known-mismatch reader arbitrary bytes, against the probes of
// the real probe files. Seeds: the real known.yaml and testdata/fuzz/FuzzParseKnown.
// Errors carry known.yaml[:line[:col]]; accepted entries name a probe, a verdict that can
// be accepted, and a note.
func FuzzParseKnown(f *testing.F) {
	real, err := os.ReadFile("known.yaml")
	require.NoError(f, err)
	f.Add(real)
	f.Add([]byte("- function: ibv_query_gid_ex\n  case: bad-index\n  verdict: violated\n"))
	set, err := fuzzSpec()
	require.NoError(f, err)
	probes, err := LoadProbes("probes", set)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		known, err := parseKnown("known.yaml", data, probes)
		if err != nil {
			checkPos(t, "known.yaml", err, data)
			return
		}
		for _, k := range known {
			require.True(t, slices.ContainsFunc(probes.Probes, func(p *Probe) bool { return p.Function == k.Function && p.Case == k.Case }), "%s/%s", k.Function, k.Case)
			require.Contains(t, knownVerdicts, k.Verdict)
			require.NotEmpty(t, k.Note)
		}
	})
}

// The seed cut from probes/libibverbs.yaml loads, so fuzzing starts from the success path.
func TestProbeExcerptLoads(t *testing.T) {
	set, err := fuzzSpec()
	require.NoError(t, err)
	p, err := parseProbes("probes.yaml", probeExcerpt(t, 6), set)
	require.NoError(t, err)
	require.Len(t, p.Probes, 6)
	require.Len(t, p.Untestable, 2)
}

// crashSeed is a crash map with the classes spec/crashes claims, and one more.
const crashSeed = `classes:
  - function: ibv_ack_cq_events
    class: nevents-huge
    why: w
    needs: [ctx]
    void: true
    call: f()
    go: return nil
  - function: ibv_post_send
    class: num-sge-huge
    why: w
    needs: [lqp, mr]
    call: f()
    go: return nil
  - function: ibv_req_notify_cq
    class: solicited-2
    why: w
    call: f()
    go_not: a bool
`

// FuzzParseCrashMap feeds the crash-map reader arbitrary bytes, against the committed spec
// and its crash claims. Errors carry crashmap.yaml[:line[:col]] with a line inside the
// file; an accepted map has only libibverbs functions, known fixtures, unique well-formed
// classes with a Go side or the reason it has none, a class for every claim, and harness
// ids that cannot collide with the probes.
func FuzzParseCrashMap(f *testing.F) {
	f.Add([]byte(crashSeed))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := fuzzSpec()
		require.NoError(t, err)
		m, err := parseCrashMap("crashmap.yaml", data, set)
		if err != nil {
			checkPos(t, "crashmap.yaml", err, data)
			return
		}
		seen := map[string]bool{}
		for i, c := range m.Classes {
			fn, ok := set.Lookup(c.Function)
			require.True(t, ok)
			require.Equal(t, spec.LibIBVerbs, fn.Library)
			require.False(t, seen[c.Function+"/"+c.Class])
			seen[c.Function+"/"+c.Class] = true
			require.Regexp(t, caseName, c.Class)
			require.True(t, (c.Go == "") != (c.GoNot == ""))
			for _, n := range c.Needs {
				require.True(t, slices.Contains(fixtures, n) && !slices.Contains(rpmaFixtures, n))
			}
			require.Equal(t, crashIDBase+i, c.probe.id)
		}
		for _, cl := range set.AllCrashes() {
			require.True(t, seen[cl.Function+"/"+cl.Class])
		}
	})
}
