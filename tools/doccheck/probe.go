//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/gen/yamlfile"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// Probes are tools/doccheck/probes/*.yaml: the experiments doccheck runs, and the functions it
// declares untestable on rxe.
type Probes struct {
	Probes     []*Probe     `yaml:"probes"`
	Untestable []Untestable `yaml:"untestable"`
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

	id int
}

// Untestable is a documented function doccheck does not drive on rxe, and why.
type Untestable struct {
	Functions []string `yaml:"functions"`
	Reason    string   `yaml:"reason"`
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
	if st, err := os.Stat(path); err != nil {
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
	}
	return all, nil
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
		switch pr.Expect {
		case "success", "error":
		default:
			if !slices.ContainsFunc(f.Errors, func(e spec.Error) bool { return e.Name == pr.Expect }) {
				return nil, fmt.Errorf("%s: expects %s, which the page of %s does not document", where, pr.Expect, pr.Function)
			}
		}
		if pr.Expect != "success" && !hasErrorChannel(f.Convention) {
			return nil, fmt.Errorf("%s: expects a failure, but %s's convention %s has no error channel", where, pr.Function, f.Convention)
		}
	}
	for i, u := range p.Untestable {
		where := yamlfile.At(path, file, fmt.Sprintf("$.untestable[%d]", i))
		if u.Reason == "" {
			return nil, fmt.Errorf("%s: untestable %v needs a reason", where, u.Functions)
		}
		for _, fn := range u.Functions {
			if _, ok := set.Lookup(fn); !ok {
				return nil, fmt.Errorf("%s: untestable function %s is not in spec/", where, fn)
			}
		}
	}
	return &p, nil
}

func (p *Probe) runsOn(root string) bool {
	return len(p.Roots) == 0 || slices.Contains(p.Roots, root)
}

// selectOnly keeps the probes and crash-map classes whose "function/case" (or
// "function/class") matches the regular expression expr (doccheck -only); it fails when
// none does.
func selectOnly(p *Probes, m *CrashMap, expr string) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("-only: %w", err)
	}
	m.selectClasses(re)
	kept, err := selectProbes(p.Probes, expr)
	if err != nil && len(m.Classes) == 0 {
		return fmt.Errorf("-only %q matches no probe and no crash-map class", expr)
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
