package spec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/yamlfile"
)

var fuzzLibs = []string{LibIBVerbs, LibRDMACM, LibIonic, LibRPMA, LibEFA, LibMana, LibHNS, LibMlx4, LibMlx5}

// realExcerpts returns the start of each real spec file in dir (its header and first n
// functions): whole files make every fuzz execution parse hundreds of kilobytes.
func realExcerpts(t testing.TB, pattern string, sep string, n int) [][]byte {
	paths, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.NotEmpty(t, paths, pattern)
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		parts := strings.SplitAfterN(string(data), sep, n+2)
		if len(parts) > n+1 {
			parts = parts[:n+1]
			last := parts[n]
			parts[n] = last[:len(last)-len(sep)]
		}
		out = append(out, []byte(strings.Join(parts, "")))
	}
	return out
}

// posRe is what every loader error starts with: the file, perhaps line and column.
var posRe = regexp.MustCompile(`^(spec/[a-z0-9]+\.yaml|spec/overrides/[a-z0-9]+\.yaml)(?::(\d+))?(?::(\d+))?: \S`)

// checkPos asserts err names the file and, when it names a line, a line of data.
func checkPos(t *testing.T, err error, data []byte) {
	t.Helper()
	m := posRe.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error without file position: %v", err)
	}
	if m[2] != "" {
		line, _ := strconv.Atoi(m[2])
		if n := fileLines(data); line < 1 || line > n {
			t.Fatalf("error names line %d of a %d-line file: %v", line, n, err)
		}
	}
}

// fileLines counts the lines of data as an editor does: LF (or CRLF) ends one. YAML also
// takes a lone CR for a line break; the loader refuses it, naming its line in LF lines.
func fileLines(data []byte) int {
	return bytes.Count(data, []byte("\n")) + 1
}

// FuzzLoadFile feeds the library-file loader arbitrary bytes under one of the four library
// file names. Seeds: excerpts of the real spec/*.yaml, and testdata/fuzz/FuzzLoadFile.
// Every error carries file[:line[:col]] with a line inside the file; a file that loads is
// valid (known library and conventions, exported Go names) and survives Marshal and a
// second load unchanged.
func FuzzLoadFile(f *testing.F) {
	for _, ex := range realExcerpts(f, "../../spec/*.yaml", "\n  - name: ", 3) {
		for lib := range fuzzLibs {
			if bytes.Contains(ex, []byte("library: "+fuzzLibs[lib]+"\n")) {
				f.Add(ex, uint8(lib))
			}
		}
	}
	f.Add([]byte(goodLib), uint8(0))
	f.Add([]byte("library: librdmacm\nfunctions:\n  - name: rdma_x\n    go_name: x\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, lib uint8) {
		defer watchdog(data)()
		path := "spec/" + fuzzLibs[int(lib)%len(fuzzLibs)] + ".yaml"
		file, err := (&Set{byName: map[string]*Function{}}).loadData(path, data)
		if err != nil {
			checkPos(t, err, data)
			return
		}
		require.Equal(t, path, "spec/"+file.Library+".yaml")
		for _, fn := range file.Functions {
			require.True(t, fn.Convention.Valid(), fn.Name)
			require.Regexp(t, goIdent, fn.GoName)
			require.Equal(t, file.Library, fn.Library)
		}
		if !marshalSafe(file) {
			return
		}
		out, err := Marshal(file)
		require.NoError(t, err)
		again, err := (&Set{byName: map[string]*Function{}}).loadData(path, out)
		require.NoError(t, err, "Marshal wrote a file the loader rejects:\n%s", out)
		require.Equal(t, normalized(file), normalized(again), "Marshal did not round-trip:\n%s", out)
		out2, err := Marshal(again)
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2), "Marshal is not stable")
	})
}

