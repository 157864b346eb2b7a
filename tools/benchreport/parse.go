package main

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// key names one measurement: the benchmark (without "Benchmark"), its
// sub-name settings (impl, size, batch) and the unit.
type key struct {
	bench, impl, param, unit string
}

// results are the mean of every measurement by key, every value in the
// order read (make bench's passes, or go test -count's runs), and the
// environment lines (goos, cpu, ...).
type results struct {
	mean   map[key]float64
	runs   map[key][]float64
	config map[string]string
}

func parse(r io.Reader, name string) (*results, error) {
	out := &results{mean: map[key]float64{}, runs: map[key][]float64{}, config: map[string]string{}}
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
				if per, ok := strings.CutPrefix(v.Unit, "sec/"); ok { // benchfmt's normal form of ns/op, ns/completion
					kk.unit, v.Value = "ns/"+per, v.Value*1e9
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
		sum := 0.0
		for _, v := range vs {
			sum += v
		}
		out.mean[k] = sum / float64(len(vs))
	}
	return out, nil
}

func (r *results) get(bench, impl, param, unit string) (float64, bool) {
	v, ok := r.mean[key{bench, impl, param, unit}]
	return v, ok
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
