//go:build linux

package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The report's account of the failure contracts (issue 26): per library, how many documented
// functions have an error channel, how many were probed on a failure and on success, how many
// have a verdict that could fail on both paths, which could not and why, the reasons proven in
// the guest, and where the page and the behaviour differ.

// failCoverage counts, per library, the functions whose verdicts could fail.
type failCoverage struct {
	documented, errChannel, failProbed, succProbed, noFailure, couldFail, differences int
	// couldNot are the probed functions whose verdicts could not all fail, each with why.
	couldNot []string
}

// proofOutcome judges a claim's proof on one root; ok is false where it did not run.
func (r *Results) proofOutcome(c *Claim, rt root) (Outcome, bool) {
	if c.probe == nil {
		return Outcome{}, false
	}
	raw, ok := r.Raw[rt.Name][c.probe.id]
	if !ok {
		return Outcome{}, false
	}
	switch {
	case raw.Status != "ok":
		return Outcome{Verdict: ProofFailed, Detail: "the check did not run: " + raw.Status}, true
	case raw.Check != "":
		return Outcome{Verdict: ProofFailed, Detail: "the reason is false here: " + raw.Check}, true
	case raw.afterwards() != "":
		return Outcome{Verdict: ProofFailed, Detail: raw.afterwards()}, true
	}
	return Outcome{Verdict: Proven, Detail: raw.Note}, true
}

// proofUnexpected lists the proofs that failed: a reason that is false fails the run.
func (r *Results) proofUnexpected() []string {
	var bad []string
	for _, c := range r.Probes.Claims() {
		for _, rt := range r.Roots {
			if o, ok := r.proofOutcome(c, rt); ok && o.Verdict != Proven {
				bad = append(bad, fmt.Sprintf("%s %s (%s) on rdma-core %s: %s: %s", c.kind, strings.Join(c.Functions, ", "), c.Reason, rt.Version, o.Verdict, o.Detail))
			}
		}
	}
	return bad
}

// proofState is a claim's proof in words, over the roots it ran on.
func (r *Results) proofState(c *Claim) string {
	switch {
	case c.Proof == "none":
		return "no check possible"
	case c.probe == nil && c.skipped:
		return "not run (-only)"
	case c.probe == nil:
		return "no proof"
	}
	var parts []string
	for _, rt := range r.Roots {
		if o, ok := r.proofOutcome(c, rt); ok {
			s := fmt.Sprintf("%s on rdma-core %s", o.Verdict, rt.Version)
			if o.Verdict != Proven || o.Detail != "" {
				s += " (" + o.Detail + ")"
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "not run (no root declares " + c.Functions[0] + ")"
	}
	return strings.Join(parts, "; ")
}

// difference is a page-versus-behaviour difference: a spec override where the library's code
// contradicts its page, or a known.yaml entry (rxe or the kernel).
type difference struct {
	library, function, where, text string
}

// differences are the spec's and known.yaml's differences, by library then function.
func (r *Results) differences() []difference {
	var out []difference
	for _, f := range r.Set.Functions() {
		if f.Override != nil && f.Override.Differs != nil {
			out = append(out, difference{f.Library, f.Name, "spec/overrides: the library", f.Override.Differs.Sentence()})
		}
	}
	seen := map[string]bool{}
	for _, k := range r.Known {
		f, ok := r.Set.Lookup(k.Function)
		if !ok || (k.Verdict != Violated && k.Verdict != Undocumented && k.Verdict != CheckFailed) {
			continue
		}
		where := "known.yaml: rxe/kernel, rdma-core 44 and 65"
		switch {
		case k.Release != "":
			where = "known.yaml: rxe/kernel, rdma-core " + k.Release
		case k.Root == "host":
			where = "known.yaml: rxe/kernel, rdma-core 44"
		case k.Root == "sid":
			where = "known.yaml: rxe/kernel, rdma-core 65"
		}
		key := k.Function + "/" + k.Case + "/" + where
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, difference{f.Library, k.Function + " (" + k.Case + ")", where, strings.Join(strings.Fields(k.Note), " ")})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].library != out[j].library {
			return out[i].library < out[j].library
		}
		return out[i].function < out[j].function
	})
	return out
}

// failureCoverage counts what could fail, per library (the libraries of coverage()).
func (r *Results) failureCoverage() map[string]*failCoverage {
	untestable, noFailure := claimsByFunction(r.Probes.Untestable), claimsByFunction(r.Probes.NoFailureProbe)
	succ, fail, checked := r.ranProbes()
	cov := map[string]*failCoverage{}
	for _, f := range r.Set.Functions() {
		c := cov[f.Library]
		if c == nil {
			c = &failCoverage{}
			cov[f.Library] = c
		}
		if !f.Documented {
			continue
		}
		c.documented++
		ec := hasErrorChannel(f.Convention)
		if ec {
			c.errChannel++
		}
		if fail[f.Name] {
			c.failProbed++
		}
		if succ[f.Name] {
			c.succProbed++
		}
		if ec && noFailure[f.Name] != nil {
			c.noFailure++
		}
		if u := untestable[f.Name]; u != nil || (!succ[f.Name] && !fail[f.Name]) {
			continue // counted as untestable or unprobed in the first table
		}
		var why []string
		switch {
		case ec && !fail[f.Name] && noFailure[f.Name] != nil:
			why = append(why, "no failure probe: "+noFailure[f.Name].Reason+" ("+r.proofState(noFailure[f.Name])+")")
		case ec && !fail[f.Name]:
			why = append(why, "no failure probe, and no_failure_probe gives no reason")
		case !ec && !checked[f.Name]:
			why = append(why, "its success probe checks no value or effect (no check:)")
		}
		if ec && !succ[f.Name] {
			why = append(why, "no success probe")
		}
		if len(why) == 0 {
			c.couldFail++
			continue
		}
		c.couldNot = append(c.couldNot, fmt.Sprintf("`%s`: %s", f.Name, strings.Join(why, "; ")))
	}
	for _, d := range r.differences() {
		if c := cov[d.library]; c != nil {
			c.differences++
		}
	}
	return cov
}

