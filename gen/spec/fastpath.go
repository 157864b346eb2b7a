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
	// Polls are batched polls of an extended completion queue: one
	// trampoline that runs start, each getter, next, ..., end in C for up
	// to n completions (and one that runs the getters of the current
	// completion), so that a completion costs no crossing of its own.
	Polls []FastPoll `yaml:"polls"`
}

// FastPoll is one batched poll (FastPathFile.Polls). Its functions must
// be fast-path functions of the file: start, next and end forward to ops
// of the object their first parameter points to, and so does each getter.
type FastPoll struct {
	// Name is the trampoline's C name (zfast_<name>); GoName the Go name
	// of the poll (Fast<GoName>, <GoName>Ops, Fast<GoName>Ops), Record
	// that of the completion it fills.
	Name   string `yaml:"name"`
	GoName string `yaml:"go"`
	Record string `yaml:"record"`
	// Start begins a poll (0, ENOENT when there is nothing, or an errno),
	// Next moves to the next completion (likewise), End ends a poll that
	// started.
	Start string `yaml:"start"`
	Next  string `yaml:"next"`
	End   string `yaml:"end"`
	// Members are members of the object that Start and Next set for each
	// completion (read as they are).
	Members []string `yaml:"members"`
	// Getters read the current completion's fields; a getter with a Flag
	// exists only on an object created with that flag, the others always.
	// Two getters of one op are one field, the first one's.
	Getters []FastGetter `yaml:"getters"`
}

// FastGetter is one getter of a FastPoll.
type FastGetter struct {
	Function string `yaml:"function"`
	Flag     string `yaml:"flag"`
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
	s.fastPolls = map[string][]FastPoll{}
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
		for i, p := range f.Polls {
			pos := yamlfile.At(path, file, fmt.Sprintf("$.polls[%d]", i))
			if p.Name == "" || p.GoName == "" || p.Record == "" || len(p.Getters) == 0 {
				return fmt.Errorf("%s: a poll needs a name, go, record and getters", pos)
			}
			fns := []string{p.Start, p.Next, p.End}
			for _, g := range p.Getters {
				fns = append(fns, g.Function)
			}
			for _, name := range fns {
				if seen[name] == "" {
					return fmt.Errorf("%s: %q is not a fast-path function of %s", pos, name, f.Library)
				}
			}
			s.fastPolls[f.Library] = append(s.fastPolls[f.Library], p)
		}
	}
	return nil
}

// FastPolls returns the batched polls of library lib, in file order.
func (s *Set) FastPolls(lib string) []FastPoll { return s.fastPolls[lib] }

// FastPath returns the fast-path functions of library lib, in file order.
func (s *Set) FastPath(lib string) []string { return s.fast[lib] }
