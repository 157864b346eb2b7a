package require

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fakeT records reports and FailNow calls; its FailNow returns, so that a
// test can see what follows it.
type fakeT struct {
	errors  []string
	failNow int
	helpers int
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) FailNow() { f.failNow++ }
func (f *fakeT) Helper()  { f.helpers++ }

type codeErr struct{}

func (*codeErr) Error() string { return "code" }

// cases has, for every function of the package, one call that passes and
// one that fails; the assertions themselves are tested in package assert.
func cases(t *testing.T) map[string][2]func(TestingT) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, q := new(int), new(int)
	wrapped := fmt.Errorf("op: %w", fs.ErrNotExist)
	coded := fmt.Errorf("op: %w", &codeErr{})
	return map[string][2]func(TestingT){
		"Equal":          {func(t TestingT) { Equal(t, 1, 1) }, func(t TestingT) { Equal(t, 1, 2) }},
		"NotEqual":       {func(t TestingT) { NotEqual(t, 1, 2) }, func(t TestingT) { NotEqual(t, 1, 1) }},
		"EqualValues":    {func(t TestingT) { EqualValues(t, 1, int8(1)) }, func(t TestingT) { EqualValues(t, 1, int8(2)) }},
		"Same":           {func(t TestingT) { Same(t, p, p) }, func(t TestingT) { Same(t, p, q) }},
		"NotSame":        {func(t TestingT) { NotSame(t, p, q) }, func(t TestingT) { NotSame(t, p, p) }},
		"IsType":         {func(t TestingT) { IsType(t, 0, 1) }, func(t TestingT) { IsType(t, 0, "") }},
		"Nil":            {func(t TestingT) { Nil(t, (*int)(nil)) }, func(t TestingT) { Nil(t, p) }},
		"NotNil":         {func(t TestingT) { NotNil(t, p) }, func(t TestingT) { NotNil(t, nil) }},
		"Empty":          {func(t TestingT) { Empty(t, "") }, func(t TestingT) { Empty(t, "x") }},
		"NotEmpty":       {func(t TestingT) { NotEmpty(t, "x") }, func(t TestingT) { NotEmpty(t, "") }},
		"Zero":           {func(t TestingT) { Zero(t, 0) }, func(t TestingT) { Zero(t, 1) }},
		"NotZero":        {func(t TestingT) { NotZero(t, 1) }, func(t TestingT) { NotZero(t, 0) }},
		"Len":            {func(t TestingT) { Len(t, "ab", 2) }, func(t TestingT) { Len(t, "ab", 1) }},
		"Contains":       {func(t TestingT) { Contains(t, "ab", "b") }, func(t TestingT) { Contains(t, "ab", "c") }},
		"NotContains":    {func(t TestingT) { NotContains(t, "ab", "c") }, func(t TestingT) { NotContains(t, "ab", "b") }},
		"Subset":         {func(t TestingT) { Subset(t, []int{1, 2}, []int{2}) }, func(t TestingT) { Subset(t, []int{1}, []int{2}) }},
		"ElementsMatch":  {func(t TestingT) { ElementsMatch(t, []int{1, 2}, []int{2, 1}) }, func(t TestingT) { ElementsMatch(t, []int{1}, []int{2}) }},
		"NoError":        {func(t TestingT) { NoError(t, nil) }, func(t TestingT) { NoError(t, wrapped) }},
		"Error":          {func(t TestingT) { Error(t, wrapped) }, func(t TestingT) { Error(t, nil) }},
		"EqualError":     {func(t TestingT) { EqualError(t, wrapped, "op: file does not exist") }, func(t TestingT) { EqualError(t, wrapped, "op") }},
		"ErrorContains":  {func(t TestingT) { ErrorContains(t, wrapped, "op") }, func(t TestingT) { ErrorContains(t, wrapped, "permission") }},
		"ErrorIs":        {func(t TestingT) { ErrorIs(t, wrapped, fs.ErrNotExist) }, func(t TestingT) { ErrorIs(t, wrapped, fs.ErrExist) }},
		"NotErrorIs":     {func(t TestingT) { NotErrorIs(t, wrapped, fs.ErrExist) }, func(t TestingT) { NotErrorIs(t, wrapped, fs.ErrNotExist) }},
		"ErrorAs":        {func(t TestingT) { var c *codeErr; ErrorAs(t, coded, &c) }, func(t TestingT) { var c *codeErr; ErrorAs(t, wrapped, &c) }},
		"Greater":        {func(t TestingT) { Greater(t, 2, 1) }, func(t TestingT) { Greater(t, 1, 2) }},
		"GreaterOrEqual": {func(t TestingT) { GreaterOrEqual(t, 1, 1) }, func(t TestingT) { GreaterOrEqual(t, 1, 2) }},
		"Less":           {func(t TestingT) { Less(t, 1, 2) }, func(t TestingT) { Less(t, 2, 1) }},
		"LessOrEqual":    {func(t TestingT) { LessOrEqual(t, 1, 1) }, func(t TestingT) { LessOrEqual(t, 2, 1) }},
		"Positive":       {func(t TestingT) { Positive(t, 1) }, func(t TestingT) { Positive(t, -1) }},
		"InDelta":        {func(t TestingT) { InDelta(t, 1.0, 1.1, 0.2) }, func(t TestingT) { InDelta(t, 1.0, 1.5, 0.2) }},
		"True":           {func(t TestingT) { True(t, true) }, func(t TestingT) { True(t, false) }},
		"False":          {func(t TestingT) { False(t, false) }, func(t TestingT) { False(t, true) }},
		"Regexp":         {func(t TestingT) { Regexp(t, regexp.MustCompile("b"), "ab") }, func(t TestingT) { Regexp(t, "^b", "ab") }},
		"NotRegexp":      {func(t TestingT) { NotRegexp(t, "^b", "ab") }, func(t TestingT) { NotRegexp(t, "b", "ab") }},
		"FileExists":     {func(t TestingT) { FileExists(t, file) }, func(t TestingT) { FileExists(t, file+".missing") }},
		"Fail":           {nil, func(t TestingT) { Fail(t, "always", "with %s", "message") }},
	}
}

