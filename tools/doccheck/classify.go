//go:build linux

package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/internal/cerr"
)

// Raw is what the harness observed for one probe on one root.
type Raw struct {
	ID     int    `json:"id"`
	Kind   string `json:"kind"` // "int", "ptr", "void"
	Value  int64  `json:"value"`
	Null   bool   `json:"null"`
	Errno  int    `json:"errno"`
	Status string `json:"status"` // "ok", or why the probe did not complete
	// Check is the probe's first check_fail message ("" when its check held or it has
	// none); Note its note() observations (out-parameters), "; "-separated.
	Check string `json:"check"`
	Note  string `json:"note"`
	// Teardown is the first destroy of the probe process's teardown that failed (or how the
	// teardown ended the process); Left the verbs objects the process still owned after it
	// (the leak check), or why they could not be listed. Both "" when all is well.
	Teardown string `json:"teardown"`
	Left     string `json:"left"`
	// LeakUS is how long the process's leak check took, in µs (its cost).
	LeakUS int64 `json:"leak_us"`
}

// afterwards says what went wrong after the call: its teardown failed or left objects behind
// ("" when neither); such a probe fails whatever its call did.
func (r Raw) afterwards() string {
	var parts []string
	if r.Teardown != "" {
		parts = append(parts, "teardown: "+r.Teardown)
	}
	if r.Left != "" {
		parts = append(parts, "leak check: "+r.Left)
	}
	return strings.Join(parts, "; ")
}

// Verdicts.
const (
	Holds        = "holds"
	Violated     = "violated"
	Undocumented = "undocumented behaviour"
	Broken       = "probe failed"
	OlderRxe     = "unsupported by this release's rxe"
	// CheckFailed: the return value is the page's, but the probe's check of what the call
	// did (the value, the effect, the completion, an out-parameter) failed.
	CheckFailed = "check failed"
	// Leaked: the probe process still owned verbs objects after its teardown (the leak
	// check). known.yaml may record a leak that a library makes itself, with the evidence; a
	// failed destroy of the teardown is Broken, never accepted.
	Leaked = "leaked"
)

// fixtureFailed starts the status of a probe whose fixture set-up failed (harness.c.tmpl's
// FIXTURE_FAILED; the errno, where the harness knows it, is in the errno field).
const fixtureFailed = "fixture set-up failed"

// ClassifyRelease is Classify on a root of rdma-core release: a probe whose RxeSince is
// newer must fail with EOPNOTSUPP there (the call, or its fixture's set-up).
func ClassifyRelease(f *spec.Function, p *Probe, r Raw, release int) Outcome {
	if o, bad := r.afterOutcome(p); bad {
		return o
	}
	if p.RxeSince == 0 || release >= p.RxeSince {
		return Classify(f, p, r)
	}
	why := fmt.Sprintf("librxe before rdma-core %d refuses it", p.RxeSince)
	if strings.HasPrefix(r.Status, fixtureFailed) && unix.Errno(r.Errno) == unix.EOPNOTSUPP {
		return Outcome{Verdict: OlderRxe, Failed: true, Error: "EOPNOTSUPP", Detail: "fixture set-up failed with EOPNOTSUPP: " + why}
	}
	if r.Status == "ok" {
		if o, ok := shape(f, r); ok && o.Failed && sameError(o.Error, "EOPNOTSUPP") {
			return Outcome{Verdict: OlderRxe, Failed: true, Error: o.Error, Detail: "EOPNOTSUPP: " + why}
		}
	}
	return Outcome{Verdict: Undocumented, Detail: fmt.Sprintf("%s where rxe_since: %d expects EOPNOTSUPP on rdma-core %d (at the call or its fixture)", r, p.RxeSince, release)}
}

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

// errnoAliases maps the second name of an errno value to the name Go's table gives it, so
// that a page's EOPNOTSUPP matches the 95 that unix.ErrnoName calls ENOTSUP.
var errnoAliases = map[string]string{"EOPNOTSUPP": "ENOTSUP", "EWOULDBLOCK": "EAGAIN", "EDEADLOCK": "EDEADLK"}

// sameError reports whether two error names are the same code.
func sameError(a, b string) bool {
	norm := func(s string) string {
		if n, ok := errnoAliases[s]; ok {
			return n
		}
		return s
	}
	return norm(a) == norm(b)
}

