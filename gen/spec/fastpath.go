package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

// FastPathFile is spec/fastpath/<library>.yaml: the data-path functions of
// one library that get, besides their checked binding, a trampoline taking
// the C object and the provider's op as integers, so that cgo checks no
// argument at run time (ibv/zfast.go). Package rdma calls them.
type FastPathFile struct {
	Library string `yaml:"library"`
	// Reason says why these functions and no others.
	Reason    string   `yaml:"reason"`
	Functions []string `yaml:"functions"`
}

// loadFastPath reads dir/*.yaml (a missing dir lists nothing) into s,
// checking that each names a known library and functions of it, once.
func (s *Set) loadFastPath(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return fmt.Errorf("spec: list %s: %w", dir, err)
	}
	sort.Strings(paths)
	s.fast = map[string][]string{}
	seen := map[string]string{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("spec: %w", err)
		}
		var f FastPathFile
		file, err := yamlfile.Decode(path, data, &f)
		if err != nil {
			return err
		}
		if err := checkLibrary(path, file, f.Library); err != nil {
			return err
		}
		if f.Reason == "" {
			return fmt.Errorf("%s: a fast-path list needs a reason", yamlfile.At(path, file, "$.library"))
		}
		for i, name := range f.Functions {
			pos := yamlfile.At(path, file, fmt.Sprintf("$.functions[%d]", i))
			fn, ok := s.byName[name]
			switch {
			case !ok:
				return fmt.Errorf("%s: unknown function %q", pos, name)
			case fn.Library != f.Library:
				return fmt.Errorf("%s: %s belongs to %s, not %s", pos, name, fn.Library, f.Library)
			case seen[name] != "":
				return fmt.Errorf("%s: %s listed twice (first at %s)", pos, name, seen[name])
			}
			seen[name] = pos
			s.fast[f.Library] = append(s.fast[f.Library], name)
		}
	}
	return nil
}

// FastPath returns the fast-path functions of library lib, in file order.
func (s *Set) FastPath(lib string) []string { return s.fast[lib] }
