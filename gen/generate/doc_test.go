package generate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/input"
)

// TestDocComments checks that every exported symbol of the generated files
// (types, constants, functions, methods, struct fields) has a doc comment.
func TestDocComments(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	for _, s := range input.Specs {
		files, err := filepath.Glob(filepath.Join(repo, s.Name, "z*.go"))
		require.NoError(t, err)
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
			require.NoError(t, err)
			rel := s.Name + "/" + filepath.Base(file)
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() {
						assert.NotNil(t, d.Doc, "%s: func %s", rel, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						checkSpec(t, rel, d, sp)
					}
				}
			}
		}
	}
}

func checkSpec(t *testing.T, rel string, d *ast.GenDecl, sp ast.Spec) {
	switch sp := sp.(type) {
	case *ast.TypeSpec:
		if !sp.Name.IsExported() {
			return
		}
		assert.True(t, d.Doc != nil || sp.Doc != nil, "%s: type %s", rel, sp.Name.Name)
		st, ok := sp.Type.(*ast.StructType)
		if !ok {
			return
		}
		for _, f := range st.Fields.List {
			exported := len(f.Names) == 0 // embedded generated type
			for _, n := range f.Names {
				exported = exported || n.IsExported()
			}
			if exported && !isHostLayout(f) {
				assert.NotNil(t, f.Doc, "%s: field of %s at %v", rel, sp.Name.Name, f.Names)
			}
		}
	case *ast.ValueSpec:
		for _, n := range sp.Names {
			if n.IsExported() {
				assert.True(t, d.Doc != nil && len(d.Specs) == 1 || sp.Doc != nil, "%s: %s", rel, n.Name)
			}
		}
	}
}

func isHostLayout(f *ast.Field) bool {
	sel, ok := f.Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "HostLayout"
}
