//go:build linux

package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/gen/yamlfile"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// CrashMap is tools/doccheck/crashmap.yaml: argument classes of generated ibv wrappers
// (pointer-free arguments out of their range) that doccheck runs, C and Go, to record
// which crash the process. spec/crashes claims the crashes; the two must agree.
type CrashMap struct {
	Classes []*CrashClass `yaml:"classes"`
}

// CrashClass is one argument class of one function: a C call on the harness's fixtures
// and the same call through the generated Go API.
type CrashClass struct {
	Function string   `yaml:"function"`
	Class    string   `yaml:"class"`
	Why      string   `yaml:"why"`
	Needs    []string `yaml:"needs"`
	Call     string   `yaml:"call"`
	Void     bool     `yaml:"void"`
	Cleanup  string   `yaml:"cleanup"`
	Go       string   `yaml:"go"`
	GoNot    string   `yaml:"go_not"`

	probe *Probe // the class as the harnesses run it
}

// crashIDBase is the first harness id of a crash class: the probes' ids are their indexes.
const crashIDBase = 100000

// crashRoots are the roots the crash map runs on (spec.CrashReleases: 44 and 65).
var crashRoots = []string{rxebed.RootHost, rxebed.RootSid}

// LoadCrashMap reads and checks tools/doccheck/crashmap.yaml against the spec and its crash
// claims (spec/crashes): every claim must name a class of the map.
func LoadCrashMap(path string, set *spec.Set) (*CrashMap, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCrashMap(path, raw, set)
}

func parseCrashMap(path string, raw []byte, set *spec.Set) (*CrashMap, error) {
	var m CrashMap
	file, err := yamlfile.Decode(path, raw, &m)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, c := range m.Classes {
		at := yamlfile.At(path, file, fmt.Sprintf("$.classes[%d]", i))
		if c == nil {
			return nil, fmt.Errorf("%s: class %d is empty", at, i+1)
		}
		where := fmt.Sprintf("%s: class %d (%s/%s)", at, i+1, c.Function, c.Class)
		f, ok := set.Lookup(c.Function)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: no function %s in spec/", where, c.Function)
		case f.Library != spec.LibIBVerbs:
			return nil, fmt.Errorf("%s: the crash map covers libibverbs, not %s", where, f.Library)
		case !caseName.MatchString(c.Class):
			return nil, fmt.Errorf("%s: class must be lower-case words joined by '-'", where)
		case seen[c.Function+"/"+c.Class]:
			return nil, fmt.Errorf("%s: duplicate class", where)
		case strings.TrimSpace(c.Call) == "" || c.Why == "":
			return nil, fmt.Errorf("%s: call and why are required", where)
		case c.Go != "" && c.GoNot != "":
			return nil, fmt.Errorf("%s: go and go_not exclude each other", where)
		case c.Go == "" && c.GoNot == "":
			return nil, fmt.Errorf("%s: a class needs its Go side (go) or why the Go API cannot express it (go_not)", where)
		}
		for _, n := range c.Needs {
			if !slices.Contains(fixtures, n) || slices.Contains(rpmaFixtures, n) {
				return nil, fmt.Errorf("%s: unknown fixture %q", where, n)
			}
		}
		seen[c.Function+"/"+c.Class] = true
		c.probe = &Probe{Function: c.Function, Case: c.Class, Why: c.Why, Needs: c.Needs, Call: c.Call, Void: c.Void,
			Cleanup: c.Cleanup, Go: c.Go, GoNot: c.GoNot, Roots: crashRoots, id: crashIDBase + i}
	}
	for _, cl := range set.AllCrashes() {
		if !seen[cl.Function+"/"+cl.Class] {
			return nil, fmt.Errorf("%s: spec/crashes claims %s/%s, which has no class here", path, cl.Function, cl.Class)
		}
	}
	return &m, nil
}

// probes are the classes as harness probes.
func (m *CrashMap) probes() []*Probe {
	var out []*Probe
	for _, c := range m.Classes {
		out = append(out, c.probe)
	}
	return out
}

// selectClasses keeps the classes whose "function/class" matches re (doccheck -only).
func (m *CrashMap) selectClasses(re *regexp.Regexp) {
	m.Classes = slices.DeleteFunc(m.Classes, func(c *CrashClass) bool { return !re.MatchString(c.Function + "/" + c.Class) })
}

// Crash result kinds.
const (
	CrashOK      = "succeeded"
	CrashError   = "error"
	CrashCrashed = "crashed"
	CrashHung    = "hung"
	CrashNoRun   = "did not run" // a fixture failed, or the harness stopped: no verdict
	CrashNoGo    = "not expressed"
	// CrashOther is a C result that is not one of the convention's (NULL without errno):
	// the raw result is the detail.
	CrashOther = "returned"
)

// CrashResult is what one side of a class did on one root.
type CrashResult struct {
	Kind string
	// Signal is the crash's signal name, "panic" (Go) or "hang"; Detail the rest.
	Signal string
	Detail string
}

func (c CrashResult) String() string {
	switch c.Kind {
	case CrashCrashed:
		return "**crashed (" + c.Signal + ")**"
	case CrashHung:
		return "**hung**"
	case CrashOK, CrashNoGo:
		if c.Detail != "" {
			return c.Kind + " (" + c.Detail + ")"
		}
		return c.Kind
	}
	return c.Kind + " " + c.Detail
}

// cCrashed matches the C harness's "crashed: signal N" status.
var cCrashed = regexp.MustCompile(`^crashed: signal (\d+)`)

