//go:build cgo

package dl

const cgoNote = ""
