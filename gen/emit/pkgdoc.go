package emit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/spec"
)

// pkgDoc emits zdoc.go: the package documentation, which says once what
// every binding's doc relies on: the names, the Go shapes, what each C
// convention makes of a failure, when a binding panics, the memory rules.
func (e *Emitter) pkgDoc(f *jen.File) error {
	s := e.Names.Spec
	lib := s.Lib
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("%s\n\n", s.Doc)
	versions := make([]string, len(e.Pkg.Versions))
	for i, v := range e.Pkg.Versions {
		versions[len(versions)-1-i] = string(v)
	}
	w("The types, enumerations, constants and functions of this package are generated (files z*.go) by gen/cmd/goverbs-gen from the pinned rdma-core headers and from the contracts of spec/, which are derived from the man pages; see ARCHITECTURE.md. Every generated struct has the exact C layout, proven by TestLayout against the headers of rdma-core %s compiled by gcc. Every doc comment names its C symbol.\n\n", strings.Join(versions, " and "))
	w("# Names\n\n")
	w("A C name loses its prefix (%s) and becomes CamelCase, with Go initialisms in capitals (QP, CQ, GID, RC). An enumerator is named after its type: the type's name, then what sets it apart from the other values of its enum. A function whose first parameter is an object of the package is a method of it, without the object's name (destroy_qp is QP.Destroy, post_srq_recv is SRQ.PostRecv).\n\n", strings.Join(s.Prefixes, ", "))
	if e.Spec != nil {
		w("# Go shapes\n\n")
		w("The bindings take and return what a Go caller has: the enum or flag type for a C int that holds an enum's values, bool for a C int used as a boolean, int for counts and indexes, time.Duration for milliseconds, string for a C string, a slice for an array and its count, []byte for memory and its length; a value the function returns through a pointer is a result, and an array C returns with its count is a Go slice. The \"Go shape\" section of a binding says, in the page's parameter names, what differs from the C prototype. A Go value the C parameter cannot hold (an int out of its range, a string holding a NUL byte) is an error wrapping unix.EINVAL, and C is not called. An integer that stays an integer has a reason: a bit-exact wire value (a key, a QP number, immediate data), a handle, or values that are macros (constants of the same integer type here); zcoverage.go lists each with its reason, and every shape with its evidence.\n\n")
		w("# Errors\n\n")
		w("Each binding names its C convention, how the C function reports a failure; a failure is an *[Error] naming the C function by its public name, and what else it carries depends on the convention:\n\n")
		used := map[spec.Convention]bool{}
		for _, sf := range e.SpecFuncs() {
			used[sf.Convention] = true
		}
		var cs []string
		for c := range used {
			cs = append(cs, string(c))
		}
		sort.Strings(cs)
		for _, c := range cs {
			conv := spec.Convention(c)
			w("  - %s (%s): %s\n", c, conv.Describe(), convErr(conv))
		}
		errnos := false
		for c := range used {
			errnos = errnos || c.SetsErrno() || c == spec.ZeroOrErrno || c == spec.ZeroOrNegErrno || c == spec.CountOrNegErrno
		}
		w("\n")
		if errnos {
			w("So errors.Is(err, unix.EBUSY) holds for a failure with EBUSY. ")
		}
		w("The \"Errors\" section of a binding lists the codes its page documents. ")
		w("A function the installed library lacks (one newer than it, or a provider operation the provider leaves NULL) fails with a *[MissingError] or a *[NilOpError], both unwrapping to unix.EOPNOTSUPP; the bindings that can meet this return an error even where the convention has none, and their doc says so. The other value and void bindings return no error: they panic, with an error naming %s and this package's Load, only when %s itself cannot be loaded; call [Load] first to check.\n\n", lib, lib)
		w("# Memory\n\n")
		w("C never keeps a pointer to Go memory. Memory C or the device uses after a call returns (a registered memory region, the data of posted work) must be memory the Go runtime does not manage (mmap'd with unix.Mmap, or allocated by C), or Go memory pinned with a runtime.Pinner for that whole time. A record passed to C in Go memory must not hold pointers to Go memory (linked work requests, SGE lists): cgo panics with \"Go pointer to unpinned Go pointer\"; build those in C or mmap'd memory. The \"Memory\" section of a binding says which of its parameters this concerns.\n")
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		f.PackageComment(l)
	}
	return nil
}

// convErr says what a failure under c is in Go.
func convErr(c spec.Convention) string {
	switch {
	case c == spec.ZeroOrEAIOrMinusOneErrno:
		return "an EAI_* result is an *Error carrying the code (Code, and its C name in Name) that unwraps to nothing, which errors.Is matches against the package's EAI sentinels; a -1 unwraps to the errno"
	case c == spec.ZeroOrNegCode:
		return "the *Error carries the library's code (Code, and its C name in Name) and unwraps to nothing; errors.Is matches it against the package's sentinels of the codes"
	case c.SetsErrno() || c == spec.ZeroOrErrno || c == spec.ZeroOrNegErrno || c == spec.CountOrNegErrno:
		return "the *Error unwraps to the errno"
	case c.CanFail():
		return "the cause is unknown: the *Error unwraps to nothing, and Code holds the C result"
	}
	return "C reports no failure"
}