func TestRequire(t *testing.T) {
	for name, c := range cases(t) {
		t.Run(name, func(t *testing.T) {
			if pass := c[0]; pass != nil {
				ft := &fakeT{}
				pass(ft)
				if ft.failNow != 0 || len(ft.errors) != 0 {
					t.Errorf("pass case: FailNow %d times, reports %q", ft.failNow, ft.errors)
				}
				if ft.helpers == 0 {
					t.Error("pass case: Helper not called")
				}
			}
			ft := &fakeT{}
			c[1](ft)
			if ft.failNow != 1 || len(ft.errors) == 0 {
				t.Errorf("fail case: FailNow %d times, reports %q; want 1 FailNow after a report", ft.failNow, ft.errors)
			}
			if ft.helpers == 0 {
				t.Error("fail case: Helper not called")
			}
		})
	}
}

// TestMatchesAssert checks that require offers exactly assert's assertions,
// and that the table above covers each.
func TestMatchesAssert(t *testing.T) {
	mine, theirs := assertions(t, "."), assertions(t, "../assert")
	if !slices.Equal(mine, theirs) {
		t.Errorf("require has %v\nassert has %v", mine, theirs)
	}
	have := cases(t)
	for _, name := range mine {
		if c, ok := have[name]; !ok || c[1] == nil || (c[0] == nil && name != "Fail") {
			t.Errorf("%s: no pass and fail case", name)
		}
	}
}

// TestStops checks that a failed require ends its goroutine when FailNow
// does (as *testing.T's does), so nothing after it runs.
func TestStops(t *testing.T) {
	ran := false
	ft := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		stopper := &goexitT{fakeT: ft}
		NoError(stopper, errors.New("boom"))
		ran = true
	}()
	<-done
	if ran {
		t.Error("code after a failed require ran")
	}
	if len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "boom") {
		t.Errorf("reports %q, want one naming the error", ft.errors)
	}
}

// goexitT stops its goroutine in FailNow, as *testing.T does.
type goexitT struct{ *fakeT }

func (g *goexitT) FailNow() { g.failNow++; runtime.Goexit() }

// assertions lists the exported functions in dir whose first parameter is a
// TestingT.
func assertions(t *testing.T, dir string) []string {
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
		f, err := parser.ParseFile(fset, name, nil, 0)
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
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatalf("no assertions in %s", dir)
	}
	return names
}
