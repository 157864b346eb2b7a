package emit

import (
	"fmt"
	"runtime"

	"github.com/dave/jennifer/jen"

	"github.com/goverbs/goverbs/gen/ir"
)

// Arch is a target architecture of the generated foreign types.
type Arch struct {
	GOARCH string
	// Layout gives the (size, align) of the foreign records whose layout
	// differs between the architectures; the others are the same on both
	// (LP64 glibc) and taken from the parse.
	Layout map[string][2]int64
}

// Arches are the architectures the generated packages build on, with
// glibc's values (bits/pthreadtypes-arch.h: __SIZEOF_PTHREAD_MUTEX_T is 40
// on x86_64, 48 on aarch64). The entry of the generating host must agree
// with the parse (checkArch), so the output does not depend on the host;
// the layout tests prove each on its architecture.
var Arches = []Arch{
	{GOARCH: "amd64", Layout: map[string][2]int64{"pthread_mutex_t": {40, 8}}},
	{GOARCH: "arm64", Layout: map[string][2]int64{"pthread_mutex_t": {48, 8}}},
}

// checkArch verifies that the table of the generating architecture agrees
// with what the parse laid out.
func (e *Emitter) checkArch() error {
	for _, a := range Arches {
		if a.GOARCH != runtime.GOARCH {
			continue
		}
		for key, l := range a.Layout {
			if s := e.Pkg.Struct(key); s != nil && !s.Opaque && (s.Size != l[0] || s.Align != l[1]) {
				return fmt.Errorf("%s is %d bytes aligned %d on %s, emit.Arches says %v", key, s.Size, s.Align, a.GOARCH, l)
			}
		}
	}
	return nil
}

// foreign emits the records declared outside the owned headers (libc,
// kernel uapi) that owned records or functions use: opaque bytes of the C
// size and alignment on arch, or empty types when incomplete.
func (e *Emitter) foreign(f *jen.File, arch Arch) error {
	for _, s := range e.Pkg.Structs {
		name, ok := e.Names.Types[s.Key]
		if !s.Foreign || !ok {
			continue
		}
		size, align := s.Size, s.Align
		if l, ok := arch.Layout[s.Key]; ok {
			size, align = l[0], l[1]
		}
		fields := []jen.Code{jen.Id("_").Qual("structs", "HostLayout")}
		if s.Opaque {
			f.Comment(fmt.Sprintf("%s stands for %s (%s), used only through pointers.", name, s.Key, s.File))
		} else {
			at, err := alignType(align)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Key, err)
			}
			if at != "" {
				fields = append(fields, jen.Id("_").Index(jen.Lit(0)).Id(at))
			}
			fields = append(fields, jen.Id("_").Index(jen.Lit(int(size))).Byte())
			f.Comment(fmt.Sprintf("%s stands for %s (%s): opaque bytes of its size and alignment on linux/%s.", name, s.Key, s.File, arch.GOARCH))
		}
		f.Type().Id(name).Struct(fields...)
		f.Line()
	}
	return nil
}

// archVarying reports whether record s holds, directly or in nested
// records, a foreign record whose layout differs between Arches.
func (e *Emitter) archVarying(s *ir.Struct) bool {
	for _, a := range Arches {
		if _, ok := a.Layout[s.Key]; ok {
			return true
		}
	}
	for _, fd := range s.Fields {
		t := fd.Type
		for t.Kind == ir.Array {
			t = *t.Elem
		}
		if t.Kind == ir.Record {
			if c := e.Pkg.Struct(t.Ref); c != nil && e.archVarying(c) {
				return true
			}
		}
	}
	return false
}
