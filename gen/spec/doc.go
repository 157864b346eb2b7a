// Package spec is the machine-readable return contract and documentation of
// every function goverbs binds, as derived from the pinned man pages by
// tools/specderive and curated in spec/overrides.
//
// The spec directory holds one YAML file per library (spec/libibverbs.yaml,
// spec/librdmacm.yaml, spec/ionic.yaml, spec/librpma.yaml), generated, and
// spec/overrides/*.yaml, written by hand. Every function of the pinned
// headers appears in a library file, documented or not. Load reads the
// library files strictly: an unknown field, an unknown convention or a
// duplicated function fails with file:line and what is wrong. The library
// files already have the overrides applied; Function.Override records the
// reason where one was.
//
// A consumer (the code generator, doccheck) typically does:
//
//	set, err := spec.Load("spec")
//	f, ok := set.Lookup("ibv_create_cq")
//	switch f.Convention {
//	case spec.PointerOrNullErrno: // wrap: nil result means error in errno
//	...
//	}
package spec

// `make generate` (go generate ./...) rederives the library files, and
// `make check-generate` fails when that changes the tree.
//go:generate go run ../../tools/specderive -inputs ../../.cache/inputs -spec ../../spec
