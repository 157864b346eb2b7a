// Package extract turns the cc/v4 AST of one package's headers, parsed
// against one input root, into the generator's IR.
package extract

import (
	"fmt"
	"sort"

	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
)

// extractor holds the state of one extraction.
type extractor struct {
	p       *input.Parsed
	v       ir.Version
	pkg     *ir.Package
	structs map[string]*ir.Struct
	enums   map[string]*ir.Enum
	order   map[string]pos // source position of every record and enum, for sorting
	anon    map[cc.Type]string
}

type pos struct {
	file      string
	line, col int
	seq       int
}

// Extract builds the IR of one parsed package for its root's version.
func Extract(p *input.Parsed) (*ir.Package, error) {
	x := &extractor{
		p:       p,
		v:       p.Root.Version,
		pkg:     &ir.Package{Name: p.Spec.Name, Versions: []ir.Version{p.Root.Version}},
		structs: map[string]*ir.Struct{},
		enums:   map[string]*ir.Enum{},
		order:   map[string]pos{},
		anon:    map[cc.Type]string{},
	}
	for _, h := range p.Headers {
		x.pkg.Headers = append(x.pkg.Headers, ir.Header{Path: h, Since: x.v, In: []ir.Version{x.v}})
	}
	if p.AST == nil {
		return x.pkg, nil
	}
	if err := x.scope(); err != nil {
		return nil, err
	}
	x.anonEnums()
	x.bodies()
	if err := x.macros(); err != nil {
		return nil, err
	}
	x.sort()
	return x.pkg, nil
}

// scope walks the file scope: tagged records and enums, enumerators (for
// anonymous enums), typedefs and functions declared in owned headers.
func (x *extractor) scope() error {
	var names []string
	for n := range x.p.AST.Scope.Nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, nd := range x.p.AST.Scope.Nodes[n] {
			if !x.p.Owned(nd.Position().Filename) {
				continue
			}
			var err error
			switch d := nd.(type) {
			case *cc.StructOrUnionSpecifier:
				_, err = x.record(d.Type(), "", nd.Position())
			case *cc.EnumSpecifier:
				if et, ok := d.Type().(*cc.EnumType); ok {
					x.enum(et)
				}
			case *cc.Enumerator:
				if et, ok := d.Type().(*cc.EnumType); ok {
					x.enum(et)
				}
			case *cc.Declarator:
				err = x.declarator(d)
			}
			if err != nil {
				return fmt.Errorf("%s: %s: %w", nd.Position(), n, err)
			}
		}
	}
	return nil
}

func (x *extractor) declarator(d *cc.Declarator) error {
	if d.IsTypename() {
		t := d.Type()
		switch t.Kind() {
		case cc.Struct, cc.Union:
			k, err := x.record(t, "", d.Position())
			if err != nil {
				return err
			}
			if s := x.structs[k]; s != nil && !contains(s.Aliases, d.Name()) {
				s.Aliases = append(s.Aliases, d.Name())
			}
		case cc.Enum:
			if et, ok := t.(*cc.EnumType); ok {
				x.enum(et)
			}
		}
		return nil
	}
	ft, ok := d.Type().(*cc.FunctionType)
	if !ok {
		x.pkg.Skipped = append(x.pkg.Skipped, ir.Skip{Name: d.Name(), Reason: "object declaration, not a function"})
		return nil
	}
	return x.function(d, ft)
}

// file returns the include path of a position's file.
func (x *extractor) file(filename string) string {
	if r := x.p.Rel(filename); r != "" {
		return r
	}
	return x.p.HostRel(filename)
}

func (x *extractor) sort() {
	less := func(a, b pos) bool {
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		if a.col != b.col {
			return a.col < b.col
		}
		return a.seq < b.seq
	}
	for _, s := range x.structs {
		x.pkg.Structs = append(x.pkg.Structs, s)
	}
	sort.Slice(x.pkg.Structs, func(i, j int) bool {
		a, b := x.order[x.pkg.Structs[i].Key], x.order[x.pkg.Structs[j].Key]
		if a == b {
			return x.pkg.Structs[i].Key < x.pkg.Structs[j].Key
		}
		return less(a, b)
	})
	for _, e := range x.enums {
		x.pkg.Enums = append(x.pkg.Enums, e)
	}
	sort.Slice(x.pkg.Enums, func(i, j int) bool {
		a, b := x.pkg.Enums[i], x.pkg.Enums[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Key < b.Key
	})
	sort.Slice(x.pkg.Funcs, func(i, j int) bool {
		a, b := x.pkg.Funcs[i], x.pkg.Funcs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Name < b.Name
	})
	sort.Slice(x.pkg.Skipped, func(i, j int) bool { return x.pkg.Skipped[i].Name < x.pkg.Skipped[j].Name })
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
