//go:build linux

package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/gen/spec"
)

// The direct-verbs libraries on rxe: each function is called with rxe's objects, which are
// no provider's of theirs. What a function that checks its device does there is an
// ordinary contract (its "not supported" failure, its *_is_supported false); a function
// that does not check reads rxe's object as its provider's own, and spec/guards names it
// with the probes that show it (its evidence). Those probes are judged here: in C the call
// must do what the evidence says (crash, hang, or return having read rxe's memory), and
// their Go side must be refused by the wrapper's guard (a *DeviceError naming the guarded
// function, unwrapping to EOPNOTSUPP).

// Verdicts of direct-verbs probes, beside classify.go's.
const (
	// Unchecked is a guard's evidence probe whose C call read rxe's object as its
	// provider's own: crashed, hung, or returned.
	Unchecked = "does not check the device (guarded)"
	// Refused is a guard's evidence probe whose C call refused rxe's object itself: the
	// function checks its device now, and the guard's evidence is gone.
	Refused = "refused the device itself (guard evidence gone)"
	// Observed is a probe of a function no page documents (convention undocumented): no
	// contract holds or fails, its check judges what the call did.
	Observed = "observed (no page)"
)

// dvAccepted reports whether a C verdict of classifyDV is not a failure.
func dvAccepted(v string) bool { return v == Unchecked || v == Observed }

// linkGuards marks the probes spec/guards names as its guards' evidence; each must exist
// and have a Go side, the wrapper whose refusal it shows.
func linkGuards(all *Probes, set *spec.Set) error {
	for _, g := range set.AllGuards() {
		for i := range g.Evidence {
			e := &g.Evidence[i]
			i := slices.IndexFunc(all.Probes, func(p *Probe) bool { return p.Function+"/"+p.Case == e.Probe })
			if i < 0 {
				return fmt.Errorf("spec/guards: %s's evidence %s is no probe of tools/doccheck/probes", g.Function, e.Probe)
			}
			p := all.Probes[i]
			switch {
			case p.Go == "":
				return fmt.Errorf("spec/guards: %s's evidence %s needs a go: side (the wrapper's refusal)", g.Function, e.Probe)
			case p.guard != nil:
				return fmt.Errorf("spec/guards: %s is the evidence of %s and %s", e.Probe, p.guard.Function, g.Function)
			}
			p.guard, p.evidence = g, e
		}
	}
	return nil
}

// classifyDV judges what classifyReturn cannot: a guard's evidence probe, and a probe of a
// function without a page. ok is false for any other probe, and for a probe that did not
// run to its call (a fixture failed: a broken probe as any).
func classifyDV(f *spec.Function, p *Probe, r Raw) (Outcome, bool) {
	if p.evidence != nil {
		switch {
		case strings.HasPrefix(r.Status, "crashed: "):
			return Outcome{Verdict: Unchecked, Detail: r.Status}, true
		case r.Status != "ok":
			return Outcome{}, false
		}
		if refused(f, r) {
			return Outcome{Verdict: Refused, Failed: true, Error: "EOPNOTSUPP", Detail: fmt.Sprintf("%s: the call refused rxe's object itself; the evidence %s of spec/guards/%s.yaml no longer holds", r, p.evidence.Probe, f.Library)}, true
		}
		d := "returned " + r.withNote(r.String())
		if r.Teardown != "" {
			d += "; teardown: " + r.Teardown
		}
		return Outcome{Verdict: Unchecked, Detail: d}, true
	}
	if f.Convention == spec.Undocumented && r.Status == "ok" {
		if r.Check != "" {
			return Outcome{Verdict: CheckFailed, Detail: r.Check}, true
		}
		return Outcome{Verdict: Observed, Detail: r.String()}, true
	}
	return Outcome{}, false
}

// classifyGoDV judges the Go side of a guard's evidence probe: the wrapper's guard must
// refuse the call with the *DeviceError of the guarded function (which may be another
// function than the probe's: efadv_wc_read_sgid's CQ comes from efadv_cq_from_ibv_cq_ex).
func classifyGoDV(p *Probe, g GoRaw) (GoOutcome, bool) {
	if p.evidence == nil || p.Go == "" {
		return GoOutcome{}, false
	}
	switch {
	case g.Status != "ok":
		return GoOutcome{GoBroken, g.Status}, true
	case g.Guard == p.guard.Function && slices.ContainsFunc(g.Is, func(n string) bool { return sameError(n, "EOPNOTSUPP") }):
		return GoOutcome{GoHolds, "refused by the guard of " + p.guard.Function}, true
	case g.Err == "":
		return GoOutcome{GoWrong, "nil error: the guard of " + p.guard.Function + " did not refuse rxe's object"}, true
	}
	return GoOutcome{GoWrong, fmt.Sprintf("%q is not the *DeviceError of %s's guard (EOPNOTSUPP)", g.Err, p.guard.Function)}, true
}

