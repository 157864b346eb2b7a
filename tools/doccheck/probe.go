//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/gen/yamlfile"
	"github.com/goverbs/goverbs/internal/cerr"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// Probes are tools/doccheck/probes/*.yaml: the experiments doccheck runs, the functions it
// declares untestable on rxe, and the functions with an error channel it probes on no
// failure; each reason may carry a proof that runs in the guest.
type Probes struct {
	Probes     []*Probe `yaml:"probes"`
	Untestable []*Claim `yaml:"untestable"`
	// NoFailureProbe are functions with an error channel that have no failure probe, each
	// entry with a reason its check proves on every root (or proof: none and a reason why
	// nothing can be checked).
	NoFailureProbe []*Claim `yaml:"no_failure_probe"`
}

// Probe is one call of one function on rxe, under stated preconditions.
type Probe struct {
	Function string   `yaml:"function"`
	Case     string   `yaml:"case"`  // a short name, unique per function
	Why      string   `yaml:"why"`   // what the case provokes, in words
	Needs    []string `yaml:"needs"` // fixtures the call uses (see fixtures)
	// Call is the C expression; Void marks a call of a void function.
	Call string `yaml:"call"`
	Void bool   `yaml:"void"`
	// Check is C run right after the call (`ret` in scope, before Cleanup) that judges what
	// the call did beyond its return value: the value against what the probe set up, the
	// effect a void function promises, a post's completion, the out-parameters the page
	// documents. check_fail(fmt, ...) fails the probe's check (verdict CheckFailed; the
	// first message counts); note(fmt, ...) records an observation the report shows (an
	// out-parameter: "*bad_wr = the failing WR").
	Check string `yaml:"check"`
	// Cleanup is C run after the call; `ret` is the call's result.
	Cleanup string `yaml:"cleanup"`
	// Expect is "success", "error" (any failure the convention allows), or the name of a
	// documented error (EINVAL, RPMA_E_PROVIDER …).
	Expect string `yaml:"expect"`
	// Roots limits the probe to some guest roots (rxebed.Roots: "host" is rdma-core 44,
	// "sid" 65, "trixie" 56, "bullseye" 33).
	Roots []string `yaml:"roots"`
	// RxeSince is the first rdma-core release whose librxe has what the probe needs (the
	// extended CQs and QPs: 34; memory windows: 36), where that is newer than the oldest
	// root's. On an older release the probe must fail with EOPNOTSUPP, at its fixture or
	// at the call, in C and in Go: verdict OlderRxe; anything else is a failure.
	RxeSince int `yaml:"rxe_since"`
	// Go is the same call through the generated Go API: the body of a func() error
	// returning the call's error, with the fixtures and helpers of tools/doccheck/goprobe.
	// GoNot says why the Go API cannot express the call, where it cannot.
	Go    string `yaml:"go"`
	GoNot string `yaml:"go_not"`

	id    int
	claim *Claim // the claim whose proof this is; nil for a probe
	// guard and evidence, for a probe spec/guards names as a guard's evidence: the C call
	// reads rxe's object unchecked, the Go wrapper refuses it (dvreport.go).
	guard    *spec.Guard
	evidence *spec.GuardEvidence
	// vacuous is the probe's breach of the no-vacuous-verdict rule (checkVacuous), an
	// error of LoadProbes unless the probe is a guard's evidence.
	vacuous error
}

// Claim is an entry of untestable: (functions doccheck does not drive on rxe) or of
// no_failure_probe: (functions with an error channel and no failure probe): the functions, the
// reason, and the proof of the reason, C statements run in the guest on every root where the
// first function is declared, in a probe process of their own (needs: the fixtures they use;
// check_fail fails the proof, and a failed proof fails the run). Proof "none" says that no
// check is possible (the reason says why; then check is empty).
type Claim struct {
	Functions []string `yaml:"functions"`
	Reason    string   `yaml:"reason"`
	Needs     []string `yaml:"needs"`
	Check     string   `yaml:"check"`
	Proof     string   `yaml:"proof"`

	kind    string // "untestable" or "no_failure_probe"
	at      string // file:line of the entry
	probe   *Probe // the proof as the harness runs it; nil without a check
	skipped bool   // its proof was left out (doccheck -only)
}

