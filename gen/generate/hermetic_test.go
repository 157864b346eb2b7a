package generate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/input"
)

// runtimeDirs are the packages a program imports (the generated ones, rdma) and their
// run-time support, relative to the repository.
func runtimeDirs() []string {
	dirs := []string{"rdma", "internal/dl", "internal/cerr"}
	for _, s := range input.Specs {
		dirs = append(dirs, s.Name)
	}
	return dirs
}

// TestHermetic checks that no Go file of the runtime packages includes a header outside
// the C standard library, POSIX's poll.h and libdl: the packages must build where no
// rdma-core (or kernel RDMA) headers are installed.
func TestHermetic(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	allowed := map[string]bool{"stdbool.h": true, "stdint.h": true, "stdlib.h": true, "dlfcn.h": true, "errno.h": true, "poll.h": true}
	include := regexp.MustCompile(`#\s*include\s*[<"]([^>"]+)[>"]`)
	for _, d := range runtimeDirs() {
		files, err := filepath.Glob(filepath.Join(repo, d, "*"))
		require.NoError(t, err)
		for _, f := range files {
			if !strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, ".h") && !strings.HasSuffix(f, ".c") {
				continue
			}
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			text := string(b)
			if strings.HasSuffix(f, ".go") {
				// The C a Go file compiles is its cgo preamble: doc
				// comments may quote a man page's #include
				// (mlx5dv_create_mkey(3) shows <openssl/evp.h>).
				text = cgoPreambles(t, f, b)
			}
			for _, m := range include.FindAllStringSubmatch(text, -1) {
				assert.True(t, allowed[m[1]], "%s includes <%s>", f, m[1])
			}
		}
	}
}

// cgoPreambles returns the cgo preambles of the Go file f: the comments just
// before its import "C" declarations.
func cgoPreambles(t *testing.T, f string, src []byte) string {
	file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly|parser.ParseComments)
	require.NoError(t, err)
	var b strings.Builder
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for _, sp := range g.Specs {
			is := sp.(*ast.ImportSpec)
			if is.Path.Value != `"C"` {
				continue
			}
			for _, doc := range []*ast.CommentGroup{g.Doc, is.Doc} {
				if doc != nil {
					for _, c := range doc.List {
						b.WriteString(c.Text + "\n")
					}
				}
			}
		}
	}
	return b.String()
}

// TestBuildsWithoutRDMAHeaders builds a program importing every runtime package with a C
// compiler that sees the system's headers less infiniband/ and rdma/ (those of
// libibverbs-dev, librdmacm-dev and the kernel's RDMA uapi), as on a machine with gcc and
// libc6-dev only.
func TestBuildsWithoutRDMAHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every cgo package again")
	}
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	out, err := exec.Command(cc, "-print-file-name=include").Output()
	require.NoError(t, err)
	gccInc := strings.TrimSpace(string(out))
	tmp := t.TempDir()
	inc := filepath.Join(tmp, "include")
	require.NoError(t, os.Mkdir(inc, 0o755))
	entries, err := os.ReadDir("/usr/include")
	require.NoError(t, err)
	for _, e := range entries {
		if e.Name() == "infiniband" || e.Name() == "rdma" {
			continue
		}
		require.NoError(t, os.Symlink(filepath.Join("/usr/include", e.Name()), filepath.Join(inc, e.Name())))
	}
	wrapper := filepath.Join(tmp, "cc")
	script := "#!/bin/sh\nexec " + cc + " -nostdinc -isystem " + gccInc + " -isystem " + gccInc + "-fixed" +
		" -isystem " + filepath.Join(inc, "x86_64-linux-gnu") + " -isystem " + filepath.Join(inc, "aarch64-linux-gnu") +
		" -isystem " + inc + ` "$@"` + "\n"
	require.NoError(t, os.WriteFile(wrapper, []byte(script), 0o755))
	// The wrapper itself must be hermetic: a file including verbs.h does not compile.
	probe := filepath.Join(tmp, "probe.c")
	require.NoError(t, os.WriteFile(probe, []byte("#include <infiniband/verbs.h>\n"), 0o644))
	_, err = exec.Command(wrapper, "-fsyntax-only", probe).CombinedOutput()
	require.Error(t, err, "the compiler still finds infiniband/verbs.h")

	prog := filepath.Join(repo, "internal", "hermeticprog")
	cmd := exec.Command("go", "build", "-o", filepath.Join(tmp, "prog"), "./internal/hermeticprog")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CC="+wrapper, "CGO_ENABLED=1")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", prog, out)
}

// TestBuildsWithoutCgo builds the program importing every runtime package with
// CGO_ENABLED=0 and for darwin, and runs the CGO_ENABLED=0 build: every call's error
// matches ErrNotSupported.
func TestBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every package again")
	}
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	tmp := t.TempDir()
	build := func(out string, env ...string) {
		t.Helper()
		cmd := exec.Command("go", "build", "-o", filepath.Join(tmp, out), "./internal/hermeticprog")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), env...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%v: %s", env, b)
	}
	build("nocgo", "CGO_ENABLED=0")
	build("darwin", "GOOS=darwin", "GOARCH=arm64")
	out, err := exec.Command(filepath.Join(tmp, "nocgo")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "ErrNotSupported")
	for _, s := range input.Specs { // every generated package, so hermeticprog must import each
		assert.Contains(t, string(out), s.Name+".Load: not supported true")
	}
}
