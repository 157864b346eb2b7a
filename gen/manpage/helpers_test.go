package manpage

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/internal/testinputs"
)

// load renders and parses a pinned page, such as ("rdma-core-65",
// "ibv_create_cq").
func load(t *testing.T, pkg, name string) *Page {
	t.Helper()
	html, err := Render(filepath.Join(testinputs.Man3(t, pkg), name+".3.gz"))
	require.NoError(t, err)
	p, err := Parse(html)
	require.NoError(t, err)
	return p
}

// pageFuncs is the subject list the derivation uses: NAME entries, then
// SYNOPSIS calls.
func pageFuncs(p *Page) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range p.Names() {
		for _, n := range e.Names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	for _, n := range p.SynopsisCalls() {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
