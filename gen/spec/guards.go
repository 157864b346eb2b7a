package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

// GuardFile is spec/guards/<library>.yaml: the functions of a direct-verbs library that
// do not check the device of the objects they are given and read them as their provider's
// own, as doccheck measured on rxe (a crash, or memory read or written out of bounds). The
// generator makes their wrappers check the device's provider first (internal/dvguard) and
// return a *DeviceError instead of calling C; doccheck fails when a guard's evidence no
// longer holds (the C call refuses the device itself) or its Go wrapper does not refuse.
type GuardFile struct {
	Library string `yaml:"library"`
	// Reason says what the file is and how its guards are checked.
	Reason   string        `yaml:"reason"`
	Provider GuardProvider `yaml:"provider"`
	Guards   []Guard       `yaml:"guards"`
}

// GuardProvider says how a wrapper tells the provider's devices: the library's own check
// (Supported: a function of the library taking a struct ibv_device *, "mlx5dv_is_supported"),
// or, where the library has none, the kernel's driver id (Driver: an enumerator of enum
// rdma_driver_id, "RDMA_DRIVER_MLX4"), or, for devices that no kernel driver has, the
// library's function that lists them (Listed: "mlx5dv_get_vfio_device_list", whose devices
// have no name, where every kernel device has one). Exactly one is set.
type GuardProvider struct {
	Driver    string `yaml:"driver,omitempty"`
	Supported string `yaml:"supported,omitempty"`
	Listed    string `yaml:"listed,omitempty"`
	// Name names the provider's devices in errors and docs ("mlx5 VFIO"); the library's
	// name by default.
	Name string `yaml:"name,omitempty"`
}

// Who is the provider's name: Name, else the library lib.
func (p GuardProvider) Who(lib string) string {
	if p.Name != "" {
		return p.Name
	}
	return lib
}

// How says, for docs, what the wrapper checks of the device.
func (p GuardProvider) How() string {
	switch {
	case p.Supported != "":
		return p.Supported + " accepts the device"
	case p.Listed != "":
		return "the device is one that " + p.Listed + " lists: it has no name, as no kernel driver has it"
	}
	return "the kernel's driver id of the device is " + p.Driver
}

// Kind is which of the checks p sets: "driver", "supported" or "listed".
func (p GuardProvider) Kind() string {
	switch {
	case p.Supported != "":
		return "supported"
	case p.Listed != "":
		return "listed"
	}
	return "driver"
}

// Guard is one guarded function.
type Guard struct {
	Function string `yaml:"function"`
	// Objects are the arguments whose device is checked, in the function's C terms.
	Objects []GuardObject `yaml:"objects"`
	// Why says, for the doc comment, what the function does with another provider's
	// object ("reads ctx_in as mlx4's context without checking its device").
	Why string `yaml:"why"`
	// Evidence are the doccheck probes that show it on rxe.
	Evidence []GuardEvidence `yaml:"evidence"`
	// Provider, where set, is this function's own check of the device, in place of the
	// file's (the VFIO calls of mlx5dv.h take a context of mlx5's VFIO devices only).
	Provider *GuardProvider `yaml:"provider,omitempty"`
}

// ProviderOf is the check of g: its own, else the file's.
func (f *GuardFile) ProviderOf(g *Guard) GuardProvider {
	if g.Provider != nil {
		return *g.Provider
	}
	return f.Provider
}

// GuardObject is one checked argument: a parameter, or a member path from one
// ("obj.qp.in"), ending at a pointer to a verbs object (context, PD, CQ, QP, …); When,
// "param & CONSTANT", limits the check to calls that set that bit (the objects
// mlx4dv_init_obj reads are those its obj_type names).
type GuardObject struct {
	Path string `yaml:"path"`
	When string `yaml:"when,omitempty"`
}

// GuardEvidence is one probe of tools/doccheck/probes ("function/case") in which the C call
// read rxe's object as the provider's. C says what it did on each rdma-core release it was
// measured on (of the roots doccheck runs: 44, 65): a signal name ("SIGSEGV") or "hang" where
// it ended the process, "returned" where it returned (with what it read or wrote of rxe's
// object, or a failure other than the library's "not supported"). What such a call does
// depends on the memory around rxe's object, so a change of the harness's fixtures can change
// it: doccheck then names what it measured. The probe may be of another function
// (efadv_wc_read_sgid on the CQ efadv_cq_from_ibv_cq_ex returned): its Go side must then fail
// with the guard's error of the guarded function.
type GuardEvidence struct {
	Probe string         `yaml:"probe"`
	C     map[int]string `yaml:"c"`
}

