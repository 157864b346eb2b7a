package spec

import (
	"sort"
	"strings"
)

// Library names, as used in Function.Library and as spec file base names.
const (
	LibIBVerbs = "libibverbs" // infiniband/verbs.h
	LibRDMACM  = "librdmacm"  // rdma/rdma_cma.h, rdma/rdma_verbs.h
	LibIonic   = "ionic"      // infiniband/ionic_dv.h (libionic direct verbs)
	LibRPMA    = "librpma"    // librpma.h
	LibEFA     = "efa"        // infiniband/efadv.h (libefa direct verbs)
	LibMana    = "mana"       // infiniband/manadv.h (libmana direct verbs)
	LibHNS     = "hns"        // infiniband/hnsdv.h (libhns direct verbs)
	LibMlx4    = "mlx4"       // infiniband/mlx4dv.h (libmlx4 direct verbs)
	LibMlx5    = "mlx5"       // infiniband/mlx5dv.h (libmlx5 direct verbs)
)

// Function is the contract and documentation of one C function.
type Function struct {
	// Name is the public C name, the key of the spec ("ibv_query_port",
	// even though the header implements it as ___ibv_query_port).
	Name string `yaml:"name"`
	// Library is the library the function belongs to; Load fills it from
	// the file it reads.
	Library string `yaml:"-"`
	// Header is the header declaring it, relative to the include
	// directory ("infiniband/verbs.h").
	Header string `yaml:"header"`
	// Inline reports a static inline function (no library symbol).
	Inline bool `yaml:"inline,omitempty"`
	// Impl is set when the header makes Name a function-like macro around
	// another function, which is what C callers reach: "___ibv_query_port"
	// for ibv_query_port, "__ibv_reg_mr" for ibv_reg_mr. cgo cannot expand
	// such macros, so a binding calls Impl the way the macro does (see the
	// header for the arguments it adds, e.g. __ibv_reg_mr's fifth);
	// the symbol named Name, if any, is a compatibility entry point.
	Impl string `yaml:"impl,omitempty"`
	// Page is the man page documenting it ("ibv_create_cq.3"); empty when
	// undocumented.
	Page string `yaml:"page,omitempty"`
	// GoName is the Go identifier for the binding, without package
	// qualifier ("CreateCQ" for ibv_create_cq). Unique within a library.
	GoName string `yaml:"go_name"`
	// Documented reports whether a man page documents the function.
	Documented bool `yaml:"documented"`
	// Convention is how the function reports failure.
	Convention Convention `yaml:"convention"`
	// Success describes the success value(s): "0", ">= 0", "non-NULL",
	// "any" (Value), empty for Void and Undocumented.
	Success string `yaml:"success,omitempty"`
	// Errors are the documented error codes, sorted by name. For
	// ZeroOrErrno and the errno conventions they are errno names; for
	// ZeroOrNegCode they are the library's codes.
	Errors []Error `yaml:"errors,omitempty"`
	// Doc is the documentation in Go doc-comment form.
	Doc Doc `yaml:"doc,omitempty"`
	// SeeAlso are the SEE ALSO references of the page.
	SeeAlso []Ref `yaml:"see_also,omitempty"`
	// Params are the curated Go shapes of parameters where the generator's
	// inference from the header and the page cannot decide (from
	// spec/overrides), each with its reason.
	Params []Param `yaml:"params,omitempty"`
	// Override is set when a curated override (spec/overrides) decided
	// the contract instead of, or against, the page.
	Override *Override `yaml:"override,omitempty"`
}

// Param is the curated Go shape of one parameter of a function: what the
// exported Go binding makes of it (gen/emit, "shapes").
type Param struct {
	// Name is the C parameter name.
	Name string `yaml:"name"`
	// Shape is one of the shapes of ParamShapes: "int", "bool", "keep"
	// (the integer or pointer of the raw binding), "in" (a pointer the
	// function reads), "out" (a pointer the function fills: a result),
	// "inout" (a pointer it reads and fills: stays a parameter),
	// "enum <C enum>" (a C int holding that enum's values), "bytes <length
	// parameter>" (memory and its length: a []byte), "slice <count
	// parameter>" (an array and its length: a slice).
	Shape string `yaml:"shape"`
	// Reason says what the page says, what was decided and why.
	Reason string `yaml:"reason"`
}

// ParamShapes are the shapes a Param may name (the first word of Shape).
var ParamShapes = map[string]bool{"int": true, "bool": true, "keep": true, "in": true, "out": true, "inout": true, "enum": true, "bytes": true, "slice": true}

// Valid reports whether p names a known shape, with its argument where the
// shape takes one.
func (p Param) Valid() bool {
	w := strings.Fields(p.Shape)
	if len(w) == 0 || !ParamShapes[w[0]] {
		return false
	}
	switch w[0] {
	case "enum", "bytes", "slice":
		return len(w) >= 2
	}
	return len(w) == 1
}

