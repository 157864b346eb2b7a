package emit

import (
	"fmt"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
)

// crashDoc is the "Crashes" text of function fn: the crash claims of spec/crashes (each
// checked by doccheck's crash map on rxe), one paragraph each.
func (e *Emitter) crashDoc(fn string) string {
	if e.Spec == nil {
		return ""
	}
	var parts []string
	for _, c := range e.Spec.Crashes(fn) {
		parts = append(parts, crashSentence(fn, c))
	}
	return strings.Join(parts, "\n\n")
}

// crashSentence says how and where claim c ends the process, for the Go wrapper first.
func crashSentence(fn string, c spec.Crash) string {
	when := strings.Join(strings.Fields(c.When), " ")
	var s string
	switch {
	case len(c.Go) > 0:
		s = fmt.Sprintf("%s on %s when %s", crashHow(c.GoSig()), releases(c.Go), when)
		if !sameInts(c.C, c.Go) {
			s += fmt.Sprintf(" (%s itself: %s)", fn, crashWhere(c))
		}
	default:
		s = fmt.Sprintf("%s itself %s on %s when %s; this wrapper cannot pass that", fn, strings.ToLower(crashHow(c.Signal)[:1])+crashHow(c.Signal)[1:], releases(c.C), when)
	}
	if c.Check != "" {
		s += "; " + strings.Join(strings.Fields(c.Check), " ") + " first"
	}
	return s + " (doccheck's crash map, class " + c.Class + ")."
}

// crashHow names the way the process ends.
func crashHow(sig string) string {
	switch sig {
	case "hang":
		return "Hangs the process"
	case "panic":
		return "Panics"
	}
	return "Crashes the process (" + sig + ")"
}

func crashWhere(c spec.Crash) string {
	if len(c.C) == 0 {
		return "no crash"
	}
	return fmt.Sprintf("%s on %s", strings.ToLower(crashHow(c.Signal)[:1])+crashHow(c.Signal)[1:], releases(c.C))
}

// releases is "rdma-core 44", "rdma-core 44 and 65".
func releases(rs []int) string {
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprint(r))
	}
	if len(s) > 1 {
		return "rdma-core " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return "rdma-core " + strings.Join(s, "")
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
