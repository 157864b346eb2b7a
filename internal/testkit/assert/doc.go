// Package assert is the root module's small, stdlib-only replacement for the
// subset of testify's assert package its tests use, so that a
// program importing goverbs does not pull testify into its module graph
// (issue 25). Each function follows testify's semantics for the same name:
// it reports a failure through t.Errorf and returns false; it never stops the
// test (package require does).
//
// msgAndArgs is optional, as in testify: a single value (printed with %+v, or
// as is when a string), or a format string followed by its arguments.
package assert