// marshalSafe reports whether f's text meets Marshal's documented precondition (derived
// text is trimmed: no line of a value ends in white space, which Marshal strips from
// literal blocks).
func marshalSafe(f *File) bool {
	ok := func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if strings.TrimRight(line, " \t") != line {
				return false
			}
		}
		return true
	}
	for _, fn := range f.Functions {
		texts := []string{fn.Name, fn.Header, fn.Impl, fn.Page, fn.Success, fn.Doc.Summary, fn.Doc.Description, fn.Doc.ReturnValue, fn.Doc.Notes}
		if fn.Override != nil {
			texts = append(texts, fn.Override.Reason)
		}
		for _, e := range fn.Errors {
			texts = append(texts, e.Name, e.Meaning)
		}
		for _, r := range fn.SeeAlso {
			texts = append(texts, r.Name, r.Section)
		}
		for _, s := range texts {
			if !ok(s) {
				return false
			}
		}
	}
	return true
}

// FuzzParseOverrides feeds the overrides reader arbitrary bytes. Seeds: excerpts of the
// real spec/overrides/*.yaml and testdata/fuzz/FuzzParseOverrides. Errors carry
// file[:line[:col]]; accepted entries each have a function, a reason and a known or empty
// convention, no function twice, and a position inside the file.
func FuzzParseOverrides(f *testing.F) {
	for _, ex := range realExcerpts(f, "../../spec/overrides/*.yaml", "\n  - function: ", 2) {
		f.Add(ex)
	}
	f.Add([]byte("overrides:\n  - function: ibv_x\n    reason: r\n  - function: ibv_x\n    reason: again\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(data)()
		const path = "spec/overrides/libibverbs.yaml"
		ovs, err := parseOverrides(path, data, map[string]string{})
		if err != nil {
			checkPos(t, err, data)
			return
		}
		seen := map[string]bool{}
		for _, o := range ovs {
			require.Regexp(t, cIdent, o.Function)
			require.NotEmpty(t, o.Reason)
			require.True(t, o.Convention == "" || o.Convention.Valid())
			require.False(t, seen[o.Function], "%s twice", o.Function)
			seen[o.Function] = true
			checkPos(t, &posErr{o.Pos}, data)
		}
	})
}

type posErr struct{ pos string }

func (e *posErr) Error() string { return e.pos + ": entry" }

// watchdog crashes the fuzz worker when one input takes longer than 5 s, so that the
// fuzzer records it as a failing input (a hang otherwise just stalls the run); call the
// returned function when done.
func watchdog(data []byte) func() {
	t := time.AfterFunc(5*time.Second, func() {
		panic(fmt.Sprintf("one input took over 5s (%d bytes): %.200q", len(data), data))
	})
	return func() { t.Stop() }
}

// normalized returns f with empty lists as nil (omitempty writes neither).
func normalized(f *File) *File {
	c := *f
	c.Functions = nil
	for _, fn := range f.Functions {
		if len(fn.Errors) == 0 {
			fn.Errors = nil
		}
		if len(fn.SeeAlso) == 0 {
			fn.SeeAlso = nil
		}
		c.Functions = append(c.Functions, fn)
	}
	return &c
}

// The fuzz seeds cut from the real files load, so fuzzing starts from the success path.
func TestRealExcerptsLoad(t *testing.T) {
	exs := realExcerpts(t, "../../spec/*.yaml", "\n  - name: ", 3)
	require.Len(t, exs, len(fuzzLibs))
	for _, ex := range exs {
		var f File
		_, err := yamlfile.Decode("x", ex, &f)
		require.NoError(t, err)
		got, err := (&Set{byName: map[string]*Function{}}).loadData("spec/"+f.Library+".yaml", ex)
		require.NoError(t, err)
		require.Len(t, got.Functions, 3)
	}
	for _, ex := range realExcerpts(t, "../../spec/overrides/*.yaml", "\n  - function: ", 2) {
		ovs, err := parseOverrides("spec/overrides/x.yaml", ex, map[string]string{})
		require.NoError(t, err)
		require.NotEmpty(t, ovs)
		require.LessOrEqual(t, len(ovs), 2) // the excerpt's first two (mlx4.yaml has one)
	}
}
