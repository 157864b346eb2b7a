// Package demo loads the miniature header of gen/testdata/demo for the
// generator's own tests: two versions of demo/demo.h, v2 the newest.
package demo

import (
	"path/filepath"
	"runtime"

	"github.com/goverbs/goverbs/gen/extract"
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
)

// Spec is the demo package's spec.
var Spec = input.Spec{
	Name:     "demo",
	Doc:      "Package demo is the generator's test package.",
	Headers:  []string{"demo/demo.h"},
	Owns:     []string{"demo/demo.h"},
	Prefixes: []string{"demo_", "DEMO_"},
	Lib:      "libdemo.so.1",
}

// Dir is gen/testdata/demo.
func Dir() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(f), "..", "..", "testdata", "demo")
}

// Root returns the input root of version v ("v1" or "v2").
func Root(v ir.Version) input.Root {
	return input.Root{Version: v, Include: []string{filepath.Join(Dir(), string(v), "include")}}
}

// Load parses, extracts and merges both versions, like extract.Load.
func Load() (*ir.Package, error) {
	var pkg *ir.Package
	for _, v := range []ir.Version{"v2", "v1"} {
		parsed, err := input.Parse(Root(v), Spec)
		if err != nil {
			return nil, err
		}
		p, err := extract.Extract(parsed)
		if err != nil {
			return nil, err
		}
		if pkg == nil {
			pkg = p
		} else {
			pkg.Merge(p)
		}
	}
	pkg.ClassifyFlags()
	return pkg, nil
}
