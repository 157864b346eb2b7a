//go:build linux

package main

import (
	"fmt"
	"slices"
	"strings"
)

// crashResults classifies both sides of class c on root rt; ok is false when the class
// did not run there (not a crash-map root, or a function the root's headers lack).
func (r *Results) crashResults(c *CrashClass, rt root) (cr, gr CrashResult, ok bool) {
	raw, ok := r.Raw[rt.Name][c.probe.id]
	if !ok {
		return CrashResult{}, CrashResult{}, false
	}
	f, _ := r.Set.Lookup(c.Function)
	g, ran := r.Go[rt.Name][c.probe.id]
	return ClassifyCrashC(f, raw), ClassifyCrashGo(c, g, ran), true
}

// crashUnexpected lists where the measured crash map and spec/crashes disagree.
func (r *Results) crashUnexpected() []string {
	if r.Crash == nil {
		return nil
	}
	var bad []string
	for _, c := range r.Crash.Classes {
		claims := r.Set.Crashes(c.Function)
		for _, rt := range r.Roots {
			cr, gr, ok := r.crashResults(c, rt)
			if !ok {
				continue
			}
			bad = append(bad, CrashDisagreements(c, claims, rt.release(), "C", cr)...)
			bad = append(bad, CrashDisagreements(c, claims, rt.release(), "Go", gr)...)
			if raw := r.Raw[rt.Name][c.probe.id]; raw.Status == "ok" && raw.afterwards() != "" {
				// A class that returned must tear down and leave nothing, like a probe.
				bad = append(bad, fmt.Sprintf("crash map %s/%s on rdma-core %d, C: %s", c.Function, c.Class, rt.release(), raw.afterwards()))
			}
		}
	}
	return bad
}

// crashSummary is the crash map's line of the summary.
func (r *Results) crashSummary() string {
	if r.Crash == nil || len(r.Crash.Classes) == 0 {
		return ""
	}
	fns := map[string]bool{}
	crashed := map[string]map[string]bool{} // "C"/"Go" -> function/class
	crashed["C"], crashed["Go"] = map[string]bool{}, map[string]bool{}
	ran := 0
	for _, c := range r.Crash.Classes {
		fns[c.Function] = true
		any := false
		for _, rt := range r.Roots {
			cr, gr, ok := r.crashResults(c, rt)
			if !ok {
				continue
			}
			any = true
			if measuredSignal(cr) != "" {
				crashed["C"][c.Function+"/"+c.Class] = true
			}
			if measuredSignal(gr) != "" {
				crashed["Go"][c.Function+"/"+c.Class] = true
			}
		}
		if any {
			ran++
		}
	}
	return fmt.Sprintf("Crash map: %d argument classes of %d functions (%d ran); %d crash or hang in C, %d through the Go wrappers; %d disagreement(s) with spec/crashes\n",
		len(r.Crash.Classes), len(fns), ran, len(crashed["C"]), len(crashed["Go"]), len(r.crashUnexpected()))
}

// crashMarkdown is the report's section "Crash map of the raw packages".
func (r *Results) crashMarkdown() string {
	if r.Crash == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Crash map of the raw packages\n\n")
	b.WriteString("The generated packages pass arguments to C as they are. `tools/doccheck/crashmap.yaml` calls\n")
	b.WriteString("libibverbs functions with pointer-free arguments out of their range (port numbers, table\n")
	b.WriteString("indexes, sizes, flags, enum values), in C and through the generated `ibv` wrapper, each in a\n")
	b.WriteString("process of its own, on rdma-core 44 (host root) and 65 (sid root). A result is the error the\n")
	b.WriteString("call returned (by the function's convention; for Go, the errno `errors.Is` matches), success\n")
	b.WriteString("(with the value of a pure function), a crash (the signal that ended the process; for Go, a\n")
	b.WriteString("panic counts) or a hang (no return in 20 s). `spec/crashes/libibverbs.yaml` claims each\n")
	b.WriteString("crash, and the wrapper's doc comment says so; doccheck fails where the claims and this table\n")
	b.WriteString("disagree.\n\n")
	var rts []root
	for _, rt := range r.Roots {
		if slices.Contains(crashRoots, rt.Name) {
			rts = append(rts, rt)
		}
	}
	b.WriteString("| function | class | argument |")
	for _, rt := range rts {
		fmt.Fprintf(&b, " rdma-core %s, C | rdma-core %s, Go |", rt.Version, rt.Version)
	}
	b.WriteString("\n|---|---|---|")
	for range rts {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for _, c := range r.Crash.Classes {
		fmt.Fprintf(&b, "| `%s` | %s | %s |", c.Function, c.Class, escapeCell(c.Why))
		for _, rt := range rts {
			cr, gr, ok := r.crashResults(c, rt)
			if !ok {
				b.WriteString(" n/a | n/a |")
				continue
			}
			fmt.Fprintf(&b, " %s | %s |", escapeCell(cr.String()), escapeCell(gr.String()))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n### Disagreements with spec/crashes\n\n")
	if bad := r.crashUnexpected(); len(bad) == 0 {
		b.WriteString("None: every crash above is claimed in `spec/crashes/libibverbs.yaml`, and every claim crashed.\n")
	} else {
		for _, s := range bad {
			b.WriteString("- " + s + "\n")
		}
	}
	return b.String()
}
