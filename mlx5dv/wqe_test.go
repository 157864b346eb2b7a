//go:build !rxe

package mlx5dv

import (
	"encoding/binary"
	"runtime"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/wqetest"
)

// The Go helpers of wqe.go and devx.go against the static inlines of
// mlx5dv.h, compiled by gcc against the pinned headers of rdma-core 44 and 65
// (internal/wqetest): same input buffer, same arguments, same bytes and
// results. On amd64 the SSE3 versions (mlx5dv_x86_set_ctrl_seg,
// mlx5dv_x86_set_data_seg) are compared too.

func at[T any](buf []byte) *T { return (*T)(unsafe.Pointer(&buf[0])) }

// devxPrep keeps a 32-bit field within one word of the segment half of the
// buffer (C's shift is undefined otherwise; Go panics).
func devxPrep(_ []byte, a []uint64) {
	a[1] %= wqetest.In * 8
	a[2] = 1 + a[2]%(32-a[1]%32)
}

var wqeOps = []wqetest.Op{
	{Name: "set_ctrl_seg", C: "mlx5dv_set_ctrl_seg((void *)b, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetCtrlSeg(at[WqeCtrlSeg](buf), uint16(a[0]), uint8(a[1]), uint8(a[2]), uint32(a[3]), uint8(a[4]), uint8(a[5]), uint8(a[6]), uint32(a[7]))
			return 0
		}},
	{Name: "x86_set_ctrl_seg", Guard: "defined(__SSE3__)",
		C: "mlx5dv_x86_set_ctrl_seg((void *)b, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);",
		Go: func(buf []byte, a []uint64) uint64 {
			// The same bytes, and dci_stream_channel_id zeroed.
			s := at[WqeCtrlSeg](buf)
			SetCtrlSeg(s, uint16(a[0]), uint8(a[1]), uint8(a[2]), uint32(a[3]), uint8(a[4]), uint8(a[5]), uint8(a[6]), uint32(a[7]))
			s.DciStreamChannelID = [2]byte{}
			return 0
		}},
	{Name: "set_data_seg", C: "mlx5dv_set_data_seg((void *)b, a[0], a[1], a[2]);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetDataSeg(at[WqeDataSeg](buf), uint32(a[0]), uint32(a[1]), a[2])
			return 0
		}},
	{Name: "x86_set_data_seg", Guard: "defined(__SSE3__)", C: "mlx5dv_x86_set_data_seg((void *)b, a[0], a[1], a[2]);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetDataSeg(at[WqeDataSeg](buf), uint32(a[0]), uint32(a[1]), a[2])
			return 0
		}},
	{Name: "set_dgram_seg",
		C: "mlx5dv_set_dgram_seg((void *)b, a[0], a[1], a[2], a[3], a[4], a[5], b + 256, a[6], a[7], a[8], b + 262);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetDgramSeg(at[WqeDatagramSeg](buf), a[0], uint32(a[1]), uint8(a[2]), uint8(a[3]), uint8(a[4]), uint16(a[5]),
				[6]byte(buf[wqetest.In:]), uint8(a[6]), uint8(a[7]), uint32(a[8]), [16]byte(buf[wqetest.In+6:]))
			return 0
		}},
	{Name: "set_eth_seg", C: "mlx5dv_set_eth_seg((void *)b, a[0], a[1], a[2], b + 256);",
		// Headers from offset 14 up to the end of the segment half.
		Prep: func(_ []byte, a []uint64) { a[2] %= wqetest.In - 14 + 1 },
		Go: func(buf []byte, a []uint64) uint64 {
			SetEthSeg(at[WqeEthSeg](buf), uint8(a[0]), uint16(a[1]), buf[wqetest.In:wqetest.In+a[2]])
			return 0
		}},
	{Name: "get_cqe_owner", C: "r = mlx5dv_get_cqe_owner((void *)b);",
		Go: func(buf []byte, _ []uint64) uint64 { return uint64(GetCQEOwner(at[Cqe64](buf))) }},
	{Name: "set_cqe_owner", C: "mlx5dv_set_cqe_owner((void *)b, a[0]);",
		Go: func(buf []byte, a []uint64) uint64 { SetCQEOwner(at[Cqe64](buf), uint8(a[0])); return 0 }},
	{Name: "get_cqe_se", C: "r = mlx5dv_get_cqe_se((void *)b);",
		Go: func(buf []byte, _ []uint64) uint64 { return uint64(GetCQESe(at[Cqe64](buf))) }},
	{Name: "get_cqe_format", C: "r = mlx5dv_get_cqe_format((void *)b);",
		Go: func(buf []byte, _ []uint64) uint64 { return uint64(GetCQEFormat(at[Cqe64](buf))) }},
	{Name: "get_cqe_opcode", C: "r = mlx5dv_get_cqe_opcode((void *)b);",
		Go: func(buf []byte, _ []uint64) uint64 { return uint64(GetCQEOpcode(at[Cqe64](buf))) }},
	{Name: "ts_to_ns", C: "r = mlx5dv_ts_to_ns((void *)b, a[0]);",
		// A shift below 64: C leaves a wider one undefined.
		Prep: func(buf []byte, _ []uint64) { at[ClockInfo](buf).Shift %= 64 },
		Go:   func(buf []byte, a []uint64) uint64 { return TSToNS(at[ClockInfo](buf), a[0]) }},
	{Name: "devx_set", C: "_devx_set(b, a[0], a[1], a[2]);", Prep: devxPrep,
		Go: func(buf []byte, a []uint64) uint64 { DevxSet(buf, uint32(a[0]), uint(a[1]), uint(a[2])); return 0 }},
	{Name: "devx_get", C: "r = _devx_get(b, a[1], a[2]);", Prep: devxPrep,
		Go: func(buf []byte, a []uint64) uint64 { return uint64(DevxGet(buf, uint(a[1]), uint(a[2]))) }},
	{Name: "devx_set64", C: "_devx_set64(b, a[0], a[1]);",
		Prep: func(_ []byte, a []uint64) { a[1] %= wqetest.In * 8 },
		Go:   func(buf []byte, a []uint64) uint64 { DevxSet64(buf, a[0], uint(a[1])); return 0 }},
	{Name: "devx_get64", C: "r = _devx_get64(b, a[1]);",
		Prep: func(_ []byte, a []uint64) { a[1] %= wqetest.In * 8 },
		Go:   func(buf []byte, a []uint64) uint64 { return DevxGet64(buf, uint(a[1])) }},
}

