//go:build linux

package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

// Known is a recorded mismatch between a page and rxe's behaviour: doccheck reports it but
// does not fail on it.
type Known struct {
	Function string `yaml:"function"`
	Case     string `yaml:"case"`
	Root     string `yaml:"root"` // "host", "sid", or "" for both
	// Release limits the entry to one rdma-core release ("33"), as the harness's root
	// reports it: behaviour of an older provider that a later one fixed.
	Release string `yaml:"release"`
	Verdict string `yaml:"verdict"`
	Note    string `yaml:"note"`
}

// knownVerdicts are the verdicts known.yaml may accept: the C side's mismatches with the
// page, and the Go side's with the C call.
var knownVerdicts = []string{Violated, Undocumented, CheckFailed, Leaked, GoWrong, GoBroken, GoLeaked}

// LoadKnown reads tools/doccheck/known.yaml; every entry must name an existing probe and
// say why the mismatch is accepted.
func LoadKnown(path string, probes *Probes) ([]Known, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseKnown(path, raw, probes)
}

// parseKnown checks the known-mismatch file read from path; every error starts with
// "path:line: " (or "path: " where the entry has no position).
func parseKnown(path string, raw []byte, probes *Probes) ([]Known, error) {
	var known []Known
	file, err := yamlfile.Decode(path, raw, &known)
	if err != nil {
		return nil, err
	}
	for i, k := range known {
		where := yamlfile.At(path, file, fmt.Sprintf("$[%d]", i))
		found := false
		for _, p := range probes.Probes {
			found = found || (p.Function == k.Function && p.Case == k.Case)
		}
		if !found {
			return nil, fmt.Errorf("%s: entry %d names no probe %s/%s", where, i+1, k.Function, k.Case)
		}
		if k.Note == "" || !slices.Contains(knownVerdicts, k.Verdict) {
			return nil, fmt.Errorf("%s: entry %d (%s/%s) needs a note and a verdict (one of %q)", where, i+1, k.Function, k.Case, knownVerdicts)
		}
	}
	return known, nil
}

func (r *Results) isKnown(p *Probe, rt root, verdict string) bool {
	for _, k := range r.Known {
		if k.Function == p.Function && k.Case == p.Case && (k.Root == "" || k.Root == rt.Name || (rt.Like != "" && k.Root == rt.Like)) &&
			(k.Release == "" || k.Release == rt.Version) && k.Verdict == verdict {
			return true
		}
	}
	return false
}
