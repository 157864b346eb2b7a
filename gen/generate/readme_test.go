package generate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/input"
)

// readmeGo is the first Go code block of a markdown file.
var readmeGo = regexp.MustCompile("(?s)```go\n(.*?)\n```")

// buildProgram builds and vets src as package main of a module requiring goverbs
// (userModule), returning the first failure's output.
func buildProgram(t *testing.T, repo, src string) error {
	t.Helper()
	dir := userModule(t, repo, src)
	for _, args := range [][]string{
		{"build", "-mod=mod", "-o", filepath.Join(dir, "prog"), "."},
		{"vet", "-mod=mod", "."},
	} {
		if out, err := goCmd(dir, args...).CombinedOutput(); err != nil {
			return &buildError{args: args[0], out: string(out), err: err}
		}
	}
	return nil
}

type buildError struct {
	args, out string
	err       error
}

func (e *buildError) Error() string { return "go " + e.args + ": " + e.err.Error() + "\n" + e.out }

// TestREADMEProgram builds and vets the README's Go program (its first ```go block) as
// the main package of a module requiring goverbs, so the program users copy first keeps compiling with the
// API. A copy of it calling a function the API lacks must fail the same check.
func TestREADMEProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program against the runtime packages")
	}
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(repo, "README.md"))
	require.NoError(t, err)
	m := readmeGo.FindSubmatch(b)
	require.NotNil(t, m, "README.md has no ```go block")
	src := string(m[1]) + "\n"
	require.True(t, strings.HasPrefix(src, "package main\n"), "README.md's first Go block is not a complete program (package main):\n%s", src)
	require.Contains(t, src, `"github.com/goverbs/goverbs/rdma"`, "README.md's program does not use package rdma")

	require.NoError(t, buildProgram(t, repo, src))

	broken := strings.Replace(src, "rdma.Dial(", "rdma.DialNoSuchFunction(", 1)
	require.NotEqual(t, src, broken, "the program no longer calls rdma.Dial: change the broken copy")
	err = buildProgram(t, repo, broken)
	require.Error(t, err, "a program calling a function rdma lacks built")
	require.Contains(t, err.Error(), "DialNoSuchFunction")
}
