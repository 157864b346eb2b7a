//go:build linux

package rxebed

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseModules feeds the modules.dep/modules.builtin reader arbitrary indexes and
// module names to resolve. Seeds: the index of TestResolveOrdersDependenciesFirst, and in
// testdata/fuzz/FuzzParseModules the bed's own modules as the pinned kernel's depmod lists
// them. Parsing never fails on short lines; Resolve either names the missing module or
// returns each module once, the requested ones included, with every dependency that is
// not built in — before the module that needs it unless the two are on a cycle.
func FuzzParseModules(f *testing.F) {
	f.Add([]byte("kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/fscache/fscache.ko\nkernel/net/9p/9pnet.ko:\nkernel/fs/fscache/fscache.ko: kernel/lib/crc32.ko\n"),
		[]byte("kernel/lib/crc32.ko\n"), "9p crc32")
	f.Add([]byte("a.ko: b.ko\nb.ko: a.ko\nc-d.ko.xz: a.ko\n"), []byte(""), "c_d a")
	f.Fuzz(func(t *testing.T, dep, builtin []byte, names string) {
		m, err := ParseModules("k", bytes.NewReader(dep), bytes.NewReader(builtin))
		require.NoError(t, err)
		req := strings.Fields(names)
		got, err := m.Resolve(req...)
		if err != nil {
			require.ErrorContains(t, err, "not found in k (needed by ")
			return
		}
		index := map[string]int{}
		for i, p := range got {
			_, dup := index[p]
			require.False(t, dup, "%s twice in %v", p, got)
			index[p] = i
		}
		for _, n := range req {
			if p, ok := m.paths[moduleName(n)]; ok {
				require.Contains(t, index, p, "requested %s", n)
			} else {
				require.True(t, m.builtin[moduleName(n)], "%s resolved but neither a module nor built in", n)
			}
		}
		for _, p := range got {
			for _, d := range m.DependsOn(p) {
				dp, ok := m.paths[moduleName(d)]
				if !ok {
					require.True(t, m.builtin[moduleName(d)], "dependency %s of %s", d, p)
					continue
				}
				require.Contains(t, index, dp, "dependency %s of %s missing", d, p)
				if index[dp] > index[p] {
					require.True(t, m.reaches(dp, p), "%s loads after %s, which needs it: %v", dp, p, got)
				}
			}
		}
	})
}

// reaches reports whether module path to is among the dependencies, direct or not, of
// module path from.
func (m *Modules) reaches(from, to string) bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range m.DependsOn(p) {
			dp, ok := m.paths[moduleName(d)]
			if !ok || seen[dp] {
				continue
			}
			if dp == to {
				return true
			}
			seen[dp] = true
			stack = append(stack, dp)
		}
	}
	return slices.Contains(m.DependsOn(from), to)
}
