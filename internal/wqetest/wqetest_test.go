//go:build !rxe

package wqetest

import (
	"fmt"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatal(args ...any)            { r.errs = append(r.errs, fmt.Sprint(args...)) }

// The comparison can fail: a Go op that stores other bytes, or returns
// another value, than its C statement is reported; an equal one is not.
func TestCheckCanFail(t *testing.T) {
	ops := []Op{
		{Name: "store", C: "b[3] = a[0]; b[4] ^= 0xff; r = a[1] + 1;",
			Go: func(buf []byte, a []uint64) uint64 { buf[3] = byte(a[0]); buf[4] ^= 0xff; return a[1] + 1 }},
		{Name: "wrong_byte", C: "b[3] = a[0];",
			Go: func(buf []byte, a []uint64) uint64 { buf[2] = byte(a[0]); return 0 }},
		{Name: "wrong_result", C: "r = a[1] + 1;",
			Go: func(buf []byte, a []uint64) uint64 { return a[1] }},
		{Name: "guarded", Guard: "0", C: "r = 1;", Go: func([]byte, []uint64) uint64 { return 2 }},
	}
	procs, err := Start(nil, ops)
	require.NoError(t, err)
	defer func() {
		for _, p := range procs {
			p.Close()
		}
	}()
	require.Len(t, procs, len(Versions))
	in := []byte{1, 2, 3, 4, 5}
	for _, op := range ops {
		r := &recorder{TB: t}
		Check(r, procs, op, in, []uint64{0x7a, 41})
		switch op.Name {
		case "store":
			assert.Empty(t, r.errs)
		case "guarded":
			assert.Empty(t, r.errs, "an op whose guard fails is not compared")
			assert.False(t, procs[0].Caps["guarded"])
		default:
			assert.Len(t, r.errs, len(procs), op.Name)
		}
	}
}