// evidenceKind is what a guard's evidence probe did in C, in spec.GuardEvidence's terms:
// a signal name, "hang", "returned" (a failure other than EOPNOTSUPP too); or what else
// ("refused": the library's "not supported on this device"; the status of a probe that
// did not run).
func evidenceKind(f *spec.Function, r Raw) string {
	if rest, ok := strings.CutPrefix(r.Status, "crashed: signal "); ok {
		if strings.Contains(rest, "hung") {
			return "hang"
		}
		n, _, _ := strings.Cut(rest, " ")
		if sig, err := strconv.Atoi(n); err == nil {
			if name := unix.SignalName(unix.Signal(sig)); name != "" {
				return name
			}
		}
		return r.Status
	}
	if r.Status != "ok" {
		return r.Status
	}
	if refused(f, r) {
		return "refused (" + r.String() + ")"
	}
	return spec.Returned
}

// refused reports whether a call failed with the "not supported on this device" of the
// libraries that check their device: EOPNOTSUPP, by the function's convention.
func refused(f *spec.Function, r Raw) bool {
	o, ok := shape(f, r)
	return ok && o.Failed && sameError(o.Error, "EOPNOTSUPP")
}

// dvUnexpected checks each guard's evidence against what its probe did on each root run:
// on a claimed release exactly the claimed signal (or return), and nothing unclaimed. The
// own-device mode's device need not be rxe, nor its release a bed's: there the probes'
// verdicts alone count.
func (r *Results) dvUnexpected() []string {
	if r.Own != nil {
		return nil
	}
	var bad []string
	for _, p := range r.Probes.Probes {
		e := p.evidence
		if e == nil {
			continue
		}
		f, _ := r.Set.Lookup(p.Function)
		for _, rt := range r.Roots {
			raw, ok := r.Raw[rt.Name][p.id]
			if !ok {
				continue
			}
			kind := evidenceKind(f, raw)
			want, claimed := e.C[rt.release()]
			switch {
			case claimed && kind != want:
				bad = append(bad, fmt.Sprintf("%s on rdma-core %s: %s, where spec/guards/%s.yaml (%s) claims %s (the call reads memory around rxe's object: a change of the harness's fixtures can change what it does; re-measure and update c:)", e.Probe, rt.Version, kind, f.Library, p.guard.Function, want))
			case !claimed && (kind == spec.Returned || kind == "hang" || strings.HasPrefix(kind, "SIG")):
				bad = append(bad, fmt.Sprintf("%s on rdma-core %s: %s, which spec/guards/%s.yaml (%s) does not claim", e.Probe, rt.Version, kind, f.Library, p.guard.Function))
			}
		}
	}
	return bad
}

// dvProbes are the run's probes of the direct-verbs library l.
func (r *Results) dvProbes(l dvLib) []*Probe {
	var out []*Probe
	for _, p := range r.Probes.Probes {
		if pl, ok := dvLibOf(p.Function); ok && pl.Library == l.Library {
			out = append(out, p)
		}
	}
	return out
}

// dvSummary is the summary's line on the direct-verbs libraries: their probes' results
// with rxe's objects, and the functions that do not check their device.
func (r *Results) dvSummary() string {
	n, verdicts, unchecked := 0, map[string]int{}, map[string]bool{}
	for _, l := range dvLibs {
		for _, p := range r.dvProbes(l) {
			for _, rt := range r.Roots {
				if o, ok := r.outcome(p, rt); ok {
					n++
					verdicts[o.Verdict]++
				}
			}
			if p.guard != nil {
				unchecked[p.guard.Function] = true
			}
		}
	}
	if n == 0 {
		return ""
	}
	var fs []string
	for f := range unchecked {
		fs = append(fs, f)
	}
	slices.Sort(fs)
	return fmt.Sprintf("direct verbs with rxe's objects: %d results, %d holds, %d observed (no page), %d read rxe's object unchecked, %d refused by a guarded function; %d functions do not check their device, their Go wrappers refuse it (spec/guards): %s\n",
		n, verdicts[Holds], verdicts[Observed], verdicts[Unchecked], verdicts[Refused], len(fs), strings.Join(fs, ", "))
}