// failureSummary is the summary's table of the failure contracts.
func (r *Results) failureSummary() string {
	var b strings.Builder
	cov, libs := r.coverage()
	fc := r.failureCoverage()
	fmt.Fprintf(&b, "%-12s %10s %10s %10s %10s %10s %10s %10s\n", "library", "error-chan", "fail-prob", "succ-prob", "no-f-probe", "could-fail", "could-not", "page-diffs")
	for _, l := range libs {
		c := fc[l]
		if c == nil || cov[l].documented == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-12s %10d %10d %10d %10d %10d %10d %10d\n", l, c.errChannel, c.failProbed, c.succProbed, c.noFailure, c.couldFail, len(c.couldNot), c.differences)
	}
	proven, failed, none, skipped := 0, 0, 0, 0
	for _, c := range r.Probes.Claims() {
		switch {
		case c.Proof == "none":
			none++
		case c.skipped:
			skipped++
		case slices.ContainsFunc(r.Roots, func(rt root) bool { o, ok := r.proofOutcome(c, rt); return ok && o.Verdict != Proven }):
			failed++
		case slices.ContainsFunc(r.Roots, func(rt root) bool { _, ok := r.proofOutcome(c, rt); return ok }):
			proven++
		}
	}
	fmt.Fprintf(&b, "Reasons (untestable, no_failure_probe): %d proven in the guest, %d failed, %d with no check possible, %d without a proof",
		proven, failed, none, len(r.Probes.Claims())-proven-failed-none-skipped)
	if skipped > 0 {
		fmt.Fprintf(&b, ", %d not run (-only)", skipped)
	}
	b.WriteString("\n")
	return b.String()
}

// failureMarkdown is the report's sections on the failure contracts.
func (r *Results) failureMarkdown() string {
	var b strings.Builder
	b.WriteString("\n## Failure contracts: which verdicts could fail\n\n")
	b.WriteString("Per library, of the documented functions: with an error channel (error-chan); probed on a\n")
	b.WriteString("provoked failure (fail-prob) and on success (succ-prob); with an error channel but no failure\n")
	b.WriteString("probe, listed in `no_failure_probe:` with a reason that a check proves in the guest\n")
	b.WriteString("(no-f-probe); whose verdicts could all fail (could-fail: success and failure checked, or, for\n")
	b.WriteString("a value or void function, a success probe whose `check:` compares the value or the effect);\n")
	b.WriteString("probed functions whose verdicts could not all fail (could-not, listed below with why); and the\n")
	b.WriteString("differences between page and behaviour found (page-diffs, listed below).\n\n")
	b.WriteString("```\n" + r.failureSummary() + "```\n")
	fc := r.failureCoverage()
	_, libs := r.coverage()
	b.WriteString("\n### Verdicts that could not fail, and why\n\n")
	any := false
	for _, l := range libs {
		if c := fc[l]; c != nil && len(c.couldNot) > 0 {
			any = true
			fmt.Fprintf(&b, "%s:\n\n", l)
			for _, s := range c.couldNot {
				b.WriteString("- " + s + "\n")
			}
			b.WriteString("\n")
		}
	}
	if !any {
		b.WriteString("None.\n\n")
	}
	b.WriteString("### Differences between page and behaviour\n\n")
	b.WriteString("Where the library's code contradicts its page the spec follows the code (`spec/overrides`,\n")
	b.WriteString("and the generated doc comment says \"The page says …; the library returns …\"); where rxe or the\n")
	b.WriteString("kernel differs from the page, `tools/doccheck/known.yaml` records it with its evidence.\n\n")
	diffs := r.differences()
	if len(diffs) == 0 {
		b.WriteString("None.\n")
	}
	for _, d := range diffs {
		fmt.Fprintf(&b, "- %s `%s` (%s): %s\n", d.library, d.function, d.where, d.text)
	}
	b.WriteString("\n### Reasons proven in the guest\n\n")
	b.WriteString("Each `untestable:` and `no_failure_probe:` entry of the probe files, with the state of its\n")
	b.WriteString("proof: C statements run in a probe process of their own on each root; a proof that fails\n")
	b.WriteString("fails the run.\n\n")
	if len(r.Probes.Claims()) == 0 {
		b.WriteString("None.\n")
	}
	for _, c := range r.Probes.Claims() {
		fmt.Fprintf(&b, "- %s `%s`: %s — %s\n", strings.ReplaceAll(c.kind, "_", " "), strings.Join(c.Functions, "`, `"), c.Reason, r.proofState(c))
	}
	return b.String()
}

// leakCost is the summary's line on what the per-process leak checks cost, per root: the
// processes that ran one and their total time (not in the report: it changes with every run).
func (r *Results) leakCost() string {
	var b strings.Builder
	for _, rt := range r.Roots {
		var cN, goN int
		var cUS, goUS int64
		for _, raw := range r.Raw[rt.Name] {
			if raw.Status == "ok" {
				cN++
				cUS += raw.LeakUS
			}
		}
		for _, g := range r.Go[rt.Name] {
			if g.LeakUS > 0 {
				goN++
				goUS += g.LeakUS
			}
		}
		if cN+goN > 0 {
			fmt.Fprintf(&b, "rdma-core %s: leak checks took %.1f s in %d C probe processes, %.1f s in %d Go ones\n", rt.Version, float64(cUS)/1e6, cN, float64(goUS)/1e6, goN)
		}
	}
	return b.String()
}
