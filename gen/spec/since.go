package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

// SinceFile is spec/since/<library>.yaml, written by tools/releasedates: the rdma-core
// release that introduced each symbol, struct member ("ibv_qp_ex.wr_flush") and
// enumerator newer than the oldest supported release, read from rdma-core's release
// tags. The generator dates bindings and guards struct members by it; the pinned inputs
// (four releases) check it (gen/generate.TestSince).
type SinceFile struct {
	Library string `yaml:"library"`
	// Oldest is the oldest supported rdma-core release: what is not listed is in it.
	Oldest int `yaml:"oldest"`
	// NewestTag is the newest release tag read: what the pinned inputs have and it
	// lacks is from the release after it.
	NewestTag    int            `yaml:"newest_tag"`
	Symbols      map[string]int `yaml:"symbols"`
	Declarations map[string]int `yaml:"declarations"`
}

// loadSince reads dir/*.yaml (a missing dir dates nothing) into s.
func (s *Set) loadSince(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return fmt.Errorf("spec: list %s: %w", dir, err)
	}
	sort.Strings(paths)
	s.since = map[string]*SinceFile{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("spec: %w", err)
		}
		var f SinceFile
		file, err := yamlfile.Decode(path, data, &f)
		if err != nil {
			return err
		}
		if err := checkLibrary(path, file, f.Library); err != nil {
			return err
		}
		if f.Oldest <= 0 || f.NewestTag < f.Oldest {
			return fmt.Errorf("%s: oldest %d, newest_tag %d", yamlfile.At(path, file, "$.oldest"), f.Oldest, f.NewestTag)
		}
		for what, m := range map[string]map[string]int{"symbols": f.Symbols, "declarations": f.Declarations} {
			for k, v := range m {
				if v <= f.Oldest || v > f.NewestTag+1 {
					return fmt.Errorf("%s: %s: release %d outside (%d, %d]", yamlfile.At(path, file, "$."+what), k, v, f.Oldest, f.NewestTag+1)
				}
			}
		}
		s.since[f.Library] = &f
	}
	return nil
}

// Since returns the dating of library lib, or nil.
func (s *Set) Since(lib string) *SinceFile { return s.since[lib] }

// Symbol is the release that introduced symbol name: 0 when it is not listed.
func (f *SinceFile) Symbol(name string) int {
	if f == nil {
		return 0
	}
	return f.Symbols[name]
}

// Declaration is the release that introduced a struct member ("ibv_qp_ex.wr_flush") or
// an enumerator: 0 when it is not listed.
func (f *SinceFile) Declaration(key string) int {
	if f == nil {
		return 0
	}
	return f.Declarations[key]
}
