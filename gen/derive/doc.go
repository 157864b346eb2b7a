// Package derive builds the spec library files from the pinned inputs: it
// lists the functions of the in-scope headers (package header), reads the
// man pages of each library (package manpage), decides which page
// documents each function, classifies its return convention, applies the
// curated overrides and reports every documented function it could not
// classify.
package derive
