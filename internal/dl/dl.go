// Package dl finds the C functions of the bound libraries at run time with
// dlopen and dlsym, so that the goverbs packages build without rdma-core
// headers or libraries and run against whatever rdma-core is installed.
package dl

/*
#cgo linux LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

static void *goverbs_dlopen(const char *name) { return dlopen(name, RTLD_NOW | RTLD_GLOBAL); }
*/
import "C"

import (
	"sync"
	"unsafe"
)

// Lib is a shared object opened on first use.
type Lib struct {
	Name string // soname, e.g. "libibverbs.so.1"

	once   sync.Once
	handle unsafe.Pointer
	err    string // dlerror() of a failed dlopen
}

// NewLib returns the library soname, not yet opened.
func NewLib(soname string) *Lib { return &Lib{Name: soname} }

func (l *Lib) open() {
	l.once.Do(func() {
		name := C.CString(l.Name)
		defer C.free(unsafe.Pointer(name))
		l.handle = C.goverbs_dlopen(name)
		if l.handle == nil {
			l.err = C.GoString(C.dlerror())
		}
	})
}

// Load opens the library if it is not open yet: nil when it is installed,
// else a *MissingError naming it (no Symbol) with dlerror's message.
func (l *Lib) Load() error {
	l.open()
	if l.handle == nil {
		return &MissingError{Lib: l.Name, Detail: l.err}
	}
	return nil
}

// Has reports whether the library is installed and has the symbol name.
func (l *Lib) Has(name string) bool {
	l.open()
	if l.handle == nil {
		return false
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return C.dlsym(l.handle, cn) != nil
}

// Symbol is a function of a library, resolved on first use.
type Symbol struct {
	Lib   *Lib
	Name  string // C symbol
	Since string // release introducing it, e.g. "rdma-core 65"

	once sync.Once
	addr unsafe.Pointer
	err  error
}

// Addr returns the address of the symbol, or a *MissingError (which wraps
// unix.EOPNOTSUPP) when the library or the symbol is absent.
func (s *Symbol) Addr() (unsafe.Pointer, error) {
	s.once.Do(func() {
		s.Lib.open()
		if s.Lib.handle == nil {
			s.err = &MissingError{Symbol: s.Name, Lib: s.Lib.Name, Since: s.Since, Detail: s.Lib.err}
			return
		}
		name := C.CString(s.Name)
		defer C.free(unsafe.Pointer(name))
		s.addr = C.dlsym(s.Lib.handle, name)
		if s.addr == nil {
			s.err = &MissingError{Symbol: s.Name, Lib: s.Lib.Name, Since: s.Since}
		}
	})
	return s.addr, s.err
}
