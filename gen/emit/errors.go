package emit

import "github.com/dave/jennifer/jen"

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
	return nil
}
