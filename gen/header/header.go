// Package header lists the functions declared by the pinned rdma-core and
// librpma C headers. It parses each header with modernc.org/cc/v4, so the
// list is what a C compiler sees: extern declarations and static inline
// definitions, with implementation names hidden behind a function-like macro
// (ibv_query_port around ___ibv_query_port) reported under the public name.
//
// cc/v4 takes the predefined macros and system include directories from
// the host C compiler (CC, cc or gcc), and the headers include libc and
// kernel UAPI headers: tools/host-deps.txt lists the packages.
package header

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"modernc.org/cc/v4"
)

// Func is one function a header declares or defines.
type Func struct {
	// Name is the public C name, the one callers write.
	Name string
	// Header is the header path relative to the include directory, such as
	// "infiniband/verbs.h".
	Header string
	// Extern reports an extern declaration: the library exports a symbol.
	Extern bool
	// Inline reports a static inline definition (no symbol in the library).
	// A macro-renamed function can be both: ibv_query_port has a compat
	// symbol and a static inline implementation that callers reach.
	Inline bool
	// Result is the C result type as cc/v4 prints it, such as "int" or
	// "pointer to struct ibv_cq".
	Result string
	// Void reports a void result.
	Void bool
	// Pointer reports a pointer result.
	Pointer bool
	// Impl is the implementation name when Name is a macro around another
	// function (for ibv_query_port it is "___ibv_query_port"); empty otherwise.
	Impl string
}

// List parses header (relative to includeDir, such as "infiniband/verbs.h")
// and returns the functions declared or defined in that very file, sorted by
// name. Functions of other headers it includes are left out. The headers it
// includes are searched in includeDir, then in extraDirs (the pinned
// rdma-core headers librpma.h needs), then in the system directories.
func List(includeDir, header string, extraDirs ...string) ([]Func, error) {
	cfg, err := cc.NewConfig("linux", "amd64")
	if err != nil {
		return nil, fmt.Errorf("header: configure cc for %s: %w", header, err)
	}
	cfg.ABILayout = true
	dirs := append([]string{includeDir}, extraDirs...)
	cfg.SysIncludePaths = append(dirs, cfg.SysIncludePaths...)
	src := fmt.Sprintf("#include <%s>\n", header)
	ast, err := cc.Translate(cfg, []cc.Source{
		{Name: "<predefined>", Value: cfg.Predefined},
		{Name: "<builtin>", Value: cc.Builtin},
		{Name: "goverbs_list.c", Value: src},
	})
	if err != nil {
		return nil, fmt.Errorf("header: translate %s: %w", header, err)
	}
	want := filepath.Join(includeDir, header)
	byName := map[string]*Func{}
	for name, nodes := range ast.Scope.Nodes {
		for _, n := range nodes {
			d, ok := n.(*cc.Declarator)
			if !ok || d.IsTypename() || d.Type() == nil || d.Type().Kind() != cc.Function {
				continue
			}
			if filepath.Clean(d.Position().Filename) != filepath.Clean(want) {
				continue
			}
			f := byName[name]
			if f == nil {
				f = &Func{Name: name, Header: header}
				byName[name] = f
			}
			ft, _ := d.Type().(*cc.FunctionType)
			if ft != nil {
				r := ft.Result()
				f.Result = r.String()
				f.Void = r.Kind() == cc.Void
				f.Pointer = r.Kind() == cc.Ptr
			}
			if d.IsStatic() && d.IsFuncDef() {
				f.Inline = true
			} else if !d.IsStatic() {
				f.Extern = true
			}
		}
	}
	renameMacros(ast, want, byName)
	out := make([]Func, 0, len(byName))
	for _, f := range byName {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// renameMacros folds an implementation function into the public name of the
// function-like macro defined in the same header whose replacement list
// starts with a call to it: "#define ibv_reg_mr(...) __ibv_reg_mr(...)".
// Only implementation names that start with an underscore are folded.
func renameMacros(ast *cc.AST, want string, byName map[string]*Func) {
	names := make([]string, 0, len(ast.Macros))
	for name := range ast.Macros {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m := ast.Macros[name]
		if !m.IsFnLike || strings.HasPrefix(name, "_") {
			continue
		}
		if filepath.Clean(m.Position().Filename) != filepath.Clean(want) {
			continue
		}
		var first string
		for _, t := range m.ReplacementList() {
			s := t.SrcStr()
			if s == "(" || strings.TrimSpace(s) == "" {
				continue
			}
			first = s
			break
		}
		impl := byName[first]
		if impl == nil || !strings.HasPrefix(first, "_") || strings.TrimLeft(first, "_") != name {
			continue
		}
		pub := *impl
		pub.Name = name
		pub.Impl = first
		if old := byName[name]; old != nil {
			// The header also declares the public name (a compat symbol);
			// the macro decides what callers get, so keep the impl's type
			// but remember that a symbol exists.
			pub.Extern = old.Extern
		}
		byName[name] = &pub
		delete(byName, first)
	}
}
