package emit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
)

// Coverage counts what the package generates from its headers.
type Coverage struct {
	Records, Unions, Opaque, Foreign int
	Enums, Flags, Values, Consts     int
	Extern, Inline, Shims            int
	Skipped                          []ir.Skip
	// Unbound lists the spec functions without an exported binding, with
	// the reason.
	Unbound []ir.Skip
}

// Coverage computes the package's coverage and the declarations it does
// not generate, with the reason; the function wrappers' spec must confirm
// each of them.
func (e *Emitter) Coverage() Coverage {
	var c Coverage
	for _, s := range e.Pkg.Structs {
		if _, ok := e.Names.Types[s.Key]; !ok {
			continue
		}
		switch {
		case s.Foreign:
			c.Foreign++
		case s.Opaque:
			c.Opaque++
		case s.Union:
			c.Unions++
		default:
			c.Records++
		}
	}
	for _, en := range e.Pkg.Enums {
		if en.Foreign {
			continue
		}
		if en.Tag != "" {
			c.Enums++
		}
		if en.Flags {
			c.Flags++
		}
		c.Values += len(en.Values)
	}
	c.Consts = len(e.Pkg.Consts)
	for _, s := range e.Pkg.Skipped {
		// Reasons may quote a macro body; the committed report keeps only
		// the reason itself.
		c.Skipped = append(c.Skipped, ir.Skip{Name: s.Name, Reason: strings.SplitN(s.Reason, ":", 2)[0]})
	}
	for _, fn := range e.Pkg.Funcs {
		if !fn.Inline {
			c.Extern++
			if why := callable(fn); why != "" {
				c.Skipped = append(c.Skipped, ir.Skip{Name: fn.Name, Reason: why})
			}
			continue
		}
		c.Inline++
		if HandShims[fn.Name] != "" {
			c.Shims++
			continue
		}
		if f := Hand[fn.Name]; f != "" {
			c.Skipped = append(c.Skipped, ir.Skip{Name: fn.Name, Reason: "static inline bound by hand in " + f})
			continue
		}
		if why := Excluded[fn.Name]; why != "" {
			c.Skipped = append(c.Skipped, ir.Skip{Name: fn.Name, Reason: why})
			continue
		}
		if e.shimmed[fn.Name] {
			c.Shims++
			continue
		}
		if pub := e.implOf(fn.Name); pub != "" {
			c.Skipped = append(c.Skipped, ir.Skip{Name: fn.Name, Reason: "what the macro " + pub + " expands to; the binding of " + pub + " calls the exported symbol " + pub + " this inline ends in"})
			continue
		}
		shape := "no body"
		if fn.Body != nil {
			shape = string(fn.Body.Shape)
		}
		c.Skipped = append(c.Skipped, ir.Skip{Name: fn.Name, Reason: "static inline (" + shape + ") without a generated shim yet"})
	}
	for n, why := range e.unbound {
		c.Unbound = append(c.Unbound, ir.Skip{Name: n, Reason: why})
	}
	// By name, then reason: one name can be skipped for several reasons
	// (mlx5dv_create_flow, declared by 33, 44 and 56 but not by 65).
	bySkip := func(s []ir.Skip) func(i, j int) bool {
		return func(i, j int) bool {
			if s[i].Name != s[j].Name {
				return s[i].Name < s[j].Name
			}
			return s[i].Reason < s[j].Reason
		}
	}
	sort.Slice(c.Unbound, bySkip(c.Unbound))
	sort.Slice(c.Skipped, bySkip(c.Skipped))
	return c
}

// implOf returns the public name of the spec function whose Impl is name,
// or "".
func (e *Emitter) implOf(name string) string {
	for _, f := range e.SpecFuncs() {
		if f.Impl == name {
			return f.Name
		}
	}
	return ""
}

// coverage emits zcoverage.go: the counts and the skip list as the
// package's generated record of what it covers.
func (e *Emitter) coverage(f *jen.File) error {
	c := e.Coverage()
	var hs []string
	for _, h := range e.Pkg.Headers {
		hs = append(hs, h.Path)
	}
	lines := []string{
		fmt.Sprintf("Coverage of %s by package %s, as generated:", strings.Join(hs, ", "), e.Pkg.Name),
		"",
		fmt.Sprintf("  - structs: %d, unions: %d, incomplete types: %d, foreign opaque types: %d", c.Records, c.Unions, c.Opaque, c.Foreign),
		fmt.Sprintf("  - enum types: %d (bit-flag types: %d), enumerators: %d, integer macros: %d", c.Enums, c.Flags, c.Values, c.Consts),
		fmt.Sprintf("  - functions: %d extern (raw wrappers over dlsym), %d static inline (%d shims, generated or hand-checked)", c.Extern, c.Inline, c.Shims),
	}
	if e.Spec != nil {
		lines = append(lines, fmt.Sprintf("  - generated exported functions and methods: %d of the spec's %d (the others below)", len(e.SpecFuncs())-len(c.Unbound), len(e.SpecFuncs())))
	}
	if len(c.Unbound) > 0 {
		lines = append(lines, "", "Spec functions without an exported binding, and why:", "")
		for _, s := range c.Unbound {
			lines = append(lines, fmt.Sprintf("  - %s: %s", s.Name, s.Reason))
		}
	}
	if len(c.Skipped) > 0 {
		lines = append(lines, "", "Declarations not generated, and why:", "")
		for _, s := range c.Skipped {
			lines = append(lines, fmt.Sprintf("  - %s: %s", s.Name, s.Reason))
		}
	}
	lines = append(lines, e.shapeReport()...)
	for _, l := range lines {
		f.Comment(l)
	}
	return nil
}
