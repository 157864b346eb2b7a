package emit

import (
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/spec"
)

// CErr is the import path of the C-failure error type.
const CErr = Module + "/internal/cerr"

// errorTypes emits zerrors.go: the package's names for the error types
// its functions return, so callers can errors.As them.
func (e *Emitter) errorTypes(f *jen.File) error {
	f.Comment("Error is the failure of a C function: it names the function and unwraps to the errno where the function's convention provides one, so errors.Is(err, unix.EBUSY) holds.")
	f.Type().Id("Error").Op("=").Qual(CErr, "Error")
	f.Line()
	f.Comment("MissingError reports a function the installed library lacks, naming the release that introduced it; it unwraps to unix.EOPNOTSUPP.")
	f.Type().Id("MissingError").Op("=").Qual(DL, "MissingError")
	f.Line()
	f.Comment("NilOpError reports a provider operation the installed provider does not implement; it unwraps to unix.EOPNOTSUPP.")
	f.Type().Id("NilOpError").Op("=").Qual(DL, "NilOpError")
	f.Comment("ErrNotSupported is matched (errors.Is) by every call's error in a build that cannot call C libraries (not Linux, or CGO_ENABLED=0): the package builds everywhere and runs on Linux with cgo.")
	f.Var().Id("ErrNotSupported").Op("=").Qual(DL, "ErrNotSupported")
	if e.Names.Spec.Release == "" {
		f.Comment("UnknownReleaseError reports an installed library whose rdma-core release its file name does not tell (see Release).")
		f.Type().Id("UnknownReleaseError").Op("=").Qual(DL, "UnknownReleaseError")
	}
	if e.guardFile() != nil {
		f.Comment("DeviceError reports a call refused before C because an object's device is not this provider's (spec/guards: the C function would read it as its own); it unwraps to unix.EOPNOTSUPP.")
		f.Type().Id("DeviceError").Op("=").Qual(DL, "DeviceError")
	}
	e.sentinels(f)
	return nil
}

// sentinels emits one error value per library code the spec's
// zero_or_neg_code functions document (RPMA_E_INVAL -> ErrInval), so that
// errors.Is(err, rpma.ErrInval) holds for a failure returning it.
//
// An init registers them with cerr for the prefixes of those functions'
// names (rpma_), so that a failure's message names its code:
// "rpma_conn_disconnect: RPMA_E_INVAL (-100004)".
func (e *Emitter) sentinels(f *jen.File) {
	meaning := map[string]string{}
	prefixes := map[string]bool{}
	for _, sf := range e.SpecFuncs() {
		if sf.Convention != spec.ZeroOrNegCode {
			continue
		}
		if i := strings.Index(sf.Name, "_"); i > 0 {
			prefixes[sf.Name[:i+1]] = true
		}
		for _, er := range sf.Errors {
			if _, ok := e.Names.Vals[er.Name]; ok {
				if _, seen := meaning[er.Name]; !seen {
					meaning[er.Name] = er.Meaning
				}
			}
		}
	}
	var names []string
	for n := range meaning {
		names = append(names, n)
	}
	sort.Strings(names)
	var defs, regs []jen.Code
	for _, n := range names {
		g := e.Names.Vals[n]
		if len(g) > 1 && g[0] == 'E' && g[1] >= 'A' && g[1] <= 'Z' {
			g = g[1:]
		}
		doc := "Err" + g + " is the library code " + n + ": errors.Is(err, Err" + g + ") holds for a failure returning it."
		if m := strings.TrimSpace(meaning[n]); m != "" {
			doc += " For example: " + m
		}
		defs = append(defs, jen.Comment(doc), jen.Id("Err"+g).Op("=").Op("&").Id("Error").Values(jen.Dict{
			jen.Id("Code"): jen.Int().Call(jen.Id(e.Names.Vals[n])),
			jen.Id("Name"): jen.Lit(n),
		}))
		regs = append(regs, jen.Id("Err"+g))
	}
	if len(defs) == 0 {
		return
	}
	f.Line()
	f.Var().Defs(defs...)
	var pre []string
	for p := range prefixes {
		pre = append(pre, p)
	}
	sort.Strings(pre)
	var body []jen.Code
	for _, p := range pre {
		body = append(body, jen.Qual(CErr, "RegisterCodes").Call(append([]jen.Code{jen.Lit(p)}, regs...)...))
	}
	f.Line()
	f.Func().Id("init").Params().Block(body...)
}
