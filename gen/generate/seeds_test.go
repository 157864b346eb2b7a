package generate

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/input"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/seeds.golden")

// seeds are the C functions whose Go signatures testdata/seeds.golden pins: the seed
// functions of issue 24, one per convention and package, and the examples its "Why" named.
var seeds = []string{
	"ibv_req_notify_cq", "ibv_create_cq", "ibv_create_comp_channel", "rdma_get_send_comp",
	"rpma_cq_wait", "ionic_dv_pd_set_rqcmb",
	"ibv_get_device_list", "ibv_poll_cq", "ibv_query_gid", "ibv_modify_qp", "ibv_reg_mr",
	"ibv_post_send", "ibv_get_cq_event", "rdma_getaddrinfo", "rdma_reg_msgs", "rdma_post_send",
	"rpma_conn_cfg_get_cq_size", "rpma_conn_cfg_delete",
}

// TestSeedSignatures pins the Go signature of the seed functions, found by the C symbol
// their doc comments name ("X calls ibv_create_cq", or "X is rdma_get_send_comp" for a
// hand-written binding): a change of shape or name shows here first; rerun with
// -update-seeds after an intended one.
func TestSeedSignatures(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	want := map[string]bool{}
	for _, s := range seeds {
		want[s] = true
	}
	names := regexp.MustCompile(`^\S+ (?:calls|is) ([a-z_][a-z0-9_]*) \(`)
	found := map[string]string{}
	for _, s := range input.Specs {
		paths, err := filepath.Glob(filepath.Join(repo, s.Name, "*.go"))
		require.NoError(t, err)
		fset := token.NewFileSet()
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			require.NoError(t, err)
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Doc == nil || !fd.Name.IsExported() {
					continue
				}
				m := names.FindStringSubmatch(fd.Doc.Text())
				if m == nil || !want[m[1]] {
					continue
				}
				decl := *fd
				decl.Doc, decl.Body = nil, nil
				var b strings.Builder
				require.NoError(t, printer.Fprint(&b, fset, &decl))
				found[m[1]] = s.Name + ": " + strings.Join(strings.Fields(b.String()), " ")
			}
		}
	}
	var lines []string
	for _, s := range seeds {
		require.Contains(t, found, s, "no binding names %s", s)
		lines = append(lines, s+"\n\t"+found[s])
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "seeds.golden")
	if *updateSeeds {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	b, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(b), got)
}

// TestNoUndecidedShapes: every int32/uint32 parameter of a binding either has a Go shape or
// stays an integer for a stated reason; "undecided" (no rule decides, or the page names
// values of several enums) needs a spec override.
func TestNoUndecidedShapes(t *testing.T) {
	for _, s := range input.Specs {
		kept, err := KeptInts(".", s.Name)
		require.NoError(t, err, "run `make inputs`")
		for _, k := range kept {
			assert.NotContains(t, k, "undecided", s.Name)
		}
	}
}