// Error is one documented error code.
type Error struct {
	// Name is the code: "EINVAL", "RPMA_E_PROVIDER", "EAI_AGAIN".
	Name string `yaml:"name"`
	// Meaning is the page's explanation of when the code is returned.
	Meaning string `yaml:"meaning,omitempty"`
}

// Doc is the documentation of a function, each field Go doc-comment text
// without the "// " prefixes and without line wrapping: paragraphs (one
// line each) separated by blank lines, tab-indented code blocks, "  - "
// list items, "# " headings. Alias pages are split: each function keeps
// the paragraphs about itself and those about the whole page. Function
// names stay as the page writes them ("ibv_create_cq()"); turning them into
// Go doc links is the generator's business.
type Doc struct {
	// Summary is the one-line summary from the NAME section (for a
	// function documented only by a prototype in another function's page,
	// the first sentence after that prototype).
	Summary string `yaml:"summary,omitempty"`
	// Description is the DESCRIPTION section, followed by the page's
	// other documenting sections (ARGUMENTS, USAGE, SECURITY WARNING, ...)
	// each under a "# Title" heading.
	Description string `yaml:"description,omitempty"`
	// ReturnValue is the RETURN VALUE section.
	ReturnValue string `yaml:"return_value,omitempty"`
	// Notes is the NOTES (or NOTE) section.
	Notes string `yaml:"notes,omitempty"`
}

// IsZero reports an empty Doc (so YAML output omits it).
func (d Doc) IsZero() bool { return d == Doc{} }

// Comment joins the parts of d into one Go doc comment body: the summary,
// the description, then "# Return value" and "# Notes" sections.
func (d Doc) Comment() string {
	var parts []string
	for _, p := range []struct{ head, text string }{
		{"", d.Summary}, {"", d.Description}, {"# Return value", d.ReturnValue}, {"# Notes", d.Notes},
	} {
		if strings.TrimSpace(p.text) == "" {
			continue
		}
		if p.head != "" {
			parts = append(parts, p.head)
		}
		parts = append(parts, p.text)
	}
	return strings.Join(parts, "\n\n")
}

// Ref is a SEE ALSO reference to a man page.
type Ref struct {
	// Name is the page name ("ibv_create_cq", "rdma_cm").
	Name string `yaml:"name"`
	// Section is the manual section ("3", "7").
	Section string `yaml:"section"`
}

// String returns the reference as pages write it: "ibv_create_cq(3)".
func (r Ref) String() string { return r.Name + "(" + r.Section + ")" }

// Override records that a curated override decided a function's contract.
type Override struct {
	// Reason says what the page says (or does not), what was decided and
	// why.
	Reason string `yaml:"reason"`
	// Differs is set where the library's code contradicts its page: the
	// contract follows the code, and the generated doc comment and
	// doccheck's report say where the page differs.
	Differs *Differs `yaml:"differs,omitempty"`
}

// Differs is where a page and the library's code disagree: what the page
// says, and what the library returns (its code, or a measurement of it).
type Differs struct {
	Page    string `yaml:"page"`
	Library string `yaml:"library"`
}

// Sentence is the difference as the generated doc comment and doccheck's
// report say it: "The page says …; the library returns …".
func (d Differs) Sentence() string {
	page := strings.TrimSuffix(strings.Join(strings.Fields(d.Page), " "), ".")
	lib := strings.TrimSuffix(strings.Join(strings.Fields(d.Library), " "), ".")
	return "The page says " + page + "; the library returns " + lib + "."
}

// Decided reports whether an override of spec/overrides decided the convention of
// function name (its reason then says why: no page, or a page the code contradicts).
func (s *Set) Decided(name string) bool { return s.decided[name] }

// Set is a loaded spec: every function of every library.
type Set struct {
	byName map[string]*Function
	names  []string
	// decided: the functions whose convention an override decided (spec/overrides
	// convention:), against the page or where it has none
	decided map[string]bool
	fast    map[string][]string // library -> fast-path functions (spec/fastpath)
	// fastPolls: library -> batched polls of extended CQs (spec/fastpath)
	fastPolls map[string][]FastPoll
	// fastPosts: library -> batched posts of extended QPs (spec/fastpath)
	fastPosts map[string][]FastPost
	since     map[string]*SinceFile
	// crashes are the crash claims (spec/crashes), by function.
	crashes map[string][]Crash
	// guards are the device guards (spec/guards), by function; guardFiles by library.
	guards     map[string]*Guard
	guardFiles map[string]*GuardFile
}

// Lookup returns the function with C name name.
func (s *Set) Lookup(name string) (*Function, bool) {
	f, ok := s.byName[name]
	return f, ok
}

// Functions returns every function, sorted by library then name.
func (s *Set) Functions() []*Function {
	out := make([]*Function, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.byName[n])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Library != out[j].Library {
			return out[i].Library < out[j].Library
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Library returns the functions of one library, sorted by name.
func (s *Set) Library(lib string) []*Function {
	var out []*Function
	for _, f := range s.Functions() {
		if f.Library == lib {
			out = append(out, f)
		}
	}
	return out
}
