//go:build !cgo

package dl

const cgoNote = " with CGO_ENABLED=0"
