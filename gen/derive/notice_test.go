package derive

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

// TestNotice checks NOTICE against the pinned packages whose man pages the generated doc
// comments derive from: every license line of a page the spec uses, every Debian copyright
// stanza covering those pages, and the pinned versions, are stated there.
func TestNotice(t *testing.T) {
	repo := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(repo, "NOTICE"))
	require.NoError(t, err)
	notice := string(b)
	in := Inputs{Root: filepath.Join(repo, ".cache", "inputs")}
	set, err := spec.Load(filepath.Join(repo, "spec"))
	require.NoError(t, err)
	dirs := map[string]string{}
	for _, s := range in.Sources() {
		dirs[s.Library] = s.ManDir
	}
	license := regexp.MustCompile(`^\.\\"\s*(Licensed under .*)$`)
	pages := 0
	for _, f := range set.Functions() {
		if f.Page == "" {
			continue
		}
		pages++
		for _, l := range pageLines(t, dirs[f.Library], f.Page) {
			if m := license.FindStringSubmatch(l); m != nil {
				assert.Contains(t, notice, strings.TrimSpace(m[1]), "%s's license line", f.Page)
			}
		}
	}
	require.NotZero(t, pages)

	// The Debian copyright stanzas of the pages' directories.
	for _, c := range []struct{ file, files string }{
		{"rdma-core-65/usr/share/doc/libibverbs-dev/copyright", "libibverbs/man/*"},
		{"rdma-core-65/usr/share/doc/librdmacm-dev/copyright", "librdmacm/man/*"},
		{"rdma-core-65/usr/share/doc/libibverbs-dev/copyright", "providers/ionic/*"},
		{"librpma/usr/share/doc/librpma-dev/copyright", "*"},
	} {
		copyright, lic := stanza(t, filepath.Join(in.Root, c.file), c.files)
		want := "Files " + c.files + ": Copyright " + copyright + "; License: " + lic
		assert.Contains(t, notice, want, "%s, Files: %s", c.file, c.files)
	}
	// The pinned versions the pages come from.
	lock, err := os.ReadFile(filepath.Join(repo, "inputs.lock"))
	require.NoError(t, err)
	for _, l := range strings.Split(string(lock), "\n") {
		f := strings.Fields(l)
		if len(f) == 5 && (f[0] == "rdma-core-65" || f[0] == "librpma") {
			assert.Contains(t, notice, f[1], "NOTICE names the pinned package")
			assert.Contains(t, notice, f[2], "NOTICE names the pinned version of %s", f[1])
		}
	}
}

// pageLines are the lines of man page name (gzip'd or not) in dir.
func pageLines(t *testing.T, dir, name string) []string {
	t.Helper()
	var r io.Reader
	f, err := os.Open(filepath.Join(dir, name+".gz"))
	if err == nil {
		defer f.Close()
		z, err := gzip.NewReader(f)
		require.NoError(t, err)
		r = z
	} else {
		f, err = os.Open(filepath.Join(dir, name))
		require.NoError(t, err, "man page %s (run make inputs)", name)
		defer f.Close()
		r = f
	}
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

// stanza returns the Copyright and License of the DEP-5 stanza whose Files field lists
// files.
func stanza(t *testing.T, path, files string) (copyright, license string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "run make inputs")
	for _, para := range strings.Split(string(b), "\n\n") {
		var fields []string
		var cur string
		var lic, cr string
		for _, l := range strings.Split(para, "\n") {
			switch {
			case strings.HasPrefix(l, "Files:"):
				cur = "files"
				fields = append(fields, strings.Fields(strings.TrimPrefix(l, "Files:"))...)
			case strings.HasPrefix(l, "Copyright:"):
				cur = "copyright"
				cr = strings.TrimSpace(strings.TrimPrefix(l, "Copyright:"))
			case strings.HasPrefix(l, "License:"):
				cur = ""
				lic = strings.TrimSpace(strings.TrimPrefix(l, "License:"))
			case strings.HasPrefix(l, " ") && cur == "files":
				fields = append(fields, strings.Fields(l)...)
			}
		}
		for _, f := range fields {
			if f == files {
				return cr, lic
			}
		}
	}
	t.Fatalf("%s: no stanza for Files: %s", path, files)
	return "", ""
}