// Claim kinds, as the probe files spell their lists.
const (
	claimUntestable = "untestable"
	claimNoFailure  = "no_failure_probe"
)

// proofIDBase is the first harness id of a proof: probes' ids are their indexes, crash-map
// classes start at crashIDBase.
const proofIDBase = 200000

// Proven is the proof's verdict where its check held on a root; ProofFailed where it did
// not (the reason is false there, or the check could not run).
const (
	Proven      = "proven"
	ProofFailed = "proof failed"
)

// isPost reports a post function: every probe of one must check what it posted (the
// completion, *bad_wr).
func isPost(fn string) bool {
	return strings.HasPrefix(fn, "ibv_post_") || fn == "ibv_wr_complete" || strings.HasPrefix(fn, "rdma_post_")
}

// goChecks reports whether a Go snippet can fail on its own beyond returning the call's error:
// it compares (an if, an error it makes, a check helper of goprobe's checks.go) or records a
// value compared with C's (same, count).
func goChecks(snippet string) bool {
	for _, w := range []string{"if ", "same(", "count(", "fmt.Errorf(", "errors.New(", "wantComp(", "wantData(", "wantAddr(", "nonePosted("} {
		if strings.Contains(snippet, w) {
			return true
		}
	}
	return false
}

// checkVacuous is the rule "no vacuous verdict": a success probe of a value or void function,
// and every probe of a post function, checks what the call did (check:), and its Go side,
// where it has one, checks too.
func checkVacuous(pr *Probe, f *spec.Function) error {
	switch {
	case isPost(pr.Function):
	case pr.Expect == "success" && (f.Convention == spec.Value || f.Convention == spec.Void):
	default:
		return nil
	}
	what := "a success probe of a " + string(f.Convention) + " function"
	if isPost(pr.Function) {
		what = "a probe of a post function"
	}
	if strings.TrimSpace(pr.Check) == "" {
		return fmt.Errorf("%s needs a check: of what the call did (its value against what the probe set up, the effect it promises, the completion and *bad_wr of a post), or its verdict cannot fail", what)
	}
	if pr.Go != "" && !goChecks(pr.Go) {
		return fmt.Errorf("%s: its go: snippet returns the call's error only; it must check the same as check: (an if, or same/count for a value C's check compares)", what)
	}
	return nil
}

// fixtures the C harness can set up, in dependency order (see harness.c.tmpl).
var fixtures = []string{"dev", "ctx", "dev_attr", "pd", "ch", "cq", "chcq", "qp", "mr", "ech", "cmid", "srq", "cqx", "lqp", "ah", "rcmid", "xqp", "xpoll", "wqp", "conn", "qpless", "mcid", "udep", "rpeers", "rreq", "rsreq", "rconn", "rconnsh", "xrpoll", "xinv"}

// rpmaFixtures exist only in a harness built with librpma (the sid root): only probes of
// librpma functions, which run there only, may need them.
var rpmaFixtures = []string{"rpeers", "rreq", "rsreq", "rconn", "rconnsh"}