// dvMarkdown is the report's section on the direct-verbs libraries: per header, its
// probes on every root, the functions that do not check their device and how their
// wrappers guard them, and what is not probed.
func (r *Results) dvMarkdown() string {
	var b strings.Builder
	b.WriteString("\n## Direct verbs on rxe\n\n")
	b.WriteString("Each provider's direct-verbs library is called with objects of the rxe device (its context,\n")
	b.WriteString("PD, CQ, QP, SRQ, MR, AH), which are none of that provider's. A function that checks its\n")
	b.WriteString("device refuses them (the library's \"not supported on this device\", EOPNOTSUPP, held by the\n")
	b.WriteString("probe's check where no page names it; `*_is_supported` says false). A function that does not\n")
	b.WriteString("check reads rxe's object as its provider's own: it crashes, hangs, or returns having read or\n")
	b.WriteString("written memory of rxe's object as its provider's. `spec/guards/<library>.yaml` names those\n")
	b.WriteString("functions with these probes as evidence; their generated Go wrappers check the device's\n")
	b.WriteString("provider first (`internal/dvguard`: the library's own `*_is_supported` where there is one,\n")
	b.WriteString("else the kernel's driver id over RDMA netlink) and return a `*DeviceError` (EOPNOTSUPP)\n")
	b.WriteString("naming the function and the device. doccheck fails where a guarded function refuses rxe's\n")
	b.WriteString("object itself, does other than its evidence claims, or its wrapper does not refuse.\n")
	untestable := map[string]string{}
	for _, u := range r.Probes.Untestable {
		for _, f := range u.Functions {
			untestable[f] = u.Reason
		}
	}
	for _, l := range dvLibs {
		probes := r.dvProbes(l)
		fns := r.Set.Library(l.Library)
		if len(fns) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s (%s, package `%s`)\n\n", l.Header, l.SO, l.Package)
		var on []string
		for _, rt := range r.Roots {
			if rt.hasDV(l) {
				on = append(on, "rdma-core "+rt.Version)
			}
		}
		if len(on) == 0 {
			b.WriteString("No root of this run has it.\n")
			continue
		}
		fmt.Fprintf(&b, "On %s.\n\n", strings.Join(on, " and "))
		if len(probes) > 0 {
			b.WriteString("| function | case | probe |")
			for _, rt := range r.Roots {
				fmt.Fprintf(&b, " rdma-core %s |", rt.Version)
			}
			b.WriteString(" Go wrapper |\n|---|---|---|")
			for range r.Roots {
				b.WriteString("---|")
			}
			b.WriteString("---|\n")
			for _, p := range probes {
				fmt.Fprintf(&b, "| `%s` | %s | %s |", p.Function, p.Case, escapeCell(p.Why))
				for _, rt := range r.Roots {
					o, ok := r.outcome(p, rt)
					if !ok {
						b.WriteString(" n/a |")
						continue
					}
					raw := r.Raw[rt.Name][p.id]
					shown := raw.withNote(raw.String())
					if o.Verdict == Unchecked {
						shown = o.Detail
					}
					fmt.Fprintf(&b, " %s: %s |", escapeCell(shown), o.Verdict)
				}
				fmt.Fprintf(&b, " %s |\n", escapeCell(r.goCell(p)))
			}
		}
		if gf := r.Set.GuardFile(l.Library); gf != nil {
			fmt.Fprintf(&b, "\nDo not check their device; guarded (`spec/guards/%s.yaml`: the wrapper checks that %s):\n\n", l.Library, gf.Provider.How())
			for _, g := range gf.Guards {
				var objs []string
				for _, o := range g.Objects {
					s := "`" + o.Path + "`"
					if o.When != "" {
						s += " (when `" + o.When + "`)"
					}
					objs = append(objs, s)
				}
				var ev []string
				for _, e := range g.Evidence {
					ev = append(ev, fmt.Sprintf("`%s` %s", e.Probe, e.Text()))
				}
				own := ""
				if g.Provider != nil {
					own = " (its own check: " + g.Provider.How() + ")"
				}
				fmt.Fprintf(&b, "- `%s`, checking %s%s: %s. Evidence: %s.\n", g.Function, strings.Join(objs, ", "), own, strings.Join(strings.Fields(g.Why), " "), strings.Join(ev, "; "))
			}
		} else if len(probes) > 0 {
			b.WriteString("\nNo guard: every probed function checks its device.\n")
		}
		probed := map[string]bool{}
		for _, p := range probes {
			probed[p.Function] = true
		}
		var not []string
		for _, f := range fns {
			switch {
			case probed[f.Name]:
			case untestable[f.Name] != "":
				not = append(not, fmt.Sprintf("- `%s`: %s", f.Name, strings.Join(strings.Fields(untestable[f.Name]), " ")))
			default:
				not = append(not, fmt.Sprintf("- `%s`: no probe", f.Name))
			}
		}
		if len(not) > 0 {
			b.WriteString("\nNot probed:\n\n" + strings.Join(not, "\n") + "\n")
		}
	}
	return b.String()
}
