package assert

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// exportedAssertions lists the exported functions of the package in dir
// whose first parameter is a TestingT.
func exportedAssertions(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() || len(fd.Type.Params.List) == 0 {
				continue
			}
			if id, ok := fd.Type.Params.List[0].Type.(*ast.Ident); ok && id.Name == "TestingT" {
				names = append(names, fd.Name.Name)
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no assertions in %s", dir)
	}
	return names
}
