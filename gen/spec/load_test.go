package spec

import (
	"go/doc/comment"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/internal/testinputs"
)

const goodLib = `library: libibverbs
functions:
  - name: ibv_create_cq
    header: infiniband/verbs.h
    page: ibv_create_cq.3
    go_name: CreateCQ
    documented: true
    convention: pointer_or_null_errno
    success: non-NULL
  - name: ibv_destroy_cq
    header: infiniband/verbs.h
    page: ibv_create_cq.3
    go_name: DestroyCQ
    documented: true
    convention: zero_or_errno
    success: "0"
    errors:
      - name: EBUSY
        meaning: a QP still uses the CQ
`

// writeSpec writes files (name -> content) under a fresh spec directory.
func writeSpec(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return dir
}

func TestLoadGood(t *testing.T) {
	dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib})
	set, err := Load(dir)
	require.NoError(t, err)
	f, ok := set.Lookup("ibv_destroy_cq")
	require.True(t, ok)
	assert.Equal(t, LibIBVerbs, f.Library)
	assert.Equal(t, ZeroOrErrno, f.Convention)
	assert.Equal(t, []Error{{Name: "EBUSY", Meaning: "a QP still uses the CQ"}}, f.Errors)
	assert.Len(t, set.Functions(), 2)
	assert.Len(t, set.Library(LibIBVerbs), 2)
	_, ok = set.Lookup("ibv_nope")
	assert.False(t, ok)
}

