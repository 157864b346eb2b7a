//go:build !rxe

package mlx4dv

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/wqetest"
)

// The Go helpers of wqe.go against the static inlines of mlx4dv.h, compiled
// by gcc against the pinned headers of rdma-core 44 and 65
// (internal/wqetest): same input buffer, same arguments, same bytes and
// results.

func at[T any](buf []byte) *T { return (*T)(unsafe.Pointer(&buf[0])) }

var wqeOps = []wqetest.Op{
	{Name: "get_cqe_owner", C: "r = mlx4dv_get_cqe_owner((void *)b);",
		Go: func(buf []byte, _ []uint64) uint64 { return uint64(GetCQEOwner(at[CQE](buf))) }},
	{Name: "set_cqe_owner", C: "mlx4dv_set_cqe_owner((void *)b, a[0]);",
		Go: func(buf []byte, a []uint64) uint64 { SetCQEOwner(at[CQE](buf), uint8(a[0])); return 0 }},
	{Name: "get_cqe_opcode", C: "r = mlx4dv_get_cqe_opcode((void *)b);",
		Go: func(buf []byte, _ []uint64) uint64 { return uint64(GetCQEOpcode(at[CQE](buf))) }},
	{Name: "set_ctrl_seg", C: "mlx4dv_set_ctrl_seg((void *)b, a[0], a[1], a[2], a[3]);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetCtrlSeg(at[WqeCtrlSeg](buf), uint32(a[0]), uint8(a[1]), uint32(a[2]), uint32(a[3]))
			return 0
		}},
	{Name: "set_dgram_seg",
		C: "mlx4dv_set_dgram_seg((void *)b, a[0], a[1], a[2], a[3], a[4], a[5], a[6], b + 256, a[7], a[8], a[9], b + 272);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetDgramSeg(at[WqeDatagramSeg](buf), uint32(a[0]), uint8(a[1]), uint16(a[2]), uint8(a[3]), uint8(a[4]), uint8(a[5]),
				uint32(a[6]), [16]byte(buf[wqetest.In:]), uint32(a[7]), uint32(a[8]), uint16(a[9]), [6]byte(buf[wqetest.In+16:]))
			return 0
		}},
	{Name: "set_data_seg", C: "mlx4dv_set_data_seg((void *)b, a[0], a[1], a[2]);",
		Go: func(buf []byte, a []uint64) uint64 {
			SetDataSeg(at[WqeDataSeg](buf), uint32(a[0]), uint32(a[1]), a[2])
			return 0
		}},
}

var wqeC = &wqetest.Lazy{Includes: []string{"infiniband/mlx4dv.h"}, Ops: wqeOps}

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
		// owner_opcode (owner bit, MLX4_OPCODE_SEND), fence_size, srcrb_flags, imm
		{0x8000000a, 0x43, 0x0000000c, 0xdeadbeef, 0x1e, 0x80, 0x3c000000, 0x123456, 0x80010000, 0x0fff},
		// port_pd, g_slid, dlid, gid_index, stat_rate, hop_limit, sl_tclass_flowlabel, dqpn, qkey, vlan
		{0x01000042, 0x80, 0xbeef, 3, 7, 64, 0x30012345, 0x00abcdef, 0x11111111, 0xe064},
	}
	return bufs, args
}

func TestWQEHelpersMatchC(t *testing.T) {
	procs := wqeC.Procs(t)
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
	SetCtrlSeg(at[WqeCtrlSeg](buf), 0x0102030a, 0x45, 0x0607080c, 0x090a0b0c)
	assert.Equal(t, uint32(0x0102030a), binary.BigEndian.Uint32(buf[0:]))
	assert.Equal(t, byte(0x45), buf[7])
	assert.Equal(t, uint32(0x0607080c), binary.BigEndian.Uint32(buf[8:]))
	assert.Equal(t, uint32(0x090a0b0c), binary.NativeEndian.Uint32(buf[12:]), "imm is stored as it is")
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
