package generate

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/input"
)

// userModule writes a module of its own in a temporary directory with src as its main
// package, requiring the goverbs module of repo (a replace directive) as a user's program
// would, and returns the directory. Nothing is fetched (GOPROXY=off, see goCmd): the module
// graph comes from repo's go.sum and the module cache.
func userModule(t *testing.T, repo, src string) string {
	t.Helper()
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	mod := "module example.com/readmeprog\n\ngo 1.26.0\n\n" +
		"require github.com/goverbs/goverbs v0.0.0\n\n" +
		"replace github.com/goverbs/goverbs => " + repo + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(src)} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	return dir
}

// goCmd is the go command in dir, outside the repository's workspace, offline.
func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=")
	return cmd
}

// TestModuleGraph: a program importing the bindings (rdma and every generated package)
// depends on the goverbs module and golang.org/x/sys only — the generator (gen) and the
// test bed (tools) are modules of their own, and the bindings' tests use the standard
// library and internal/testkit, so `go list -m all` of a user's module lists nothing else.
func TestModuleGraph(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	src := `package main

import (
	_ "github.com/goverbs/goverbs/rdma"
` + generatedImports() + `)

func main() {}
`
	dir := userModule(t, repo, src)
	out, err := goCmd(dir, "list", "-mod=mod", "-m", "-f", "{{.Path}}", "all").CombinedOutput()
	require.NoError(t, err, "%s", out)
	mods := strings.Fields(string(out))
	slices.Sort(mods)
	require.Equal(t, []string{"example.com/readmeprog", "github.com/goverbs/goverbs", "golang.org/x/sys"}, mods,
		"the modules a user's program depends on (go list -m all)")
}

// generatedImports are the blank imports of every generated package (input.Specs).
func generatedImports() string {
	var b strings.Builder
	for _, s := range input.Specs {
		b.WriteString("\t_ \"github.com/goverbs/goverbs/" + s.Name + "\"\n")
	}
	return b.String()
}
