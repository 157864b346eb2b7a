// Package dl finds the C functions of the bound libraries at run time with
// dlopen and dlsym, so that the goverbs packages build without rdma-core
// headers or libraries and run against whatever rdma-core is installed.
package dl

import (
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"unsafe"
)

// releaseName is how rdma-core names a library's file: lib<name>.so.<soversion>
// .<ABI>.<release>.<n> (libibverbs.so.1.14.44.0, librdmacm.so.1.3.56.1).
var releaseName = regexp.MustCompile(`^lib[\w-]+\.so\.\d+\.\d+\.(\d+)\.\d+$`)

// releaseOf is the rdma-core release in the name of the file path leads to
// (symbolic links followed), or 0.
func releaseOf(path string) int {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	m := releaseName.FindStringSubmatch(filepath.Base(real))
	if m == nil {
		return 0
	}
	r, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return r
}

// Lib is a shared object opened on first use.
type Lib struct {
	Name string // soname, e.g. "libibverbs.so.1"

	once   sync.Once
	handle unsafe.Pointer
	err    string // dlerror() of a failed dlopen

	relOnce sync.Once
	release int    // the installed rdma-core release, 0 when not known
	path    string // the file opened
}

// NewLib returns the library soname, not yet opened.
func NewLib(soname string) *Lib { return &Lib{Name: soname} }

func (l *Lib) open() {
	l.once.Do(func() {
		l.handle, l.err = sysOpen(l.Name)
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

// Path is the file the dynamic loader opened for the library (with the
// directories it was found in: /usr/lib/x86_64-linux-gnu/libibverbs.so.1),
// "" when it is not installed.
func (l *Lib) Path() string {
	l.detect()
	return l.path
}

// Release is the rdma-core release of the installed library, from the name
// of the file libibverbs.so.1 (or any rdma-core library's soname) leads to:
// rdma-core builds each library as lib<name>.so.<ABI>.<minor>.<release>.<n>
// (libibverbs.so.1.14.44.0 is rdma-core 44). 0, false when the library is not
// installed or its file is not named so.
func (l *Lib) Release() (int, bool) {
	l.detect()
	return l.release, l.release > 0
}

func (l *Lib) detect() {
	l.relOnce.Do(func() {
		l.open()
		if l.handle == nil {
			return
		}
		l.path = sysPath(l.handle)
		if l.path == "" {
			return
		}
		l.release = releaseOf(l.path)
	})
}

// AtLeast reports whether the installed library is known to be rdma-core
// release r or newer. A library whose release cannot be told is not.
func (l *Lib) AtLeast(r int) bool {
	got, ok := l.Release()
	return ok && got >= r
}

// Needs is nil when the installed library is rdma-core release r or newer,
// else a *MissingError for symbol, whose struct member member the installed
// release lacks (or, its release unknown, may lack): reading it would read
// past the library's struct.
func (l *Lib) Needs(r int, symbol, member string) error {
	if l.AtLeast(r) {
		return nil
	}
	if err := l.Load(); err != nil {
		return err
	}
	installed := "an rdma-core release it does not name"
	if got, ok := l.Release(); ok {
		installed = "rdma-core " + strconv.Itoa(got)
	}
	return &MissingError{Symbol: symbol, Lib: l.Name, Since: "rdma-core " + strconv.Itoa(r), Member: member, Installed: installed}
}

// Has reports whether the library is installed and has the symbol name.
func (l *Lib) Has(name string) bool {
	l.open()
	if l.handle == nil {
		return false
	}
	return sysSym(l.handle, name) != nil
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
		s.addr = sysSym(s.Lib.handle, s.Name)
		if s.addr == nil {
			s.err = &MissingError{Symbol: s.Name, Lib: s.Lib.Name, Since: s.Since}
		}
	})
	return s.addr, s.err
}
