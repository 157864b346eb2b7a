package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// key names one measurement: the benchmark (without "Benchmark"), its
// sub-name settings (impl, size, batch) and the unit.
type key struct {
	bench, impl, param, unit string
}

// results are the median of every measurement by key over its runs (make
// bench's passes, or go test -count's runs: one pass in which the host
// stalls a vCPU for milliseconds, as it now and then does, moves a mean by
// tens of per cent and not the median of three), every value in the order
// read, and the environment lines (goos, cpu, ...).
type results struct {
	median map[key]float64
	runs   map[key][]float64
	config map[string]string
}

func parse(r io.Reader, name string) (*results, error) {
	out := &results{median: map[key]float64{}, runs: map[key][]float64{}, config: map[string]string{}}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			for _, c := range rec.Config {
				out.config[c.Key] = string(c.Value)
			}
			base, parts := rec.Name.Parts()
			k := key{bench: strings.TrimPrefix(string(base), "Benchmark")}
			for _, p := range parts {
				kv := strings.TrimPrefix(string(p), "/")
				switch {
				case strings.HasPrefix(kv, "impl="):
					k.impl = strings.TrimPrefix(kv, "impl=")
				case strings.Contains(kv, "="):
					k.param = kv
				}
			}
			for _, v := range rec.Values {
				kk := k
				kk.unit = v.Unit
				// benchfmt's normal form of ns/op, ns/completion, and of a
				// host benchmark's c-ns/call: back to nanoseconds.
				if i := strings.Index(v.Unit, "sec/"); i == 0 || i > 0 && v.Unit[i-1] == '-' {
					kk.unit, v.Value = v.Unit[:i]+"ns/"+v.Unit[i+len("sec/"):], v.Value*1e9
				}
				out.runs[kk] = append(out.runs[kk], v.Value)
			}
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	if len(out.runs) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", name)
	}
	for k, vs := range out.runs {
		out.median[k] = median(vs)
	}
	return out, nil
}

func (r *results) get(bench, impl, param, unit string) (float64, bool) {
	v, ok := r.median[key{bench, impl, param, unit}]
	return v, ok
}

// median is the middle value of vs (not empty), or the mean of the two
// middle ones.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// runRatios returns the lowest and highest of the ratios of a's i-th value
// to b's, run by run, with ok false unless both have the same number of
// runs, at least two, and no zero in b.
func (r *results) runRatios(a, b key) (lo, hi float64, ok bool) {
	as, bs := r.runs[a], r.runs[b]
	if len(as) < 2 || len(as) != len(bs) {
		return 0, 0, false
	}
	for i := range as {
		if bs[i] == 0 {
			return 0, 0, false
		}
		q := as[i] / bs[i]
		if i == 0 || q < lo {
			lo = q
		}
		if i == 0 || q > hi {
			hi = q
		}
	}
	return lo, hi, true
}

// bestRatio is the ratio of a's best run to b's, best the lowest where
// lower is better and the highest otherwise, with ok false unless both
// have at least two runs and b's best is not zero. The host's noise only
// ever slows a run (a vCPU descheduled, the host's CPU at half speed for
// seconds), so each side's best run is the one least disturbed.
func (r *results) bestRatio(a, b key, lowerBetter bool) (float64, bool) {
	as, bs := r.runs[a], r.runs[b]
	if len(as) < 2 || len(bs) < 2 {
		return 0, false
	}
	best := slices.Max[[]float64]
	if lowerBetter {
		best = slices.Min[[]float64]
	}
	if bb := best(bs); bb != 0 {
		return best(as) / bb, true
	}
	return 0, false
}
