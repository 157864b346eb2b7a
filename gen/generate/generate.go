// Package generate drives the generator: load the IR of a package and its
// dependencies, name it, emit it, and write the files.
package generate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goverbs/goverbs/gen/emit"
	"github.com/goverbs/goverbs/gen/extract"
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/spec"
)

// Result is a loaded and named package.
type Result struct {
	Pkg   *ir.Package
	Names *emit.Names
}

// Load loads package name and, first, its dependencies.
func Load(repo, name string) (*Result, error) {
	spec, ok := input.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown package %q", name)
	}
	var deps []*emit.Names
	for _, d := range spec.Deps {
		r, err := Load(repo, d)
		if err != nil {
			return nil, err
		}
		deps = append(deps, r.Names)
	}
	pkg, err := extract.Load(repo, spec)
	if err != nil {
		return nil, err
	}
	names, err := emit.NewNames(spec, pkg, deps)
	if err != nil {
		return nil, err
	}
	return &Result{Pkg: pkg, Names: names}, nil
}

// Files renders the generated files of package name.
func Files(repo, name string) (map[string][]byte, error) {
	files, _, err := render(repo, name)
	return files, err
}

// KeptInts renders package name and returns the int32/uint32 parameters of
// its bindings that stay integers, each with its reason (goverbs-gen
// -shapes prints them; zcoverage.go lists them too).
func KeptInts(dir, name string) ([]string, error) {
	repo, err := input.RepoRoot(dir)
	if err != nil {
		return nil, err
	}
	_, e, err := render(repo, name)
	if err != nil {
		return nil, err
	}
	return e.KeptInts(), nil
}

func render(repo, name string) (map[string][]byte, *emit.Emitter, error) {
	r, err := Load(repo, name)
	if err != nil {
		return nil, nil, err
	}
	set, err := spec.Load(filepath.Join(repo, "spec"))
	if err != nil {
		return nil, nil, err
	}
	e := emit.New(r.Pkg, r.Names)
	e.Spec = set
	if e.Measured, err = emit.LoadMeasured(filepath.Join(repo, "tools", "doccheck", "known.yaml")); err != nil {
		return nil, nil, err
	}
	files, err := e.Files()
	return files, e, err
}

// Run generates package name into out (default <repo>/<name>), where repo is
// found above dir. Stale z*.go files are removed; unchanged files are left
// untouched.
func Run(dir, name, out string) error {
	repo, err := input.RepoRoot(dir)
	if err != nil {
		return err
	}
	files, err := Files(repo, name)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(repo, name)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(out, "z*.go"))
	if err != nil {
		return err
	}
	for _, o := range old {
		if _, keep := files[filepath.Base(o)]; !keep && isGenerated(o) {
			if err := os.Remove(o); err != nil {
				return err
			}
		}
	}
	for _, n := range emit.FileNames(files) {
		p := filepath.Join(out, n)
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, files[n]) {
			continue
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func isGenerated(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), emit.Header)
}
