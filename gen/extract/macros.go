package extract

import (
	"sort"
	"strings"

	"modernc.org/cc/v4"

	"github.com/goverbs/goverbs/gen/ir"
)

// macros records integer object-like macros as constants, lowercase
// function-like macros as renames/dispatchers, lowercase object-like macros
// naming an enum tag as enum aliases, and skips the rest with a reason.
func (x *extractor) macros() error {
	var names []string
	for n, m := range x.p.AST.Macros {
		if x.p.Owned(m.Position().Filename) && !strings.HasPrefix(n, "__") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		m := x.p.AST.Macros[n]
		at := m.Position()
		body := tokens(m.ReplacementList())
		if m.IsFnLike {
			if strings.ToLower(n) != n {
				x.skip(n, "function-like macro")
				continue
			}
			mc := &ir.Macro{Name: n, Body: strings.Join(body, " "), File: x.file(at.Filename), Line: at.Line, In: []ir.Version{x.v}}
			for _, p := range m.Params {
				mc.Params = append(mc.Params, p.SrcStr())
			}
			seen := map[string]bool{}
			for _, tk := range body {
				if !seen[tk] && x.isFunc(tk) {
					seen[tk] = true
					mc.Targets = append(mc.Targets, tk)
				}
			}
			x.pkg.Macros = append(x.pkg.Macros, mc)
			continue
		}
		if len(body) == 0 {
			continue // include guard or feature flag
		}
		if len(body) == 1 && strings.ToLower(n) == n {
			if e := x.enums["enum "+body[0]]; e != nil {
				e.Aliases = append(e.Aliases, n)
				continue
			}
			if s := x.structs["struct "+body[0]]; s != nil {
				s.Aliases = append(s.Aliases, n)
				continue
			}
		}
		t := m.Type()
		if t.Kind() == cc.Ptr {
			x.skip(n, "pointer-valued macro: "+strings.Join(body, " "))
			continue
		}
		v, ok := intValue(m.Value())
		if !ok || !cc.IsIntegerType(t) {
			x.skip(n, "macro is not an integer constant: "+strings.Join(body, " "))
			continue
		}
		x.pkg.Consts = append(x.pkg.Consts, &ir.Const{
			Name: n, Value: v, Size: t.Size(), Signed: cc.IsSignedInteger(t),
			File: x.file(at.Filename), Line: at.Line, In: []ir.Version{x.v},
		})
	}
	sort.SliceStable(x.pkg.Consts, func(i, j int) bool {
		a, b := x.pkg.Consts[i], x.pkg.Consts[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	sort.SliceStable(x.pkg.Macros, func(i, j int) bool {
		a, b := x.pkg.Macros[i], x.pkg.Macros[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return nil
}

func (x *extractor) skip(name, reason string) {
	x.pkg.Skipped = append(x.pkg.Skipped, ir.Skip{Name: name, Reason: reason})
}

// isFunc reports whether name is a function declared at file scope.
func (x *extractor) isFunc(name string) bool {
	for _, nd := range x.p.AST.Scope.Nodes[name] {
		if d, ok := nd.(*cc.Declarator); ok && d.Type().Kind() == cc.Function {
			return true
		}
	}
	return false
}

func tokens(ts []cc.Token) []string {
	r := make([]string, 0, len(ts))
	for _, t := range ts {
		r = append(r, t.SrcStr())
	}
	return r
}