var caseName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// LoadProbes reads and checks the probe files against the spec: every function exists, every
// expected error is documented, and names, fixtures and roots are known. path is one file or
// a directory (tools/doccheck/probes: a file per library), whose *.yaml files are read in
// the order of their names; a probe's id is its index in that order, and a function/case
// appears once across them.
func LoadProbes(path string, set *spec.Set) (*Probes, error) {
	files := []string{path}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	} else if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.yaml")); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no probe files (*.yaml)", path)
		}
		slices.Sort(files)
	}
	all := &Probes{}
	where := map[string]string{} // function/case -> the file that has it
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p, err := parseProbes(f, raw, set)
		if err != nil {
			return nil, err
		}
		for _, pr := range p.Probes {
			k := pr.Function + "/" + pr.Case
			if other, dup := where[k]; dup {
				return nil, fmt.Errorf("%s: probe %s is in %s too", f, k, other)
			}
			where[k] = f
			pr.id = len(all.Probes)
			all.Probes = append(all.Probes, pr)
		}
		all.Untestable = append(all.Untestable, p.Untestable...)
		all.NoFailureProbe = append(all.NoFailureProbe, p.NoFailureProbe...)
	}
	if err := all.checkClaims(); err != nil {
		return nil, err
	}
	if st.IsDir() { // else one file (a test's): spec/guards' evidence is in the directory's
		if err := linkGuards(all, set); err != nil {
			return nil, err
		}
	}
	return all, all.vacuousError()
}

// vacuousError is the first probe's breach of the no-vacuous-verdict rule. A guard's evidence
// is exempt: what its C call does with rxe's object is no contract, and it is judged by the
// evidence spec/guards records for each release and by its Go side's *DeviceError, either
// of which can fail.
func (all *Probes) vacuousError() error {
	for _, p := range all.Probes {
		if p.vacuous != nil && p.guard == nil {
			return p.vacuous
		}
	}
	return nil
}

// checkClaims checks the claims of all files together: a function is claimed once, an
// untestable function has no probe, a function without a failure probe has none; and it
// numbers the proofs (proofIDBase on, in file order).
func (p *Probes) checkClaims() error {
	probed, failProbed := map[string]bool{}, map[string]bool{}
	for _, pr := range p.Probes {
		probed[pr.Function] = true
		if pr.Expect != "success" {
			failProbed[pr.Function] = true
		}
	}
	claimed := map[string]string{}
	n := 0
	for _, c := range p.Claims() {
		for _, fn := range c.Functions {
			if other, dup := claimed[fn]; dup {
				return fmt.Errorf("%s: %s is claimed twice (also at %s)", c.at, fn, other)
			}
			claimed[fn] = c.at
			switch {
			case c.kind == claimUntestable && probed[fn]:
				return fmt.Errorf("%s: untestable %s has a probe: drop it from untestable", c.at, fn)
			case c.kind == claimNoFailure && failProbed[fn]:
				return fmt.Errorf("%s: %s is in no_failure_probe but has a failure probe: drop it from the list", c.at, fn)
			}
		}
		if c.probe != nil {
			c.probe.id = proofIDBase + n
			n++
		}
	}
	return nil
}

// Claims are the no_failure_probe then the untestable entries.
func (p *Probes) Claims() []*Claim {
	return append(slices.Clone(p.NoFailureProbe), p.Untestable...)
}

// proofs are the claims' checks as harness probes.
func (p *Probes) proofs() []*Probe {
	var out []*Probe
	for _, c := range p.Claims() {
		if c.probe != nil {
			out = append(out, c.probe)
		}
	}
	return out
}

