package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

var (
	cIdent  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	goIdent = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

var libraries = map[string]bool{LibIBVerbs: true, LibRDMACM: true, LibIonic: true, LibRPMA: true,
	LibEFA: true, LibMana: true, LibHNS: true, LibMlx4: true, LibMlx5: true}

// Load reads the library files dir/*.yaml and the overrides
// dir/overrides/*.yaml, strictly. It fails on the first problem with
// "file:line: what is wrong": a YAML syntax error, an unknown or duplicate
// field, an unknown library or convention, a function defined twice, a
// missing or duplicate Go name, a documented function without a page, an
// override without a reason or for a function the spec does not have.
func Load(dir string) (*Set, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("spec: list %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("spec: no *.yaml files in %s", dir)
	}
	sort.Strings(paths)
	s := &Set{byName: map[string]*Function{}, decided: map[string]bool{}}
	for _, p := range paths {
		if err := s.loadFile(p); err != nil {
			return nil, err
		}
	}
	sort.Strings(s.names)
	ovs, err := LoadOverrides(filepath.Join(dir, "overrides"))
	if err != nil {
		return nil, err
	}
	for _, o := range ovs {
		f, ok := s.byName[o.Function]
		if !ok {
			return nil, fmt.Errorf("%s: override for unknown function %q", o.Pos, o.Function)
		}
		if f.Override == nil {
			return nil, fmt.Errorf("%s: override for %s is not applied in spec/%s.yaml; run go run ./tools/specderive", o.Pos, o.Function, f.Library)
		}
		if o.Convention != "" {
			s.decided[o.Function] = true
		}
	}
	if err := s.loadFastPath(filepath.Join(dir, "fastpath")); err != nil {
		return nil, err
	}
	if err := s.loadSince(filepath.Join(dir, "since")); err != nil {
		return nil, err
	}
	if err := s.loadCrashes(filepath.Join(dir, "crashes")); err != nil {
		return nil, err
	}
	if err := s.loadGuards(filepath.Join(dir, "guards")); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Set) loadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	_, err = s.loadData(path, data)
	return err
}

// checkLibrary checks the library a spec file of path (file, decoded) names: a known one,
// in a file named for it. Every file of spec/ is per library.
func checkLibrary(path string, file *ast.File, lib string) error {
	switch {
	case !libraries[lib]:
		return fmt.Errorf("%s: unknown library %q (want one of libibverbs, librdmacm, ionic, librpma, efa, mana, hns, mlx4, mlx5)", yamlfile.At(path, file, "$.library"), lib)
	case filepath.Base(path) != lib+".yaml":
		return fmt.Errorf("%s: library %q must live in %s.yaml", yamlfile.At(path, file, "$.library"), lib, lib)
	}
	return nil
}

