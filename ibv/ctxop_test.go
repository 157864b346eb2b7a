//go:build cgo && !rxe

package ibv

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/dl"
)

// TestVerbsContextGrowsDown checks, on the layout table that TestLayout
// proves against gcc, the invariant the ctx-op shims rely on: every member
// of struct verbs_context lies at the same distance from the end of the
// struct (where struct ibv_context sits) in rdma-core 44 and 65.
func TestVerbsContextGrowsDown(t *testing.T) {
	type record struct {
		size, size44 uintptr
		fields       map[string][2]uintptr // member -> offset in 65, in 44
	}
	var rec *record
	for _, r := range layoutTable().Records {
		if r.C != "struct verbs_context" {
			continue
		}
		rec = &record{size: r.Size, size44: uintptr(int(r.Size) + r.SizeDiff["44"]), fields: map[string][2]uintptr{}}
		for _, f := range r.Fields {
			off44 := uintptr(int(f.Offset) + f.OffsetDiff["44"])
			for _, v := range f.In {
				if v == "44" {
					rec.fields[f.C] = [2]uintptr{f.Offset, off44}
				}
			}
		}
	}
	require.NotNil(t, rec)
	require.NotZero(t, rec.size44)
	require.NotEqual(t, rec.size, rec.size44)
	assert.Greater(t, rec.size, rec.size44, "rdma-core 65 added ops")
	require.NotEmpty(t, rec.fields)
	for name, o := range rec.fields {
		assert.Equal(t, rec.size-o[0], rec.size44-o[1], "%s: distance from the end", name)
	}
}

// TestCtxOpShim runs c_ibv_dealloc_td, the shim of a verbs_get_ctx_op
// inline, over a verbs_context in non-Go memory whose dealloc_td op is
// libc's getpid.
func TestCtxOpShim(t *testing.T) {
	mem, err := unix.Mmap(-1, 0, int(unsafe.Sizeof(VerbsContext{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	require.NoError(t, err)
	defer unix.Munmap(mem)
	vctx := (*VerbsContext)(unsafe.Pointer(&mem[0]))
	td := &TD{Context: &vctx.Context}

	_, _, err = c_ibv_dealloc_td(td)
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP), "not an extended context: %v", err)

	*(*uintptr)(unsafe.Pointer(&vctx.Context.ABICompat)) = ^uintptr(0) // __VERBS_ABI_IS_EXTENDED
	getpid, err := (&dl.Symbol{Lib: dl.NewLib("libc.so.6"), Name: "getpid"}).Addr()
	require.NoError(t, err)
	vctx.DeallocTD = getpid
	vctx.Sz = uint64(unsafe.Sizeof(*vctx) - unsafe.Offsetof(vctx.DeallocTD) - 1)
	_, _, err = c_ibv_dealloc_td(td)
	var nop *dl.NilOpError
	assert.ErrorAs(t, err, &nop, "provider's verbs_context too small for dealloc_td")

	vctx.Sz = uint64(unsafe.Sizeof(*vctx))
	r, _, err := c_ibv_dealloc_td(td)
	require.NoError(t, err)
	assert.Equal(t, int32(unix.Getpid()), r)
}