// ClassifyCrashC says what the C side of a class did: an error (the convention's failure),
// success, a crash (the probe's child died of a signal), a hang (its alarm fired).
func ClassifyCrashC(f *spec.Function, r Raw) CrashResult {
	if m := cCrashed.FindStringSubmatch(r.Status); m != nil {
		n, _ := strconv.Atoi(m[1])
		if unix.Signal(n) == unix.SIGALRM {
			return CrashResult{Kind: CrashHung, Signal: "hang"}
		}
		return CrashResult{Kind: CrashCrashed, Signal: signalName(n)}
	}
	if r.Status != "ok" {
		return CrashResult{Kind: CrashNoRun, Detail: r.String()}
	}
	o, ok := shape(f, r)
	switch {
	case !ok:
		return CrashResult{Kind: CrashOther, Detail: r.String()}
	case o.Failed && o.Error != "":
		return CrashResult{Kind: CrashError, Detail: o.Error}
	case o.Failed:
		return CrashResult{Kind: CrashError, Detail: "(" + r.String() + ")"}
	case f.Convention == spec.Value && r.Kind == "ptr" && r.Null:
		return CrashResult{Kind: CrashOK, Detail: "NULL"}
	case f.Convention == spec.Value && r.Kind == "int":
		return CrashResult{Kind: CrashOK, Detail: strconv.FormatInt(r.Value, 10)}
	}
	return CrashResult{Kind: CrashOK}
}

func signalName(n int) string {
	if s := unix.SignalName(unix.Signal(n)); s != "" {
		return s
	}
	return "signal " + strconv.Itoa(n)
}

// goSignal finds the signal in a goprobe status of a child that died ("child exit status
// 2 (SIGSEGV): …", "child signal: aborted (SIGABRT): …").
var goSignal = regexp.MustCompile(`\((SIG[A-Z0-9]+)\)`)

// ClassifyCrashGo says what the Go side of a class did: the error the wrapper returned,
// success, a crash (the child process died, or a panic escaped the wrapper), a hang.
func ClassifyCrashGo(c *CrashClass, g GoRaw, ran bool) CrashResult {
	switch {
	case c.Go == "":
		return CrashResult{Kind: CrashNoGo, Detail: c.GoNot}
	case !ran:
		return CrashResult{Kind: CrashNoRun, Detail: "no result"}
	case g.Status == "ok" && g.Err == "":
		if g.HasValue {
			return CrashResult{Kind: CrashOK, Detail: strconv.FormatInt(g.Value, 10)}
		}
		return CrashResult{Kind: CrashOK}
	case g.Status == "ok":
		// The errno errors.Is matches, else the message (a convention without errno).
		d := fmt.Sprintf("%q", g.Err)
		if i := slices.IndexFunc(g.Is, func(n string) bool { return strings.HasPrefix(n, "E") }); i >= 0 {
			d = g.Is[i]
		}
		return CrashResult{Kind: CrashError, Detail: d}
	case strings.HasPrefix(g.Status, "hung for"):
		return CrashResult{Kind: CrashHung, Signal: "hang"}
	case strings.HasPrefix(g.Status, "panicked: "):
		return CrashResult{Kind: CrashCrashed, Signal: "panic", Detail: g.Status}
	case strings.HasPrefix(g.Status, "child "):
		sig := "died"
		if m := goSignal.FindStringSubmatch(g.Status); m != nil {
			sig = m[1]
		}
		return CrashResult{Kind: CrashCrashed, Signal: sig, Detail: g.Status}
	}
	return CrashResult{Kind: CrashNoRun, Detail: g.Status}
}

// crashOf is the claimed way one side ends on release rel, or "" for no claim.
func crashOf(claims []spec.Crash, class string, rel int, goSide bool) string {
	for _, c := range claims {
		if c.Class != class {
			continue
		}
		if goSide && slices.Contains(c.Go, rel) {
			return c.GoSig()
		}
		if !goSide && slices.Contains(c.C, rel) {
			return c.Signal
		}
	}
	return ""
}

// measuredSignal is the way a result ends the process, "" where it does not.
func measuredSignal(r CrashResult) string {
	if r.Kind == CrashCrashed || r.Kind == CrashHung {
		return r.Signal
	}
	return ""
}

// CrashDisagreements compares one side's measured result with spec/crashes's claims: a
// crash spec does not claim, a claimed crash that did not happen, another signal; a class
// that did not run cannot be judged and is reported too.
func CrashDisagreements(c *CrashClass, claims []spec.Crash, rel int, side string, r CrashResult) []string {
	goSide := side == "Go"
	where := fmt.Sprintf("crash map %s/%s on rdma-core %d, %s", c.Function, c.Class, rel, side)
	if r.Kind == CrashNoGo {
		if claim := crashOf(claims, c.Class, rel, true); claim != "" {
			return []string{fmt.Sprintf("%s: spec/crashes claims %s, but the class has no Go side (%s)", where, claim, c.GoNot)}
		}
		return nil
	}
	if r.Kind == CrashNoRun {
		return []string{fmt.Sprintf("%s: did not run: %s", where, r.Detail)}
	}
	claim, got := crashOf(claims, c.Class, rel, goSide), measuredSignal(r)
	switch {
	case claim == got:
		return nil
	case claim == "":
		return []string{fmt.Sprintf("%s: %s, which spec/crashes/%s.yaml does not claim", where, r, spec.LibIBVerbs)}
	case got == "":
		return []string{fmt.Sprintf("%s: spec/crashes claims %s, but it %s", where, claim, r)}
	}
	return []string{fmt.Sprintf("%s: spec/crashes claims %s, but it %s", where, claim, r)}
}
