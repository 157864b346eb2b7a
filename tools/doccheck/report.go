//go:build linux

package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/gen/spec"
)

// Results are all observations of one doccheck run.
type Results struct {
	Set    *spec.Set
	Probes *Probes
	Known  []Known
	Crash  *CrashMap // the crash map's classes (crashmap.yaml); nil for none
	Roots  []root
	Raw    map[string]map[int]Raw   // root name -> probe id -> observation
	Go     map[string]map[int]GoRaw // root name -> probe id -> Go side's observation
	// Leftovers are the verbs objects left after each root's probes.
	Leftovers map[string]Leftovers
	// Own is the own-device mode's run (doccheck -device), nil for the bed's.
	Own *ownDevice
}

// goOutcome classifies the Go side of p on rt; ok is false when p did not run there.
func (r *Results) goOutcome(p *Probe, rt root) (GoOutcome, bool) {
	c, ok := r.Raw[rt.Name][p.id]
	if !ok {
		return GoOutcome{}, false
	}
	f, _ := r.Set.Lookup(p.Function)
	g := r.Go[rt.Name][p.id]
	if p.RxeSince > rt.release() && p.Go != "" {
		// On a release whose rxe lacks the feature the wrapper must fail with EOPNOTSUPP
		// too: at the fixture (goprobe's status ends with the error's text) or at the call.
		if strings.HasPrefix(g.Status, fixtureFailed) && strings.HasSuffix(g.Status, unix.EOPNOTSUPP.Error()) {
			return GoOutcome{GoOlderRxe, "fixture set-up failed with EOPNOTSUPP"}, true
		}
	}
	return ClassifyGo(f, p, c, g), true
}

// leftoverProblem says what is wrong with a root's leftovers, or "".
func (r *Results) leftoverProblem(rt root) string {
	l := r.Leftovers[rt.Name]
	switch {
	case !l.Seen:
		return "goprobe printed no resource list"
	case l.ListError != "":
		return "cannot list verbs objects: " + l.ListError
	case len(l.Objects) > 0:
		return fmt.Sprintf("%d verbs object(s) left after every probe: %s", len(l.Objects), strings.Join(l.Objects, "; "))
	}
	return ""
}

func (r *Results) outcome(p *Probe, rt root) (Outcome, bool) {
	raw, ok := r.Raw[rt.Name][p.id]
	if !ok {
		return Outcome{}, false
	}
	f, _ := r.Set.Lookup(p.Function)
	return ClassifyRelease(f, p, raw, rt.release()), true
}