// parseProbes checks the probe file read from path; every error starts with "path:line: "
// (or "path: " where the entry has no position).
func parseProbes(path string, raw []byte, set *spec.Set) (*Probes, error) {
	var p Probes
	file, err := yamlfile.Decode(path, raw, &p)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, pr := range p.Probes {
		at := yamlfile.At(path, file, fmt.Sprintf("$.probes[%d]", i))
		if pr == nil {
			// "- " with nothing after it (a fuzzer find: it crashed doccheck).
			return nil, fmt.Errorf("%s: probe %d is empty", at, i+1)
		}
		pr.id = i
		where := fmt.Sprintf("%s: probe %d (%s/%s)", at, i+1, pr.Function, pr.Case)
		f, ok := set.Lookup(pr.Function)
		if !ok {
			return nil, fmt.Errorf("%s: no function %s in spec/", where, pr.Function)
		}
		if !caseName.MatchString(pr.Case) {
			return nil, fmt.Errorf("%s: case must be lower-case words joined by '-'", where)
		}
		if seen[pr.Function+"/"+pr.Case] {
			return nil, fmt.Errorf("%s: duplicate case", where)
		}
		seen[pr.Function+"/"+pr.Case] = true
		if strings.TrimSpace(pr.Call) == "" || pr.Why == "" {
			return nil, fmt.Errorf("%s: call and why are required", where)
		}
		if pr.Go != "" && pr.GoNot != "" {
			return nil, fmt.Errorf("%s: go and go_not exclude each other", where)
		}
		for _, n := range pr.Needs {
			if !slices.Contains(fixtures, n) {
				return nil, fmt.Errorf("%s: unknown fixture %q (have %v)", where, n, fixtures)
			}
			if slices.Contains(rpmaFixtures, n) && !strings.HasPrefix(pr.Function, "rpma_") {
				return nil, fmt.Errorf("%s: fixture %s exists only for librpma probes", where, n)
			}
		}
		for _, r := range pr.Roots {
			if !slices.Contains(rxebed.Roots, r) {
				return nil, fmt.Errorf("%s: unknown root %q", where, r)
			}
		}
		switch {
		case pr.Expect == "success" || pr.Expect == "error":
		case slices.ContainsFunc(f.Errors, func(e spec.Error) bool { return e.Name == pr.Expect }):
		case len(f.Errors) == 0 && knownCode(pr.Expect):
			// The page names no error: the probe expects the one measured (pageSilent).
		case len(f.Errors) == 0:
			return nil, fmt.Errorf("%s: expects %s, which is no errno name or library code", where, pr.Expect)
		default:
			return nil, fmt.Errorf("%s: expects %s, which the page of %s does not document", where, pr.Expect, pr.Function)
		}
		if pr.Expect != "success" && pr.Expect != "error" && !carriesError(f.Convention) {
			return nil, fmt.Errorf("%s: expects %s, but %s's convention %s reports no errno or code (expect: error, and check errno in check:)", where, pr.Expect, pr.Function, f.Convention)
		}
		if pr.Expect != "success" && !hasErrorChannel(f.Convention) {
			return nil, fmt.Errorf("%s: expects a failure, but %s's convention %s has no error channel", where, pr.Function, f.Convention)
		}
		if err := checkVacuous(pr, f); err != nil {
			// Judged once spec/guards' evidence is linked (vacuousError).
			pr.vacuous = fmt.Errorf("%s: %w", where, err)
		}
	}
	for _, list := range []struct {
		kind   string
		claims []*Claim
	}{{claimUntestable, p.Untestable}, {claimNoFailure, p.NoFailureProbe}} {
		for i, c := range list.claims {
			at := yamlfile.At(path, file, fmt.Sprintf("$.%s[%d]", list.kind, i))
			if c == nil {
				return nil, fmt.Errorf("%s: %s entry %d is empty", at, list.kind, i+1)
			}
			c.kind, c.at = list.kind, at
			if err := checkClaim(c, set); err != nil {
				return nil, fmt.Errorf("%s: %s %v: %w", at, list.kind, c.Functions, err)
			}
		}
	}
	if err := p.checkClaims(); err != nil {
		return nil, err
	}
	return &p, nil
}

