//go:build linux

package rxebed

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Modules is the module index of one unpacked kernel package (modules.dep and
// modules.builtin, as written by depmod -b).
type Modules struct {
	Dir     string              // .../lib/modules/<release>
	deps    map[string][]string // module name -> relative paths of its dependencies
	paths   map[string]string   // module name -> relative path
	builtin map[string]bool
}

// moduleName turns "kernel/net/9p/9pnet_virtio.ko" into "9pnet_virtio"; names are
// compared with '-' folded to '_', as the kernel does.
func moduleName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".ko.xz", ".ko.zst", ".ko.gz", ".ko"} {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.ReplaceAll(base, "-", "_")
}

// LoadModules reads modules.dep and modules.builtin from dir.
func LoadModules(dir string) (*Modules, error) {
	dep, err := os.Open(filepath.Join(dir, "modules.dep"))
	if err != nil {
		return nil, fmt.Errorf("kernel modules index: %w (run make inputs: depmod -b writes it)", err)
	}
	defer dep.Close()
	var builtin io.Reader = strings.NewReader("")
	if f, err := os.Open(filepath.Join(dir, "modules.builtin")); err == nil {
		defer f.Close()
		builtin = f
	}
	return ParseModules(dir, dep, builtin)
}

// ParseModules reads a modules.dep ("path: dependency paths" per line; lines without a
// colon are ignored) and a modules.builtin (one path per line) as the index of dir.
func ParseModules(dir string, dep, builtin io.Reader) (*Modules, error) {
	m := &Modules{Dir: dir, deps: map[string][]string{}, paths: map[string]string{}, builtin: map[string]bool{}}
	sc := bufio.NewScanner(dep)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		mod, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		name := moduleName(mod)
		m.paths[name] = mod
		m.deps[name] = strings.Fields(rest)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading modules.dep: %w", err)
	}
	b, err := io.ReadAll(builtin)
	if err != nil {
		return nil, fmt.Errorf("reading modules.builtin: %w", err)
	}
	for _, line := range strings.Fields(string(b)) {
		m.builtin[moduleName(line)] = true
	}
	return m, nil
}

// Resolve returns the relative paths of the named modules and everything they depend on,
// dependencies first, each once. Built-in modules are skipped; an unknown name is an error.
func (m *Modules) Resolve(names ...string) ([]string, error) {
	var order []string
	seen := map[string]bool{}
	// visit takes a normalised name (moduleName applied exactly once: "a.ko.ko" is the
	// module a.ko, not a).
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		if seen[name] {
			return nil
		}
		path, ok := m.paths[name]
		if !ok {
			if m.builtin[name] {
				seen[name] = true
				return nil
			}
			return fmt.Errorf("kernel module %q not found in %s (needed by %s)", name, m.Dir, strings.Join(append(chain, name), " -> "))
		}
		seen[name] = true
		for _, d := range m.deps[name] {
			if err := visit(moduleName(d), append(chain, name)); err != nil {
				return err
			}
		}
		order = append(order, path)
		return nil
	}
	for _, n := range names {
		if err := visit(moduleName(n), nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// DependsOn returns the relative paths of the modules that the module at rel needs.
func (m *Modules) DependsOn(rel string) []string {
	return m.deps[moduleName(rel)]
}
