//go:build linux

package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
)

// Verdicts on a probe's Go side: does the generated wrapper turn the same call into the
// right Go error?
const (
	GoHolds        = "holds"
	GoWrong        = "wrong error"
	GoBroken       = "Go probe failed"
	GoNotExpressed = "not expressed"
	GoNotCompared  = "not compared"
	GoOlderRxe     = OlderRxe
	// GoLeaked: the Go probe's process still owned verbs objects after its release and
	// teardown (goprobe's leak check); known.yaml may record a library's own leak.
	GoLeaked = "Go probe leaked"
)

// GoOutcome is a classified Go observation.
type GoOutcome struct {
	Verdict string
	Detail  string
}

func (o GoOutcome) String() string {
	if o.Detail == "" {
		return o.Verdict
	}
	return o.Verdict + " (" + o.Detail + ")"
}

// ClassifyGo judges the Go side of a probe against what the C call did on the same root:
// where C succeeded, the wrapper returns nil (and, where the snippet records one, the same
// value); where C failed, it returns an error naming f's public C function that errors.Is
// matches against the errno or library code C produced.
func ClassifyGo(f *spec.Function, p *Probe, c Raw, g GoRaw) GoOutcome {
	if o, ok := classifyGoDV(p, g); ok {
		return o
	}
	if p.Go == "" {
		reason := p.GoNot
		if reason == "" {
			reason = "no Go side yet"
		}
		return GoOutcome{GoNotExpressed, reason}
	}
	if leak, ok := strings.CutPrefix(g.Status, "leaked: "); ok {
		return GoOutcome{GoLeaked, leak}
	}
	if g.Status != "ok" {
		return GoOutcome{GoBroken, g.Status}
	}
	if c.Status != "ok" {
		return GoOutcome{GoNotCompared, "the C probe failed"}
	}
	co := classifyCall(f, p, c)
	if co.Verdict == Violated {
		// Not a result of the convention: the wrapper must at least not report success.
		if g.Err == "" {
			return GoOutcome{GoWrong, "nil error where the C call returned " + c.String()}
		}
		return namesFunc(f, g)
	}
	if !co.Failed {
		switch {
		case g.Err != "":
			return GoOutcome{GoWrong, fmt.Sprintf("%q where the C call succeeded", g.Err)}
		case g.HasValue && c.Kind != "int":
			return GoOutcome{GoBroken, "the snippet records a value, but the C call returns a " + c.Kind}
		case g.HasValue && g.Value != c.Value:
			return GoOutcome{GoWrong, fmt.Sprintf("value %d where the C call returned %d", g.Value, c.Value)}
		}
		return GoOutcome{GoHolds, ""}
	}
	if g.Err == "" {
		what := "failed"
		if co.Error != "" {
			what = "failed with " + co.Error
		}
		return GoOutcome{GoWrong, "nil error where the C call " + what}
	}
	if o := namesFunc(f, g); o.Verdict != GoHolds {
		return o
	}
	switch {
	case co.Error == "":
	case isNumber(co.Error):
		// A plain negative result (count_or_negative): the error carries the value.
		if !strings.Contains(g.Err, "("+co.Error+")") {
			return GoOutcome{GoWrong, fmt.Sprintf("%q does not carry the C result %s", g.Err, co.Error)}
		}
	case !slices.ContainsFunc(g.Is, func(n string) bool { return sameError(n, co.Error) }):
		is := "nothing"
		if len(g.Is) > 0 {
			is = strings.Join(g.Is, ", ")
		}
		return GoOutcome{GoWrong, fmt.Sprintf("errors.Is(err, %s) is false for %q (it matches %s)", co.Error, g.Err, is)}
	}
	return GoOutcome{GoHolds, co.Error}
}

// namesFunc checks that the error names f's public C function.
func namesFunc(f *spec.Function, g GoRaw) GoOutcome {
	if g.Func != "" && g.Func != f.Name {
		return GoOutcome{GoWrong, fmt.Sprintf("the error names %s, not %s", g.Func, f.Name)}
	}
	if !strings.Contains(g.Err, f.Name) {
		return GoOutcome{GoWrong, fmt.Sprintf("%q does not name %s", g.Err, f.Name)}
	}
	return GoOutcome{GoHolds, ""}
}

func isNumber(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}