// Every bad input fails with file:line and says what is wrong.
func TestLoadStrict(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // substring of the error, after the directory
	}{
		{"typo in a field name",
			map[string]string{"libibverbs.yaml": replace(goodLib, "    convention: zero_or_errno", "    convnetion: zero_or_errno")},
			`libibverbs.yaml:15:5: unknown field "convnetion"`},
		{"unknown convention",
			map[string]string{"libibverbs.yaml": replace(goodLib, "convention: zero_or_errno", "convention: zero_or_whatever")},
			`libibverbs.yaml:15: ibv_destroy_cq: unknown convention "zero_or_whatever"`},
		{"duplicate key",
			map[string]string{"libibverbs.yaml": replace(goodLib, "    success: non-NULL", "    success: non-NULL\n    success: again")},
			`libibverbs.yaml:10:5: mapping key "success" already defined`},
		{"function defined twice",
			map[string]string{"libibverbs.yaml": replace(goodLib, "  - name: ibv_destroy_cq", "  - name: ibv_create_cq")},
			`libibverbs.yaml:10: function ibv_create_cq defined twice`},
		{"unknown library",
			map[string]string{"libibverbs.yaml": replace(goodLib, "library: libibverbs", "library: libfoo")},
			`libibverbs.yaml:1: unknown library "libfoo"`},
		{"library in the wrong file",
			map[string]string{"librdmacm.yaml": goodLib},
			`librdmacm.yaml:1: library "libibverbs" must live in libibverbs.yaml`},
		{"bad go name",
			map[string]string{"libibverbs.yaml": replace(goodLib, "go_name: DestroyCQ", "go_name: destroyCQ")},
			`libibverbs.yaml:13: ibv_destroy_cq: bad go_name "destroyCQ"`},
		{"duplicate go name",
			map[string]string{"libibverbs.yaml": replace(goodLib, "go_name: DestroyCQ", "go_name: CreateCQ")},
			`libibverbs.yaml:13: ibv_destroy_cq: go_name CreateCQ already used by ibv_create_cq`},
		{"documented without a page",
			map[string]string{"libibverbs.yaml": replace(goodLib, "    page: ibv_create_cq.3\n    go_name: DestroyCQ", "    go_name: DestroyCQ")},
			`libibverbs.yaml:13: ibv_destroy_cq: documented but no page`},
		{"syntax error",
			map[string]string{"libibverbs.yaml": goodLib + "  - name: [unclosed\n"},
			`libibverbs.yaml:20:11: sequence end token`},
		{"wrong type",
			map[string]string{"libibverbs.yaml": replace(goodLib, "documented: true\n    convention: zero_or_errno", "documented: maybe\n    convention: zero_or_errno")},
			`libibverbs.yaml:14:17: cannot unmarshal string`},
		{"override for an unknown function",
			map[string]string{"libibverbs.yaml": goodLib, "overrides/libibverbs.yaml": "overrides:\n  - function: ibv_create_cq_typo\n    reason: x\n"},
			`overrides/libibverbs.yaml:2: override for unknown function "ibv_create_cq_typo"`},
		{"override without a reason",
			map[string]string{"libibverbs.yaml": goodLib, "overrides/libibverbs.yaml": "overrides:\n  - function: ibv_create_cq\n    convention: value\n"},
			`overrides/libibverbs.yaml:2: ibv_create_cq: override without a reason`},
		{"override with an unknown convention",
			map[string]string{"libibverbs.yaml": goodLib, "overrides/libibverbs.yaml": "overrides:\n  - function: ibv_create_cq\n    convention: pointer\n    reason: x\n"},
			`overrides/libibverbs.yaml:3: ibv_create_cq: unknown convention "pointer"`},
		{"override field typo",
			map[string]string{"libibverbs.yaml": goodLib, "overrides/libibverbs.yaml": "overrides:\n  - function: ibv_create_cq\n    reson: x\n"},
			`overrides/libibverbs.yaml:3:5: unknown field "reson"`},
		{"override not applied",
			map[string]string{"libibverbs.yaml": goodLib, "overrides/libibverbs.yaml": "overrides:\n  - function: ibv_create_cq\n    reason: x\n"},
			`overrides/libibverbs.yaml:2: override for ibv_create_cq is not applied in spec/libibverbs.yaml`},
		{"override twice",
			map[string]string{"libibverbs.yaml": goodLib, "overrides/libibverbs.yaml": "overrides:\n  - function: ibv_create_cq\n    reason: x\n  - function: ibv_create_cq\n    reason: y\n"},
			`overrides/libibverbs.yaml:4: ibv_create_cq overridden twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSpec(t, tc.files)
			_, err := Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, tc.want))
		})
	}
}

func TestLoadEmptyDir(t *testing.T) {
	_, err := Load(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no *.yaml files")
}

// The committed spec loads, and holds every library.
func TestLoadCommittedSpec(t *testing.T) {
	set, err := Load(filepath.Join(testinputs.RepoRoot(t), "spec"))
	require.NoError(t, err)
	for _, lib := range []string{LibIBVerbs, LibRDMACM, LibIonic, LibRPMA} {
		assert.NotEmpty(t, set.Library(lib), lib)
	}
	for _, f := range set.Functions() {
		assert.True(t, f.Convention.Valid(), f.Name)
		assert.NotEqual(t, f.Documented, f.Page == "", f.Name)
	}
}

// Loading the committed spec and encoding it again gives the same bytes:
// nothing written is lost or changed on the way back in.
func TestCommittedSpecRoundTrips(t *testing.T) {
	dir := filepath.Join(testinputs.RepoRoot(t), "spec")
	set, err := Load(dir)
	require.NoError(t, err)
	for _, lib := range []string{LibIBVerbs, LibRDMACM, LibIonic, LibRPMA} {
		f := &File{Library: lib}
		for _, fn := range set.Library(lib) {
			f.Functions = append(f.Functions, *fn)
		}
		got, err := Marshal(f)
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(dir, lib+".yaml"))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), lib)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib})
	set, err := Load(dir)
	require.NoError(t, err)
	f := &File{Library: LibIBVerbs}
	for _, fn := range set.Library(LibIBVerbs) {
		c := *fn
		c.Doc = Doc{Summary: "s", Description: "para one\n\n\tcode\n\n  - item"}
		f.Functions = append(f.Functions, c)
	}
	// Text that starts indented (a list, a code block) must keep it.
	f.Functions[1].Doc = Doc{Description: "  - a: one\n  - b: two", Notes: "\tcode\n\n\tmore"}
	f.Functions[1].Override = &Override{Reason: "because"}
	b, err := Marshal(f)
	require.NoError(t, err)
	b2, err := Marshal(f)
	require.NoError(t, err)
	assert.Equal(t, b, b2, "deterministic")
	assert.NotRegexp(t, `(?m)[ \t]+$`, string(b), "no trailing white space")
	dir2 := writeSpec(t, map[string]string{"libibverbs.yaml": string(b)})
	back, err := Load(dir2)
	require.NoError(t, err)
	got, _ := back.Lookup("ibv_create_cq")
	assert.Equal(t, f.Functions[0].Doc, got.Doc)
	got, _ = back.Lookup("ibv_destroy_cq")
	assert.Equal(t, &Override{Reason: "because"}, got.Override)
	assert.Equal(t, f.Functions[1].Doc, got.Doc)
}

func TestConventions(t *testing.T) {
	cs := Conventions()
	assert.Len(t, cs, 15)
	for _, c := range cs {
		assert.True(t, c.Valid())
		assert.NotContains(t, c.Describe(), "unknown")
	}
	assert.False(t, Convention("nope").Valid())
	assert.True(t, PointerOrNullErrno.SetsErrno())
	assert.False(t, ZeroOrErrno.SetsErrno())
	assert.False(t, Value.CanFail())
	assert.True(t, ZeroOrNegCode.CanFail())
}

func TestDocComment(t *testing.T) {
	d := Doc{Summary: "create a CQ", Description: "Creates.", ReturnValue: "Returns it.", Notes: ""}
	assert.Equal(t, "create a CQ\n\nCreates.\n\n# Return value\n\nReturns it.", d.Comment())
	assert.True(t, Doc{}.IsZero())
}

// replace replaces the one occurrence of old in s; the fixture must hold it.
func replace(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("test fixture: " + old + " not found")
	}
	return strings.Replace(s, old, new, 1)
}

// Every doc comment of the committed spec is in canonical Go doc form:
// go/doc/comment prints it back unchanged.
func TestCommittedDocsAreCanonical(t *testing.T) {
	set, err := Load(filepath.Join(testinputs.RepoRoot(t), "spec"))
	require.NoError(t, err)
	var parser comment.Parser
	var printer comment.Printer
	for _, f := range set.Functions() {
		text := f.Doc.Comment()
		if text == "" {
			continue
		}
		got := strings.TrimSuffix(string(printer.Comment(parser.Parse(text))), "\n")
		assert.Equal(t, text, got, f.Name)
	}
}

// An override may say where the library's code differs from the page (differs:): both sides
// are required, Apply records them, and Sentence says them as the doc comment does.
func TestOverrideDiffers(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) error {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "x.yaml"), []byte(body), 0o644))
		_, err := LoadOverrides(dir)
		return err
	}
	err := write("overrides:\n  - function: ibv_x\n    differs:\n      page: p\n    reason: r\n")
	require.ErrorContains(t, err, "differs needs what the page says (page) and what the library returns (library)")
	require.True(t, strings.HasPrefix(err.Error(), filepath.Join(dir, "x.yaml")+":4:"), err.Error())
	require.NoError(t, write("overrides:\n  - function: ibv_x\n    differs:\n      page: NULL on failure.\n      library: |-\n        NULL with\n        errno set.\n    reason: r\n"))
	ovs, err := LoadOverrides(dir)
	require.NoError(t, err)
	var f Function
	ovs[0].Apply(&f)
	require.NotNil(t, f.Override.Differs)
	assert.Equal(t, "The page says NULL on failure; the library returns NULL with errno set.", f.Override.Differs.Sentence())
}
