// Package require is package assert's assertions that stop the test: each
// reports a failure like its assert namesake, then calls t.FailNow. It is the
// root module's stdlib-only replacement for the subset of
// testify's require package its tests use (issue 25).
package require

import "github.com/goverbs/goverbs/internal/testkit/assert"

// TestingT is the part of *testing.T the assertions need.
type TestingT interface {
	assert.TestingT
	FailNow()
}

type tHelper interface {
	Helper()
}

func helper(t TestingT) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
}

// Fail is assert.Fail, then t.FailNow.
func Fail(t TestingT, failure string, msgAndArgs ...any) {
	helper(t)
	assert.Fail(t, failure, msgAndArgs...)
	t.FailNow()
}
