// Package emit writes the generated Go files of one package from its IR with
// github.com/dave/jennifer: types, enums, constants, foreign opaque types and
// the layout test table.
package emit

import (
	"fmt"
	"strings"

	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
	"github.com/goverbs/goverbs/gen/naming"
)

// Module is the import path prefix of the generated packages.
const Module = "github.com/goverbs/goverbs"

// Names maps the C symbols of one package to Go identifiers, and resolves
// records and enums owned by dependency packages to qualified names.
type Names struct {
	Spec  input.Spec
	Path  string            // import path
	Types map[string]string // record/enum key -> Go type name (local types only)
	Vals  map[string]string // enumerator or macro -> Go constant name
	deps  []*Names
	enums map[string]*ir.Enum // local tagged enums by key
}

// Enum returns the tagged enum of key, local or of a dependency.
func (n *Names) Enum(key string) *ir.Enum {
	if e, ok := n.enums[key]; ok {
		return e
	}
	for _, d := range n.deps {
		if e := d.Enum(key); e != nil {
			return e
		}
	}
	return nil
}

// AllEnums calls f for every tagged enum named here or in a dependency.
func (n *Names) AllEnums(f func(*ir.Enum)) {
	for _, d := range n.deps {
		d.AllEnums(f)
	}
	for _, e := range n.enums {
		f(e)
	}
}

// NewNames names every local symbol of pkg. deps are the Names of the
// packages spec.Deps, already built.
func NewNames(spec input.Spec, pkg *ir.Package, deps []*Names) (*Names, error) {
	n := &Names{Spec: spec, Path: Module + "/" + spec.Name, Types: map[string]string{}, Vals: map[string]string{}, deps: deps, enums: map[string]*ir.Enum{}}
	used := map[string]string{} // Go name -> C symbol
	claim := func(goName, c string) error {
		if prev, ok := used[goName]; ok {
			return fmt.Errorf("package %s: %s and %s both map to Go name %s", spec.Name, prev, c, goName)
		}
		used[goName] = c
		return nil
	}
	for _, s := range pkg.Structs {
		if n.depOwned(s.File, s.Foreign) {
			continue
		}
		g := n.recordName(pkg, s)
		if err := claim(g, s.Key); err != nil {
			return nil, err
		}
		n.Types[s.Key] = g
	}
	for _, e := range pkg.Enums {
		if e.Foreign || e.Tag == "" {
			continue
		}
		c := e.Tag
		for _, a := range e.Aliases {
			if strings.HasPrefix(a, spec.Prefixes[0]) {
				c = a
			}
		}
		g := naming.Go(c, spec.Prefixes)
		if err := claim(g, e.Key); err != nil {
			return nil, err
		}
		n.Types[e.Key] = g
		n.enums[e.Key] = e
	}
	type val struct{ c, g string }
	var vals []val
	for _, e := range pkg.Enums {
		if e.Foreign || len(e.Values) == 0 {
			continue
		}
		var cs []string
		for _, v := range e.Values {
			cs = append(cs, v.Name)
		}
		gs := make([]string, len(cs))
		if t, ok := n.Types[e.Key]; ok {
			gs = naming.Enumerators(t, e.Tag, cs)
		} else {
			for i, c := range cs {
				gs[i] = naming.Go(c, spec.Prefixes)
			}
		}
		for i := range cs {
			vals = append(vals, val{cs[i], gs[i]})
		}
	}
	for _, c := range pkg.Consts {
		vals = append(vals, val{c.Name, naming.Go(c.Name, spec.Prefixes)})
	}
	for _, v := range vals {
		g := v.g
		for _, suffix := range []string{"Value", "Macro"} {
			if _, ok := used[g]; !ok {
				break
			}
			g = v.g + suffix
		}
		if err := claim(g, v.c); err != nil {
			return nil, err
		}
		n.Vals[v.c] = g
	}
	return n, nil
}

// depOwned reports whether a foreign declaration of file is owned by a
// dependency package (and so referenced there, not emitted here).
func (n *Names) depOwned(file string, foreign bool) bool {
	if !foreign {
		return false
	}
	for _, d := range n.deps {
		for _, o := range d.Spec.Owns {
			if o == file {
				return true
			}
		}
	}
	return false
}

// recordName is the Go name of a record: its tag, typedef or macro alias
// without prefix, or for anonymous nested records the parent's name and the
// member name (or AnonN for unnamed members).
func (n *Names) recordName(pkg *ir.Package, s *ir.Struct) string {
	if s.Parent != "" {
		ps := pkg.Struct(s.Parent)
		suffix := s.Key[strings.LastIndex(s.Key, "::")+2:]
		if suffix != "" && suffix[0] >= '0' && suffix[0] <= '9' {
			suffix = "Anon" + suffix
		} else {
			suffix = naming.Camel(suffix)
		}
		return n.recordName(pkg, ps) + suffix
	}
	c := s.Tag
	if c == "" {
		c = s.Key
	}
	for _, a := range s.Aliases {
		if strings.HasPrefix(a, n.Spec.Prefixes[0]) && !strings.HasPrefix(c, n.Spec.Prefixes[0]) {
			c = a
		}
	}
	return naming.Go(c, n.Spec.Prefixes)
}

// Type resolves a record or enum key to (import path, Go name); the path is
// empty for local types. ok is false for keys nobody names.
func (n *Names) Type(key string) (path, name string, ok bool) {
	if g, ok := n.Types[key]; ok {
		return "", g, true
	}
	for _, d := range n.deps {
		if _, g, ok := d.Type(key); ok {
			return d.Path, g, true
		}
	}
	return "", "", false
}