var wqeC = &wqetest.Lazy{Includes: []string{"infiniband/mlx5dv.h"}, Ops: wqeOps}

// wqeCases are inputs every op runs on: typical values, zeros, all ones, and
// buffers of zeros, ones and a pattern, so that bytes a helper must keep are
// checked too.
func wqeCases() (bufs [][]byte, args [][]uint64) {
	pattern := make([]byte, wqetest.Size)
	ones := make([]byte, wqetest.Size)
	for i := range pattern {
		pattern[i], ones[i] = byte(i*37+11), 0xff
	}
	bufs = [][]byte{nil, ones, pattern}
	max := ^uint64(0)
	args = [][]uint64{
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{max, max, max, max, max, max, max, max, max, max},
		// pi, opcode (MLX5_OPCODE_SEND), opmod, qpn, fm_ce_se, ds, signature, imm
		{0x1234, 0x0a, 0x01, 0x00abcdef, 0x08, 3, 0x5a, 0xdeadbeef, 0x42, 0x10},
		{0x8001, 0x25, 0xff, 0xff000001, 0x80 | 0x20, 0xfe, 0xff, 0x01020304, 0, 1},
		// A 64-bit key, a DCT number with the extension bit, ...
		{0x0102030405060708, 0x00fedcba, 1, 0x3c, 0x81, 0xbeef, 0x40, 64, 0x12345678, 7},
		{0x10, 0x3f, 22, 60, 1, 0, 0, 0, 0, 0},
	}
	return bufs, args
}

func TestWQEHelpersMatchC(t *testing.T) {
	procs := wqeC.Procs(t)
	if runtime.GOARCH == "amd64" {
		for _, p := range procs {
			assert.True(t, p.Caps["x86_set_ctrl_seg"] && p.Caps["x86_set_data_seg"],
				"rdma-core %s: the SSE3 helpers were not compiled (-msse3)", p.Version)
		}
	}
	bufs, args := wqeCases()
	for _, op := range wqeOps {
		t.Run(op.Name, func(t *testing.T) {
			for _, b := range bufs {
				for _, a := range args {
					wqetest.Check(t, procs, op, b, a)
				}
			}
		})
	}
}

// The byte order, independently of C: every __be field is stored big-endian
// on any host.
func TestWQEHelpersBigEndian(t *testing.T) {
	buf := wqetest.Buffer()
	SetDataSeg(at[WqeDataSeg](buf), 0x11223344, 0x55667788, 0x0102030405060708)
	assert.Equal(t, []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 1, 2, 3, 4, 5, 6, 7, 8}, buf[:16])
	SetCtrlSeg(at[WqeCtrlSeg](buf), 0x0102, 0x03, 0x04, 0x050607, 0x08, 0x09, 0x0a, 0x0b0c0d0e)
	assert.Equal(t, uint32(0x04010203), binary.BigEndian.Uint32(buf[0:]))
	assert.Equal(t, uint32(0x05060709), binary.BigEndian.Uint32(buf[4:]))
	assert.Equal(t, byte(0x0a), buf[8])
	assert.Equal(t, byte(0x08), buf[11])
	assert.Equal(t, uint32(0x0b0c0d0e), binary.NativeEndian.Uint32(buf[12:]), "imm is stored as it is")
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

func TestDevxFieldOutsideOneWordPanics(t *testing.T) {
	buf := make([]byte, 8)
	for _, f := range []struct{ off, sz uint }{{0, 0}, {0, 33}, {30, 3}} {
		assert.True(t, panics(func() { DevxSet(buf, 1, f.off, f.sz) }), "DevxSet at %d, %d bits", f.off, f.sz)
		assert.True(t, panics(func() { DevxGet(buf, f.off, f.sz) }), "DevxGet at %d, %d bits", f.off, f.sz)
	}
	assert.True(t, panics(func() { DevxSet64(buf, 1, 64) }), "past the buffer")
}

// FuzzWQEHelpers runs a helper (op modulo their number) in C and in Go on an
// input buffer and arguments.
func FuzzWQEHelpers(f *testing.F) {
	bufs, args := wqeCases()
	for i := range wqeOps {
		for _, a := range args[2:] {
			f.Add(uint8(i), bufs[2][:64], a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9])
		}
	}
	f.Fuzz(func(t *testing.T, op uint8, in []byte, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 uint64) {
		if len(in) > wqetest.Size {
			in = in[:wqetest.Size]
		}
		wqetest.Check(t, wqeC.Procs(t), wqeOps[int(op)%len(wqeOps)], in, []uint64{a0, a1, a2, a3, a4, a5, a6, a7, a8, a9})
	})
}
