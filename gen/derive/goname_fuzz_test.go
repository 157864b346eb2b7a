package derive

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/naming"
)

var (
	fuzzPrefixes = []string{"ibv_", "rdma_", "ionic_dv_", "rpma_"}
	cIdentRe     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// An exported Go identifier of letters and digits, where naming.Camel may keep an
	// underscore between two digits (IBV_RATE_2_5_GBPS is Rate2_5Gbps)
	// (every underscore lies between two digits: goExportedRe and digitUnderscores).
	goExportedRe = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(?:_[0-9][A-Za-z0-9]*)*$`)
)

// FuzzGoName feeds the Go-name builder C names under each library prefix. Seeds: every
// function name of the real spec/*.yaml, and testdata/fuzz/FuzzGoName. For a C identifier
// the result is an exported Go identifier, ends in "Impl" exactly when the C name starts
// with '_', and keeps every word that is not an initialism, in order; for any input it
// does not panic.
func FuzzGoName(f *testing.F) {
	paths, err := filepath.Glob("../../spec/*.yaml")
	require.NoError(f, err)
	require.NotEmpty(f, paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "  - name: "); ok {
				for i, pre := range fuzzPrefixes {
					if strings.HasPrefix(strings.TrimLeft(name, "_"), pre) {
						f.Add(name, uint8(i))
					}
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, c string, pre uint8) {
		prefix := fuzzPrefixes[int(pre)%len(fuzzPrefixes)]
		got := GoName(c, prefix)
		if !cIdentRe.MatchString(c) {
			return
		}
		require.Regexp(t, goExportedRe, got, "GoName(%q, %q)", c, prefix)
		for i := 1; i < len(got); i++ {
			if got[i] == '_' {
				require.True(t, got[i-1] >= '0' && got[i-1] <= '9', "GoName(%q, %q) = %q: an underscore after a non-digit", c, prefix, got)
			}
		}
		require.Equal(t, got, GoName(c, prefix), "not deterministic")
		impl := strings.HasPrefix(c, "_")
		if impl {
			require.True(t, strings.HasSuffix(got, "Impl"), "GoName(%q) = %q lacks Impl", c, got)
		}
		// Every plain word appears, in order, in the lower-cased result.
		rest := strings.ToLower(got)
		for _, w := range strings.Split(strings.TrimPrefix(strings.TrimLeft(c, "_"), prefix), "_") {
			if w == "" {
				continue
			}
			if v, ok := naming.Words[strings.ToLower(w)]; ok {
				w = v
			}
			i := strings.Index(rest, strings.ToLower(w))
			require.GreaterOrEqual(t, i, 0, "GoName(%q, %q) = %q lost word %q", c, prefix, got, w)
			rest = rest[i+len(w):]
		}
	})
}
