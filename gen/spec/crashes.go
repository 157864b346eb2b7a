package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

// CrashFile is spec/crashes/<library>.yaml: the argument classes of the crash map
// (tools/doccheck/crashmap.yaml) on which a function crashes the process, as doccheck
// measured them on rxe. The generator writes each claim into the wrapper's doc comment;
// doccheck fails when its measured crash map and these claims disagree in either
// direction, so a claim is curated from a measurement and checked by every run.
type CrashFile struct {
	Library string `yaml:"library"`
	// Reason says what the file is and how its claims are checked.
	Reason  string  `yaml:"reason"`
	Crashes []Crash `yaml:"crashes"`
}

// Crash is one argument class of one function that crashes the process.
type Crash struct {
	// Function is the C name; Class the crash map's argument class ("port-0").
	Function string `yaml:"function"`
	Class    string `yaml:"class"`
	// Signal is how the C call ends the process: a signal name ("SIGSEGV"), or "hang"
	// (no return within doccheck's limit). GoSignal is how the Go wrapper's process ends,
	// where it differs ("panic": a Go panic escapes the wrapper).
	Signal   string `yaml:"signal"`
	GoSignal string `yaml:"go_signal,omitempty"`
	// C and Go are the rdma-core releases (of the roots doccheck runs: 44, 65) on which
	// the C call and the Go wrapper crash; either may be empty (a wrapper whose Go shape
	// cannot pass the argument, or one that refuses it).
	C  []int `yaml:"c,omitempty"`
	Go []int `yaml:"go,omitempty"`
	// When says, in words for the doc comment, what the class passes ("port_num is 0").
	When string `yaml:"when"`
	// Check says what a caller checks first ("query the device's phys_port_cnt").
	Check string `yaml:"check,omitempty"`
}

// GoSig is the way the Go wrapper's process ends: GoSignal, else Signal.
func (c Crash) GoSig() string {
	if c.GoSignal != "" {
		return c.GoSignal
	}
	return c.Signal
}

var (
	crashSignal = regexp.MustCompile(`^(SIG[A-Z0-9]+|hang|panic)$`)
	crashClass  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// CrashReleases are the rdma-core releases a crash claim may name: those of the roots
// doccheck runs the crash map on.
var CrashReleases = []int{44, 65}

// loadCrashes reads dir/*.yaml (a missing dir claims nothing) into s.
func (s *Set) loadCrashes(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return fmt.Errorf("spec: list %s: %w", dir, err)
	}
	sort.Strings(paths)
	s.crashes = map[string][]Crash{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("spec: %w", err)
		}
		if err := s.parseCrashes(path, data); err != nil {
			return err
		}
	}
	return nil
}

// parseCrashes checks the crash file read from path and adds its claims.
func (s *Set) parseCrashes(path string, data []byte) error {
	var f CrashFile
	file, err := yamlfile.Decode(path, data, &f)
	if err != nil {
		return err
	}
	if err := checkLibrary(path, file, f.Library); err != nil {
		return err
	}
	if f.Reason == "" {
		return fmt.Errorf("%s: a crash file needs a reason", yamlfile.At(path, file, "$.library"))
	}
	seen := map[string]bool{}
	for i, c := range f.Crashes {
		pos := yamlfile.At(path, file, fmt.Sprintf("$.crashes[%d]", i))
		fn, ok := s.byName[c.Function]
		switch {
		case !ok:
			return fmt.Errorf("%s: unknown function %q", pos, c.Function)
		case fn.Library != f.Library:
			return fmt.Errorf("%s: %s belongs to %s, not %s", pos, c.Function, fn.Library, f.Library)
		case !crashClass.MatchString(c.Class):
			return fmt.Errorf("%s: %s: class %q must be lower-case words joined by '-'", pos, c.Function, c.Class)
		case seen[c.Function+"/"+c.Class]:
			return fmt.Errorf("%s: %s/%s claimed twice", pos, c.Function, c.Class)
		case !crashSignal.MatchString(c.Signal) || (c.GoSignal != "" && !crashSignal.MatchString(c.GoSignal)):
			return fmt.Errorf("%s: %s/%s: signal %q, go_signal %q: want a signal name (SIGSEGV), hang or panic", pos, c.Function, c.Class, c.Signal, c.GoSignal)
		case len(c.C) == 0 && len(c.Go) == 0:
			return fmt.Errorf("%s: %s/%s: a claim names the releases it crashes on (c, go)", pos, c.Function, c.Class)
		case c.When == "":
			return fmt.Errorf("%s: %s/%s: a claim says when it crashes (when)", pos, c.Function, c.Class)
		}
		for _, r := range append(slices.Clone(c.C), c.Go...) {
			if !slices.Contains(CrashReleases, r) {
				return fmt.Errorf("%s: %s/%s: release %d is not one the crash map runs on (%v)", pos, c.Function, c.Class, r, CrashReleases)
			}
		}
		seen[c.Function+"/"+c.Class] = true
		s.crashes[c.Function] = append(s.crashes[c.Function], c)
	}
	return nil
}

// Crashes returns the crash claims of function name, in file order.
func (s *Set) Crashes(name string) []Crash { return s.crashes[name] }

// AllCrashes returns every crash claim, by function name then file order.
func (s *Set) AllCrashes() []Crash {
	var names []string
	for n := range s.crashes {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Crash
	for _, n := range names {
		out = append(out, s.crashes[n]...)
	}
	return out
}