// Unexpected lists results that neither hold nor are known mismatches.
func (r *Results) Unexpected() []string {
	var bad []string
	for _, p := range r.Probes.Probes {
		for _, rt := range r.Roots {
			o, ok := r.outcome(p, rt)
			if !ok || o.Verdict == Holds || o.Verdict == OlderRxe || dvAccepted(o.Verdict) || r.isKnown(p, rt, o.Verdict) {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s/%s on rdma-core %s: %s: %s", p.Function, p.Case, rt.Version, o.Verdict, o.Detail))
		}
	}
	for _, p := range r.Probes.Probes {
		for _, rt := range r.Roots {
			o, ok := r.goOutcome(p, rt)
			if !ok || (o.Verdict != GoWrong && o.Verdict != GoBroken && o.Verdict != GoLeaked) || r.isKnown(p, rt, o.Verdict) {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s/%s on rdma-core %s, Go wrapper: %s", p.Function, p.Case, rt.Version, o))
		}
	}
	for _, rt := range r.Roots {
		if msg := r.leftoverProblem(rt); msg != "" {
			bad = append(bad, fmt.Sprintf("rdma-core %s: %s", rt.Version, msg))
		}
	}
	bad = append(bad, r.proofUnexpected()...)
	bad = append(bad, r.dvUnexpected()...)
	return append(bad, r.crashUnexpected()...)
}

// Observations counts the probe results of all roots, C and Go, and the leftover checks.
func (r *Results) Observations() int {
	n := 0
	for _, raw := range r.Raw {
		n += len(raw)
	}
	for _, raw := range r.Go {
		n += len(raw)
	}
	return n + len(r.Leftovers)
}

// goCoverage counts, per library, the probes on the success path and on a provoked failure,
// and how many of each have a Go side.
type goCoverage struct {
	success, failure, goSuccess, goFailure int
}

func (r *Results) goCoverage() map[string]*goCoverage {
	cov := map[string]*goCoverage{}
	for _, p := range r.Probes.Probes {
		f, _ := r.Set.Lookup(p.Function)
		c := cov[f.Library]
		if c == nil {
			c = &goCoverage{}
			cov[f.Library] = c
		}
		hasGo := 0
		if p.Go != "" {
			hasGo = 1
		}
		if p.Expect == "success" {
			c.success++
			c.goSuccess += hasGo
		} else {
			c.failure++
			c.goFailure += hasGo
		}
	}
	return cov
}

// coverage counts, per library, what the run covered.
type coverage struct {
	documented, success, failure, untestable, proofOnly, unprobed int
}

func (r *Results) coverage() (map[string]*coverage, []string) {
	untestable := claimsByFunction(r.Probes.Untestable)
	// proven: functions of a no_failure_probe: claim whose check ran (they may have no probe:
	// the check is what is run of them).
	proven := map[string]bool{}
	for _, c := range r.Probes.NoFailureProbe {
		if c.probe == nil {
			continue
		}
		for _, rt := range r.Roots {
			if _, ok := r.Raw[rt.Name][c.probe.id]; ok {
				for _, f := range c.Functions {
					proven[f] = true
				}
			}
		}
	}
	succ, fail, _ := r.ranProbes()
	cov := map[string]*coverage{}
	var libs []string
	for _, f := range r.Set.Functions() {
		c := cov[f.Library]
		if c == nil {
			c = &coverage{}
			cov[f.Library] = c
			libs = append(libs, f.Library)
		}
		if !f.Documented {
			continue
		}
		c.documented++
		switch {
		case untestable[f.Name] != nil:
			c.untestable++
		case succ[f.Name] || fail[f.Name]:
			if succ[f.Name] {
				c.success++
			}
			if fail[f.Name] {
				c.failure++
			}
		case proven[f.Name]:
			c.proofOnly++
		default:
			c.unprobed++
		}
	}
	sort.Strings(libs)
	return cov, libs
}

// ranProbes are the functions with a success probe (succ) and with a failure probe (fail)
// that ran on a root of the run, and those whose success probe checks what the call did
// (checked: a check: of its own).
func (r *Results) ranProbes() (succ, fail, checked map[string]bool) {
	succ, fail, checked = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range r.Probes.Probes {
		for _, rt := range r.Roots {
			if _, ok := r.Raw[rt.Name][p.id]; !ok {
				continue
			}
			if p.Expect == "success" {
				succ[p.Function] = true
				checked[p.Function] = checked[p.Function] || strings.TrimSpace(p.Check) != ""
			} else {
				fail[p.Function] = true
			}
		}
	}
	return succ, fail, checked
}

// claimsByFunction maps each function of the claims to its claim.
func claimsByFunction(claims []*Claim) map[string]*Claim {
	m := map[string]*Claim{}
	for _, c := range claims {
		for _, fn := range c.Functions {
			m[fn] = c
		}
	}
	return m
}

// Summary is what doccheck prints.
func (r *Results) Summary() string {
	var b strings.Builder
	verdicts := map[string]int{}
	for _, p := range r.Probes.Probes {
		for _, rt := range r.Roots {
			if o, ok := r.outcome(p, rt); ok {
				verdicts[o.Verdict]++
			}
		}
	}
	var roots []string
	for _, rt := range r.Roots {
		roots = append(roots, "rdma-core "+rt.Version)
	}
	on := "rxe"
	if r.Own != nil {
		on = r.Own.describe(r.Roots)
	}
	fmt.Fprintf(&b, "doccheck on %s (%s): %d holds, %d violated, %d undocumented behaviour, %d check failed, %d leaked, %d probes failed",
		on, strings.Join(roots, ", "), verdicts[Holds], verdicts[Violated], verdicts[Undocumented], verdicts[CheckFailed], verdicts[Leaked], verdicts[Broken])
	if n := verdicts[OlderRxe]; n > 0 {
		fmt.Fprintf(&b, ", %d refused with EOPNOTSUPP by an older rxe (rxe_since)", n)
	}
	b.WriteString("\n")
	cov, libs := r.coverage()
	fmt.Fprintf(&b, "%-12s %10s %10s %10s %10s %10s %10s\n", "library", "documented", "success", "failure", "untestable", "proof only", "unprobed")
	for _, l := range libs {
		c := cov[l]
		fmt.Fprintf(&b, "%-12s %10d %10d %10d %10d %10d %10d\n", l, c.documented, c.success, c.failure, c.untestable, c.proofOnly, c.unprobed)
	}
	b.WriteString(r.failureSummary())
	goVerdicts := map[string]int{}
	for _, p := range r.Probes.Probes {
		for _, rt := range r.Roots {
			if o, ok := r.goOutcome(p, rt); ok {
				goVerdicts[o.Verdict]++
			}
		}
	}
	fmt.Fprintf(&b, "Go wrappers: %d holds, %d wrong error, %d Go probes failed, %d leaked, %d not compared, %d not expressed",
		goVerdicts[GoHolds], goVerdicts[GoWrong], goVerdicts[GoBroken], goVerdicts[GoLeaked], goVerdicts[GoNotCompared], goVerdicts[GoNotExpressed])
	if n := goVerdicts[GoOlderRxe]; n > 0 {
		fmt.Fprintf(&b, ", %d refused with EOPNOTSUPP by an older rxe", n)
	}
	b.WriteString("\n")
	gc := r.goCoverage()
	fmt.Fprintf(&b, "%-12s %16s %16s\n", "library", "success probes", "failure probes")
	for _, l := range libs {
		if c := gc[l]; c != nil {
			fmt.Fprintf(&b, "%-12s %16s %16s\n", l, fmt.Sprintf("%d/%d in Go", c.goSuccess, c.success), fmt.Sprintf("%d/%d in Go", c.goFailure, c.failure))
		}
	}
	for _, rt := range r.Roots {
		msg := r.leftoverProblem(rt)
		if msg == "" {
			msg = "no verbs objects left"
		}
		fmt.Fprintf(&b, "rdma-core %s: %s\n", rt.Version, msg)
	}
	b.WriteString(r.dvSummary())
	b.WriteString(r.crashSummary())
	if r.Own != nil {
		b.WriteString(r.Own.skipSummary())
	}
	return b.String()
}

// Markdown is the contract report.
func (r *Results) Markdown() string {
	var b strings.Builder
	b.WriteString("<!-- Code generated by go run ./tools/doccheck. DO NOT EDIT. -->\n\n")
	b.WriteString("# Contract report\n\n")
	b.WriteString("What each probed function's man page says it returns, and what it returned on a soft-RoCE (rxe)\n")
	b.WriteString("device in the rxe guest. Probes: `tools/doccheck/probes`; conventions: `spec/`.\n")
	b.WriteString("Regenerate with `make doccheck`.\n\n")
	b.WriteString("Each probe also runs through the generated Go API (its `go:` snippet, run by\n")
	b.WriteString("`tools/doccheck/goprobe` in the same guest after the C harness, each probe in its own process):\n")
	b.WriteString("the column \"Go wrapper\" says whether the wrapper returned nil where the C call succeeded, and\n")
	b.WriteString("where it failed an error naming the C function that `errors.Is` matches against the C call's\n")
	b.WriteString("errno or library code. Every probe process, C and Go, checks each destroy of its teardown and then,\n")
	b.WriteString("before it exits, that the kernel's resource tracker (ctx, pd, mr, cq, srq, qp, cm_id: what `rdma\n")
	b.WriteString("resource show` lists, read over RDMA netlink) holds no object of its own but librdmacm's device\n")
	b.WriteString("contexts: a failed destroy or a leftover object fails the probe. After all probes of a root, no user\n")
	b.WriteString("process may own any object (this finds objects of processes still running).\n\n")
	if r.Own != nil {
		b.WriteString(r.Own.preamble(r.Roots))
	}
	b.WriteString("## Summary\n\n```\n" + r.Summary() + "```\n\n")
	if r.Own != nil {
		b.WriteString(r.Own.skipSection())
	}
	b.WriteString("(documented: functions with a man page; success / failure: functions probed on their success path /\n")
	b.WriteString("on a provoked failure; untestable: declared untestable on rxe below; proof only: no probe, but in a\n")
	b.WriteString("no_failure_probe: claim whose check ran (the reason it cannot fail on rxe, proven); unprobed: none of these. The second\n")
	b.WriteString("table counts the failure contracts: see \"Failure contracts\" below.)\n\n")

	b.WriteString("## Probes\n\n| function | convention | case | expects |")
	for _, rt := range r.Roots {
		fmt.Fprintf(&b, " rdma-core %s |", rt.Version)
	}
	b.WriteString(" Go wrapper |\n|---|---|---|---|")
	for range r.Roots {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	var mismatches []string
	for _, p := range r.Probes.Probes {
		f, _ := r.Set.Lookup(p.Function)
		expects := p.Expect
		if p.pageSilent(f) {
			expects += " (measured: the page names no error)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |", p.Function, f.Convention, p.Case, expects)
		for _, rt := range r.Roots {
			raw, ok := r.Raw[rt.Name][p.id]
			if !ok {
				b.WriteString(" n/a |")
				continue
			}
			o := ClassifyRelease(f, p, raw, rt.release())
			shown := raw.String()
			if f.Convention == spec.Value && raw.Status == "ok" && raw.Kind == "int" {
				// A plain value (a GUID, an rkey) changes from boot to boot; the report
				// stays stable when a run changes nothing that the contract is about.
				shown = "a value"
			}
			fmt.Fprintf(&b, " %s: %s |", escapeCell(raw.withNote(shown)), o.Verdict)
			if o.Verdict != Holds && o.Verdict != OlderRxe && !dvAccepted(o.Verdict) {
				note := ""
				if r.isKnown(p, rt, o.Verdict) {
					note = " (known)"
				}
				mismatches = append(mismatches, fmt.Sprintf("- `%s` / %s on rdma-core %s — %s%s: %s (probe: %s)", p.Function, p.Case, rt.Version, o.Verdict, note, o.Detail, p.Why))
			}
		}
		fmt.Fprintf(&b, " %s |\n", escapeCell(r.goCell(p)))
	}
	b.WriteString("\n## Mismatches between page and behaviour\n\n")
	if len(mismatches) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.Join(mismatches, "\n") + "\n")
	}
	b.WriteString("\n## Go wrapper mismatches\n\n")
	var goBad []string
	for _, p := range r.Probes.Probes {
		for _, rt := range r.Roots {
			if o, ok := r.goOutcome(p, rt); ok && (o.Verdict == GoWrong || o.Verdict == GoBroken || o.Verdict == GoLeaked) {
				note := ""
				if r.isKnown(p, rt, o.Verdict) {
					note = " (known)"
				}
				goBad = append(goBad, fmt.Sprintf("- `%s` / %s on rdma-core %s — %s%s: %s", p.Function, p.Case, rt.Version, o.Verdict, note, o.Detail))
			}
		}
	}
	for _, rt := range r.Roots {
		if msg := r.leftoverProblem(rt); msg != "" {
			goBad = append(goBad, fmt.Sprintf("- rdma-core %s: %s", rt.Version, msg))
		}
	}
	if len(goBad) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.Join(goBad, "\n") + "\n")
	}
	b.WriteString(r.failureMarkdown())
	b.WriteString(r.crashMarkdown())
	b.WriteString(r.dvMarkdown())
	b.WriteString("\n## Untestable on rxe\n\n")
	for _, u := range r.Probes.Untestable {
		fmt.Fprintf(&b, "- %s: `%s` (proof: %s)\n", u.Reason, strings.Join(u.Functions, "`, `"), r.proofState(u))
	}
	return b.String()
}

// goCell is the "Go wrapper" cell: the verdict, per root where the roots differ.
func (r *Results) goCell(p *Probe) string {
	var parts []string
	var outs []GoOutcome
	for _, rt := range r.Roots {
		if o, ok := r.goOutcome(p, rt); ok {
			outs = append(outs, o)
			parts = append(parts, fmt.Sprintf("%s: %s", rt.Version, o))
		}
	}
	switch {
	case len(outs) == 0:
		return "n/a"
	case !slices.ContainsFunc(outs, func(o GoOutcome) bool { return o != outs[0] }):
		return outs[0].String()
	}
	return strings.Join(parts, "; ")
}

// escapeCell keeps a table cell on one line and its pipes out of the table syntax.
func escapeCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
