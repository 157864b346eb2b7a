package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/internal/testinputs"
)

// TestCheck is the CI check: the committed spec/ is exactly what
// `go run ./tools/specderive` derives from the pinned inputs, and nothing
// is left unclassified.
func TestCheck(t *testing.T) {
	inputs := testinputs.Dir(t)
	dir := filepath.Join(testinputs.RepoRoot(t), "spec")
	var out, errb bytes.Buffer
	err := run(&out, &errb, inputs, dir, true, false)
	require.NoError(t, err, "spec/ is stale; run go run ./tools/specderive\n%s", errb.String())
	assert.Empty(t, errb.String())
}

// copySpec copies the committed spec/ into a temporary directory.
func copySpec(t *testing.T) string {
	t.Helper()
	src := filepath.Join(testinputs.RepoRoot(t), "spec")
	dst := t.TempDir()
	require.NoError(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
	return dst
}

func TestCheckReportsDifferences(t *testing.T) {
	inputs := testinputs.Dir(t)
	dir := copySpec(t)
	lib := filepath.Join(dir, "librdmacm.yaml")
	b, err := os.ReadFile(lib)
	require.NoError(t, err)
	edited := strings.Replace(string(b), "convention: count_or_minus_one_errno", "convention: zero_or_errno", 1)
	require.NotEqual(t, string(b), edited)
	require.NoError(t, os.WriteFile(lib, []byte(edited), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stale.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "ionic.yaml")))

	var out, errb bytes.Buffer
	err = run(&out, &errb, inputs, dir, true, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "3 file(s) differ")
	msg := errb.String()
	assert.Contains(t, msg, filepath.Join(dir, "ionic.yaml")+": missing")
	assert.Regexp(t, regexp.QuoteMeta(filepath.Join(dir, "librdmacm.yaml"))+`:\d+: differs \(1 line\(s\) changed\)`, msg)
	assert.Contains(t, msg, filepath.Join(dir, "stale.yaml")+": stale")

	// Without -check the tool rewrites the files, byte for byte.
	out.Reset()
	errb.Reset()
	require.NoError(t, os.Remove(filepath.Join(dir, "stale.yaml")))
	require.NoError(t, run(&out, &errb, inputs, dir, false, false))
	assert.Contains(t, out.String(), "wrote "+lib)
	require.NoError(t, run(&out, &errb, inputs, dir, true, false))
}

func TestUnclassifiedFails(t *testing.T) {
	inputs := testinputs.Dir(t)
	dir := copySpec(t)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "overrides")))
	var out, errb bytes.Buffer
	err := run(&out, &errb, inputs, dir, false, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "21 unclassified function(s)")
	assert.Contains(t, errb.String(), "efadv_qp_from_ibv_qp_ex (efadv_wr_set_processing_hints.3): the page has no RETURN VALUE section")
	assert.Contains(t, errb.String(), "rdma_getaddrinfo (rdma_getaddrinfo.3): text fits several conventions")
}

func TestMissingInputs(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(&out, &errb, filepath.Join(t.TempDir(), "nope"), t.TempDir(), true, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run `make inputs`")
}

func TestLineDiff(t *testing.T) {
	first, n := lineDiff("a\nb\nc", "a\nB\nc\nd")
	assert.Equal(t, 2, first)
	assert.Equal(t, 2, n)
	first, n = lineDiff("same", "same")
	assert.Equal(t, 0, first)
	assert.Equal(t, 0, n)
}
