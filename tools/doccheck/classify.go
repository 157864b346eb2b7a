package main

import (
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/gen/spec"
)

// Raw is what the harness observed for one probe on one root.
type Raw struct {
	ID     int    `json:"id"`
	Kind   string `json:"kind"` // "int", "ptr", "void"
	Value  int64  `json:"value"`
	Null   bool   `json:"null"`
	Errno  int    `json:"errno"`
	Status string `json:"status"` // "ok", or why the probe did not complete
}

// Verdicts.
const (
	Holds        = "holds"
	Violated     = "violated"
	Undocumented = "undocumented behaviour"
	Broken       = "probe failed"
)

// Outcome is a classified observation.
type Outcome struct {
	Verdict string
	Failed  bool   // the call reported a failure
	Error   string // the error it reported (errno name or value)
	Detail  string
}

func hasErrorChannel(c spec.Convention) bool {
	return c != spec.Value && c != spec.Void && c != spec.Undocumented
}

func errnoName(n int) string {
	if name := unix.ErrnoName(unix.Errno(n)); name != "" {
		return name
	}
	return fmt.Sprintf("errno %d", n)
}

// raw renders the observation as the report shows it.
func (r Raw) String() string {
	switch {
	case r.Status != "ok":
		return r.Status
	case r.Kind == "ptr" && r.Null:
		return fmt.Sprintf("NULL, errno %s", errnoOrZero(r.Errno))
	case r.Kind == "ptr":
		return "non-NULL"
	case r.Kind == "void":
		return "void"
	default:
		return fmt.Sprintf("%d, errno %s", r.Value, errnoOrZero(r.Errno))
	}
}

func errnoOrZero(n int) string {
	if n == 0 {
		return "0"
	}
	return errnoName(n)
}

// Classify judges one observation against the function's convention and the probe's
// expectation.
func Classify(f *spec.Function, p *Probe, r Raw) Outcome {
	if r.Status != "ok" {
		return Outcome{Verdict: Broken, Detail: r.Status}
	}
	o, ok := shape(f.Convention, r)
	if !ok {
		return Outcome{Verdict: Violated, Detail: fmt.Sprintf("%s is not a %s result (%s)", r, f.Convention, o.Detail)}
	}
	switch {
	case p.Expect == "success" && o.Failed:
		return Outcome{Verdict: Undocumented, Failed: true, Error: o.Error, Detail: "failed with " + o.Error + " where the probe expects success"}
	case p.Expect == "success":
		return Outcome{Verdict: Holds}
	case !o.Failed:
		return Outcome{Verdict: Undocumented, Detail: "succeeded where the probe provokes " + p.Expect}
	case p.Expect != "error" && o.Error != p.Expect:
		return Outcome{Verdict: Undocumented, Failed: true, Error: o.Error, Detail: fmt.Sprintf("failed with %s, the page says %s", o.Error, p.Expect)}
	}
	if len(f.Errors) > 0 && o.Error != "" && !slices.ContainsFunc(f.Errors, func(e spec.Error) bool { return e.Name == o.Error }) {
		return Outcome{Verdict: Undocumented, Failed: true, Error: o.Error, Detail: o.Error + " is not among the page's errors"}
	}
	return Outcome{Verdict: Holds, Failed: true, Error: o.Error}
}

// shape decodes a raw result under a convention: whether it failed and with what error.
// ok is false when the result cannot be one of the convention's (the page is wrong).
func shape(c spec.Convention, r Raw) (o Outcome, ok bool) {
	wantKind := "int"
	switch c {
	case spec.PointerOrNullErrno, spec.PointerOrNull:
		wantKind = "ptr"
	case spec.Void:
		wantKind = "void"
	case spec.Value:
		return Outcome{}, true
	}
	if r.Kind != wantKind {
		return Outcome{Detail: "returned a " + r.Kind}, false
	}
	v := r.Value
	switch c {
	case spec.Void:
		return Outcome{}, true
	case spec.ZeroOrErrno:
		if v == 0 {
			return Outcome{}, true
		}
		if v > 0 {
			return Outcome{Failed: true, Error: errnoName(int(v))}, true
		}
		return Outcome{Detail: "negative"}, false
	case spec.ZeroOrNegErrno, spec.CountOrNegErrno:
		if v == 0 || (v > 0 && c == spec.CountOrNegErrno) {
			return Outcome{}, true
		}
		if v < 0 {
			return Outcome{Failed: true, Error: errnoName(int(-v))}, true
		}
		return Outcome{Detail: "positive"}, false
	case spec.ZeroOrMinusOneErrno, spec.CountOrMinusOneErrno, spec.ZeroOrMinusOne, spec.CountOrMinusOne:
		if v == 0 || (v > 0 && (c == spec.CountOrMinusOneErrno || c == spec.CountOrMinusOne)) {
			return Outcome{}, true
		}
		if v != -1 {
			return Outcome{Detail: "neither success nor -1"}, false
		}
		if c == spec.ZeroOrMinusOneErrno || c == spec.CountOrMinusOneErrno {
			if r.Errno <= 0 {
				return Outcome{Detail: "-1 without errno"}, false
			}
			return Outcome{Failed: true, Error: errnoName(r.Errno)}, true
		}
		return Outcome{Failed: true}, true
	case spec.CountOrNegative:
		if v >= 0 {
			return Outcome{}, true
		}
		return Outcome{Failed: true, Error: fmt.Sprint(v)}, true
	case spec.ZeroOrNegCode:
		if v == 0 {
			return Outcome{}, true
		}
		if v < 0 {
			return Outcome{Failed: true, Error: fmt.Sprint(v)}, true
		}
		return Outcome{Detail: "positive"}, false
	case spec.PointerOrNullErrno:
		if !r.Null {
			return Outcome{}, true
		}
		if r.Errno == 0 {
			return Outcome{Detail: "NULL without errno"}, false
		}
		return Outcome{Failed: true, Error: errnoName(r.Errno)}, true
	case spec.PointerOrNull:
		return Outcome{Failed: r.Null}, true
	}
	return Outcome{Detail: "convention " + string(c) + " has no probe semantics"}, false
}