// Releases are the releases of C, in order.
func (e GuardEvidence) Releases() []int {
	var rs []int
	for r := range e.C {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	return rs
}

// Returned is what GuardEvidence.C says of a call that returned.
const Returned = "returned"

var (
	guardPath   = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$`)
	guardWhen   = regexp.MustCompile(`^([a-z_][a-z0-9_]*) & ([A-Z_][A-Z0-9_]*)$`)
	guardProbe  = regexp.MustCompile(`^[a-z_][a-z0-9_]*/[a-z0-9][a-z0-9-]*$`)
	guardDriver = regexp.MustCompile(`^RDMA_DRIVER_[A-Z0-9_]+$`)
)

// WhenParts splits a When into the parameter and the constant ("obj_type", "MLX4DV_OBJ_QP").
func (o GuardObject) WhenParts() (param, constant string) {
	m := guardWhen.FindStringSubmatch(o.When)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// Text says what the probe did in C, release by release: "crashed the process (SIGSEGV)
// on rdma-core 44 and 65", "returned on rdma-core 44 and crashed the process (SIGSEGV) on
// rdma-core 65".
func (e GuardEvidence) Text() string {
	var kinds []string
	by := map[string][]string{}
	for _, r := range e.Releases() {
		k := e.C[r]
		if by[k] == nil {
			kinds = append(kinds, k)
		}
		by[k] = append(by[k], strconv.Itoa(r))
	}
	var parts []string
	for _, k := range kinds {
		what := "returned"
		switch k {
		case Returned:
		case "hang":
			what = "hung the process"
		default:
			what = "crashed the process (" + k + ")"
		}
		rs := by[k]
		on := rs[len(rs)-1]
		if len(rs) > 1 {
			on = strings.Join(rs[:len(rs)-1], ", ") + " and " + on
		}
		parts = append(parts, what+" on rdma-core "+on)
	}
	return strings.Join(parts, " and ")
}

// loadGuards reads dir/*.yaml (a missing dir guards nothing) into s.
func (s *Set) loadGuards(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return fmt.Errorf("spec: list %s: %w", dir, err)
	}
	sort.Strings(paths)
	s.guards = map[string]*Guard{}
	s.guardFiles = map[string]*GuardFile{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("spec: %w", err)
		}
		if err := s.parseGuards(path, data); err != nil {
			return err
		}
	}
	return nil
}

// parseGuards checks the guard file read from path and adds its guards.
func (s *Set) parseGuards(path string, data []byte) error {
	var f GuardFile
	file, err := yamlfile.Decode(path, data, &f)
	if err != nil {
		return err
	}
	if err := checkLibrary(path, file, f.Library); err != nil {
		return err
	}
	at := func(p string) string { return yamlfile.At(path, file, p) }
	if f.Reason == "" {
		return fmt.Errorf("%s: a guard file needs a reason", at("$.library"))
	}
	if err := s.checkProvider(at, "$.library", "$.provider", f.Provider, f.Library); err != nil {
		return err
	}
	if len(f.Guards) == 0 {
		return fmt.Errorf("%s: no guards", at("$.library"))
	}
	for i := range f.Guards {
		g := &f.Guards[i]
		pos := at(fmt.Sprintf("$.guards[%d]", i))
		fn, ok := s.byName[g.Function]
		switch {
		case !ok:
			return fmt.Errorf("%s: unknown function %q", pos, g.Function)
		case fn.Library != f.Library:
			return fmt.Errorf("%s: %s belongs to %s, not %s", pos, g.Function, fn.Library, f.Library)
		case s.guards[g.Function] != nil:
			return fmt.Errorf("%s: %s guarded twice", pos, g.Function)
		case len(g.Objects) == 0:
			return fmt.Errorf("%s: %s: a guard names the objects it checks (objects)", pos, g.Function)
		case g.Why == "":
			return fmt.Errorf("%s: %s: a guard says what the function does unchecked (why)", pos, g.Function)
		case len(g.Evidence) == 0:
			return fmt.Errorf("%s: %s: a guard names its evidence, the doccheck probes that show it (evidence)", pos, g.Function)
		}
		if g.Provider != nil {
			if err := s.checkProvider(at, fmt.Sprintf("$.guards[%d]", i), fmt.Sprintf("$.guards[%d].provider", i), *g.Provider, f.Library); err != nil {
				return err
			}
		}
		for j, o := range g.Objects {
			if !guardPath.MatchString(o.Path) || (o.When != "" && !guardWhen.MatchString(o.When)) {
				return fmt.Errorf("%s: %s: object %q (when %q): want a parameter or member path (obj.qp.in), and when as \"param & CONSTANT\"", at(fmt.Sprintf("$.guards[%d].objects[%d]", i, j)), g.Function, o.Path, o.When)
			}
		}
		seen := map[string]bool{}
		for j, e := range g.Evidence {
			epos := at(fmt.Sprintf("$.guards[%d].evidence[%d]", i, j))
			switch {
			case !guardProbe.MatchString(e.Probe):
				return fmt.Errorf("%s: %s: probe %q: want function/case", epos, g.Function, e.Probe)
			case seen[e.Probe]:
				return fmt.Errorf("%s: %s: probe %s named twice", epos, g.Function, e.Probe)
			case len(e.C) == 0:
				return fmt.Errorf("%s: %s: the evidence says what the call did on each release it was measured on (c)", epos, g.Function)
			}
			if pf, ok := s.byName[strings.SplitN(e.Probe, "/", 2)[0]]; !ok || pf.Library != f.Library {
				return fmt.Errorf("%s: %s: probe %s is not of a function of %s", epos, g.Function, e.Probe, f.Library)
			}
			for _, r := range e.Releases() {
				switch sig := e.C[r]; {
				case !slices.Contains(CrashReleases, r):
					return fmt.Errorf("%s: %s: release %d is not one doccheck runs on (%v)", epos, g.Function, r, CrashReleases)
				case sig != Returned && !crashSignal.MatchString(sig):
					return fmt.Errorf("%s: %s: %q on rdma-core %d: want a signal name (SIGSEGV), hang or returned", epos, g.Function, sig, r)
				}
			}
			seen[e.Probe] = true
		}
		s.guards[g.Function] = g
	}
	s.guardFiles[f.Library] = &f
	return nil
}

// checkProvider checks the provider of a file or of one guard (at the YAML paths entry and
// prov, the provider's own).
func (s *Set) checkProvider(at func(string) string, entry, prov string, p GuardProvider, lib string) error {
	set := 0
	for _, v := range []string{p.Driver, p.Supported, p.Listed} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("%s: provider: set driver (an RDMA_DRIVER_* id), supported (the library's own check) or listed (the library's list of devices no kernel driver has), one of them", at(entry))
	}
	switch {
	case p.Driver != "" && !guardDriver.MatchString(p.Driver):
		return fmt.Errorf("%s: driver %q is not an RDMA_DRIVER_* enumerator", at(prov+".driver"), p.Driver)
	case p.Supported != "":
		fn, ok := s.byName[p.Supported]
		if !ok || fn.Library != lib || fn.Convention != Value {
			return fmt.Errorf("%s: supported %q: want a value function of %s (its *_is_supported)", at(prov+".supported"), p.Supported, lib)
		}
	case p.Listed != "":
		if fn, ok := s.byName[p.Listed]; !ok || fn.Library != lib {
			return fmt.Errorf("%s: listed %q: want a function of %s (its list of devices)", at(prov+".listed"), p.Listed, lib)
		}
	}
	return nil
}

// Guard returns the guard of function name, or nil.
func (s *Set) Guard(name string) *Guard { return s.guards[name] }

// GuardFile returns the guard file of library lib, or nil.
func (s *Set) GuardFile(lib string) *GuardFile { return s.guardFiles[lib] }

// AllGuards returns every guard, by function name.
func (s *Set) AllGuards() []*Guard {
	var names []string
	for n := range s.guards {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*Guard
	for _, n := range names {
		out = append(out, s.guards[n])
	}
	return out
}