// libraryCodes name the negative codes of the zero_or_neg_code functions (values from
// librpma.h and verbs.h), by library, or by function where one function has its own.
var libraryCodes = map[string]map[int64]string{
	"librpma": {
		-100000: "RPMA_E_UNKNOWN", -100001: "RPMA_E_NOSUPP", -100002: "RPMA_E_PROVIDER",
		-100003: "RPMA_E_NOMEM", -100004: "RPMA_E_INVAL", -100005: "RPMA_E_NO_COMPLETION",
		-100006: "RPMA_E_NO_EVENT", -100007: "RPMA_E_AGAIN", -100008: "RPMA_E_SHARED_CHANNEL",
		-100009: "RPMA_E_NOT_SHARED_CHNL",
	},
	"ibv_rereg_mr": {
		-1: "IBV_REREG_MR_ERR_INPUT", -2: "IBV_REREG_MR_ERR_DONT_FORK_NEW", -3: "IBV_REREG_MR_ERR_DO_FORK_OLD",
		-4: "IBV_REREG_MR_ERR_CMD", -5: "IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW",
	},
}

// codeName names a negative library code of f, or prints the number.
func codeName(f *spec.Function, v int64) string {
	for _, key := range []string{f.Name, f.Library} {
		if n, ok := libraryCodes[key][v]; ok {
			return n
		}
	}
	return fmt.Sprint(v)
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

// withNote is the observation with its recorded out-parameters, as the report shows it.
func (r Raw) withNote(shown string) string {
	if r.Note == "" {
		return shown
	}
	return shown + "; " + r.Note
}

func errnoOrZero(n int) string {
	if name := unix.ErrnoName(unix.Errno(n)); name != "" {
		return name
	}
	return strconv.Itoa(n) // 0, or a value no errno has (-1): "-1, errno -1"
}

// Classify judges one observation against the function's convention and the probe's
// expectation, then the probe's check of what the call did: a result that holds by its
// return value but fails its check is CheckFailed.
func Classify(f *spec.Function, p *Probe, r Raw) Outcome {
	if o, bad := r.afterOutcome(p); bad {
		return o
	}
	return classifyCall(f, p, r)
}

// afterOutcome is the verdict of a probe whose teardown failed (Broken) or left objects
// behind (Leaked); bad is false when neither happened. A guard's evidence whose teardown
// failed is judged by its evidence (classifyDV, which shows the teardown): its call read or
// wrote rxe's object as its provider's own, and the teardown of what it damaged may fail.
func (r Raw) afterOutcome(p *Probe) (Outcome, bool) {
	switch {
	case r.Status != "ok" || r.afterwards() == "":
		return Outcome{}, false
	case p.evidence != nil && r.Left == "":
		return Outcome{}, false
	case r.Teardown != "":
		return Outcome{Verdict: Broken, Detail: r.afterwards()}, true
	}
	return Outcome{Verdict: Leaked, Detail: r.afterwards()}, true
}

// classifyCall is Classify of the call alone, whatever happened after it.
func classifyCall(f *spec.Function, p *Probe, r Raw) Outcome {
	if o, ok := classifyDV(f, p, r); ok {
		return o
	}
	o := classifyReturn(f, p, r)
	if r.Check == "" || r.Status != "ok" {
		return o
	}
	if o.Verdict == Holds {
		o.Verdict, o.Detail = CheckFailed, r.Check
	} else {
		o.Detail += "; and its check: " + r.Check
	}
	return o
}

// classifyReturn judges the return value (and errno) alone.
func classifyReturn(f *spec.Function, p *Probe, r Raw) Outcome {
	if r.Status != "ok" {
		return Outcome{Verdict: Broken, Detail: r.Status}
	}
	o, ok := shape(f, r)
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
	case p.Expect != "error" && !sameError(o.Error, p.Expect):
		return Outcome{Verdict: Undocumented, Failed: true, Error: o.Error, Detail: fmt.Sprintf("failed with %s, the page says %s", o.Error, p.Expect)}
	}
	if len(f.Errors) > 0 && o.Error != "" && !slices.ContainsFunc(f.Errors, func(e spec.Error) bool { return sameError(e.Name, o.Error) }) {
		return Outcome{Verdict: Undocumented, Failed: true, Error: o.Error, Detail: o.Error + " is not among the page's errors"}
	}
	return Outcome{Verdict: Holds, Failed: true, Error: o.Error}
}

// shape decodes a raw result under a convention: whether it failed and with what error.
// ok is false when the result cannot be one of the convention's (the page is wrong).
func shape(f *spec.Function, r Raw) (o Outcome, ok bool) {
	c := f.Convention
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
	case spec.ZeroOrEAIOrMinusOneErrno:
		switch {
		case v == 0:
			return Outcome{}, true
		case v == -1 && r.Errno > 0:
			return Outcome{Failed: true, Error: errnoName(r.Errno)}, true
		case v < 0:
			// getaddrinfo's code, as the result itself (-1 without errno: EAI_BADFLAGS).
			if n, ok := cerr.EAI[int(v)]; ok {
				return Outcome{Failed: true, Error: n}, true
			}
			return Outcome{Detail: "a negative value no EAI_* code has"}, false
		}
		return Outcome{Detail: "positive"}, false
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
			return Outcome{Failed: true, Error: codeName(f, v)}, true
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