// loadData checks and adds the library file read from path.
func (s *Set) loadData(path string, data []byte) (*File, error) {
	var f File
	file, err := yamlfile.Decode(path, data, &f)
	if err != nil {
		return nil, err
	}
	if err := checkLibrary(path, file, f.Library); err != nil {
		return nil, err
	}
	goNames := map[string]string{}
	for i := range f.Functions {
		fn := &f.Functions[i]
		fn.Library = f.Library
		field := func(name string) string { return yamlfile.At(path, file, fmt.Sprintf("$.functions[%d].%s", i, name)) }
		switch {
		case !cIdent.MatchString(fn.Name):
			return nil, fmt.Errorf("%s: bad function name %q", field("name"), fn.Name)
		case s.byName[fn.Name] != nil:
			return nil, fmt.Errorf("%s: function %s defined twice (also in %s.yaml)", field("name"), fn.Name, s.byName[fn.Name].Library)
		case !fn.Convention.Valid():
			return nil, fmt.Errorf("%s: %s: unknown convention %q (want one of %v)", field("convention"), fn.Name, fn.Convention, Conventions())
		case !goIdent.MatchString(fn.GoName):
			return nil, fmt.Errorf("%s: %s: bad go_name %q (want an exported Go identifier)", field("go_name"), fn.Name, fn.GoName)
		case goNames[fn.GoName] != "":
			return nil, fmt.Errorf("%s: %s: go_name %s already used by %s", field("go_name"), fn.Name, fn.GoName, goNames[fn.GoName])
		case fn.Header == "":
			return nil, fmt.Errorf("%s: %s: missing header", field("name"), fn.Name)
		case fn.Documented && fn.Page == "":
			return nil, fmt.Errorf("%s: %s: documented but no page", field("documented"), fn.Name)
		case fn.Override != nil && fn.Override.Reason == "":
			return nil, fmt.Errorf("%s: %s: override without a reason", field("override"), fn.Name)
		}
		for j, e := range fn.Errors {
			if !cIdent.MatchString(e.Name) {
				return nil, fmt.Errorf("%s: %s: bad error name %q", yamlfile.At(path, file, fmt.Sprintf("$.functions[%d].errors[%d].name", i, j)), fn.Name, e.Name)
			}
		}
		goNames[fn.GoName] = fn.Name
		s.byName[fn.Name] = fn
		s.names = append(s.names, fn.Name)
	}
	return &f, nil
}

// LoadOverrides reads dir/*.yaml (a missing dir holds no overrides) and
// returns the entries in file then document order. Each entry must name a
// function, carry a reason and use a known convention if it sets one; a
// function overridden twice is an error.
func LoadOverrides(dir string) ([]OverrideEntry, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("spec: list %s: %w", dir, err)
	}
	sort.Strings(paths)
	var out []OverrideEntry
	seen := map[string]string{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("spec: %w", err)
		}
		ovs, err := parseOverrides(path, data, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, ovs...)
	}
	return out, nil
}

// parseOverrides checks the entries of the overrides file read from path; seen maps each
// function already overridden to its position.
func parseOverrides(path string, data []byte, seen map[string]string) ([]OverrideEntry, error) {
	var out []OverrideEntry
	var of OverrideFile
	file, err := yamlfile.Decode(path, data, &of)
	if err != nil {
		return nil, err
	}
	for i, o := range of.Overrides {
		field := func(name string) string { return yamlfile.At(path, file, fmt.Sprintf("$.overrides[%d].%s", i, name)) }
		o.Pos = field("function")
		switch {
		case !cIdent.MatchString(o.Function):
			return nil, fmt.Errorf("%s: bad function name %q", o.Pos, o.Function)
		case seen[o.Function] != "":
			return nil, fmt.Errorf("%s: %s overridden twice (first at %s)", o.Pos, o.Function, seen[o.Function])
		case o.Convention != "" && !o.Convention.Valid():
			return nil, fmt.Errorf("%s: %s: unknown convention %q (want one of %v)", field("convention"), o.Function, o.Convention, Conventions())
		case o.Reason == "":
			return nil, fmt.Errorf("%s: %s: override without a reason", o.Pos, o.Function)
		case o.Differs != nil && (strings.TrimSpace(o.Differs.Page) == "" || strings.TrimSpace(o.Differs.Library) == ""):
			return nil, fmt.Errorf("%s: %s: differs needs what the page says (page) and what the library returns (library)", field("differs"), o.Function)
		}
		for j, p := range o.Params {
			at := field(fmt.Sprintf("params[%d]", j))
			switch {
			case !cIdent.MatchString(p.Name):
				return nil, fmt.Errorf("%s: %s: bad parameter name %q", at, o.Function, p.Name)
			case !p.Valid():
				return nil, fmt.Errorf("%s: %s: parameter %s: unknown shape %q", at, o.Function, p.Name, p.Shape)
			case p.Reason == "":
				return nil, fmt.Errorf("%s: %s: parameter %s: shape without a reason", at, o.Function, p.Name)
			}
		}
		seen[o.Function] = o.Pos
		out = append(out, o)
	}
	return out, nil
}
