// Package manpage reads rdma-core and librpma manual pages and derives what
// the spec records about each function: which functions a page documents,
// its doc text in Go doc-comment form, its SEE ALSO links, its documented
// error codes, and the return convention its RETURN VALUE section states.
//
// Pages are rendered by mandoc(1) to an HTML fragment (Render), which gives
// one structure for both groff-written and pandoc-made pages; Parse turns
// that fragment into a Page of sections and blocks. Everything after Render
// is pure Go and deterministic.
package manpage