// checkClaim checks one untestable or no_failure_probe entry and makes its proof a probe.
func checkClaim(c *Claim, set *spec.Set) error {
	if c.Reason == "" {
		return errors.New("needs a reason")
	}
	if len(c.Functions) == 0 {
		return errors.New("names no function")
	}
	allRpma := true
	for _, fn := range c.Functions {
		f, ok := set.Lookup(fn)
		if !ok {
			return fmt.Errorf("function %s is not in spec/", fn)
		}
		if c.kind == claimNoFailure && !hasErrorChannel(f.Convention) {
			return fmt.Errorf("%s's convention %s has no error channel: it needs no failure probe", fn, f.Convention)
		}
		allRpma = allRpma && strings.HasPrefix(fn, "rpma_")
	}
	for _, n := range c.Needs {
		if !slices.Contains(fixtures, n) {
			return fmt.Errorf("unknown fixture %q (have %v)", n, fixtures)
		}
		if slices.Contains(rpmaFixtures, n) && !allRpma {
			return fmt.Errorf("fixture %s exists only for librpma functions", n)
		}
	}
	check := strings.TrimSpace(c.Check)
	switch {
	case c.Proof != "" && c.Proof != "none":
		return fmt.Errorf("proof %q: the only value is none (no check is possible)", c.Proof)
	case c.Proof == "none" && (check != "" || len(c.Needs) > 0):
		return errors.New("proof: none and a check (or needs) exclude each other")
	case c.Proof == "" && check == "" && c.kind == claimNoFailure:
		return errors.New("needs a check: proving the reason in the guest (or proof: none, with a reason saying why nothing can be checked)")
	case c.Proof == "" && check == "" && len(c.Needs) > 0:
		return errors.New("needs fixtures but has no check")
	}
	if check != "" {
		c.probe = &Probe{Function: c.Functions[0], Case: strings.ReplaceAll(c.kind, "_", "-"), Why: c.Reason, Needs: c.Needs,
			Call: "0", Check: c.Check, Expect: "success", id: -1, claim: c}
	}
	return nil
}

// knownCode reports an errno name (ENOTSUP and its alias EOPNOTSUPP alike), a getaddrinfo
// EAI_* code or a library code doccheck can name.
func knownCode(name string) bool {
	if n, ok := errnoAliases[name]; ok {
		name = n
	}
	for e := 1; e < 4096; e++ {
		if unix.ErrnoName(unix.Errno(e)) == name {
			return true
		}
	}
	for _, names := range libraryCodes {
		for _, n := range names {
			if n == name {
				return true
			}
		}
	}
	for _, n := range cerr.EAI {
		if n == name {
			return true
		}
	}
	return false
}

// carriesError reports whether a failure of convention c names its error (an errno or a
// library code), which a probe's specific expect: is compared with.
func carriesError(c spec.Convention) bool {
	switch c {
	case spec.ZeroOrMinusOne, spec.CountOrMinusOne, spec.PointerOrNull:
		return false
	}
	return hasErrorChannel(c)
}

// pageSilent reports a probe expecting a specific errno or code of a function whose page
// names none: the measured one (the report says so).
func (p *Probe) pageSilent(f *spec.Function) bool {
	return p.Expect != "success" && p.Expect != "error" && len(f.Errors) == 0
}

func (p *Probe) runsOn(root string) bool {
	return len(p.Roots) == 0 || slices.Contains(p.Roots, root)
}

// selectOnly keeps the probes, proofs and crash-map classes whose "function/case" (or
// "function/class"; for a proof, any of its functions and its kind, "no-failure-probe" or
// "untestable") matches the regular expression expr (doccheck -only); it fails when none
// does.
func selectOnly(p *Probes, m *CrashMap, expr string) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("-only: %w", err)
	}
	m.selectClasses(re)
	proofs := 0
	for _, c := range p.Claims() {
		if c.probe == nil {
			continue
		}
		if !slices.ContainsFunc(c.Functions, func(fn string) bool { return re.MatchString(fn + "/" + c.probe.Case) }) {
			c.probe, c.skipped = nil, true
			continue
		}
		proofs++
	}
	kept, err := selectProbes(p.Probes, expr)
	if err != nil && len(m.Classes) == 0 && proofs == 0 {
		return fmt.Errorf("-only %q matches no probe, no proof and no crash-map class", expr)
	}
	p.Probes = kept
	return nil
}

// selectProbes keeps the probes whose "function/case" matches the regular expression expr
// (doccheck -only); it fails when none does.
func selectProbes(probes []*Probe, expr string) ([]*Probe, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("-only: %w", err)
	}
	var kept []*Probe
	for _, p := range probes {
		if re.MatchString(p.Function + "/" + p.Case) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("-only %q matches no probe", expr)
	}
	return kept, nil
}
