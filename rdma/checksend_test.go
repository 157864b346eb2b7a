//go:build !rxe

package rdma

import (
	"testing"

	"github.com/goverbs/goverbs/ibv"
)

// TestCheckSendFastPath: checkSend's common-case shortcut refuses and
// passes exactly what its every check (checkSendAll) does, for every
// opcode, flag set and addressing on each QP type.
func TestCheckSendFastPath(t *testing.T) {
	sge := []ibv.SGE{{Addr: 0x10000, Length: 8, LKey: 0x77}}
	ah := &AH{}
	for _, typ := range []ibv.QPType{ibv.QPTypeRC, ibv.QPTypeUC, ibv.QPTypeUD} {
		q := &QP{typ: typ, caps: ibv.QPCap{MaxSendSGE: 1}, opBits: sendOpBits(typ)}
		for op := ibv.WROpcode(0); op < 40; op++ {
			for flags := ibv.SendFlags(0); flags < 1<<5; flags++ {
				for _, w := range []SendWork{
					{Op: op, Flags: flags, SGEs: sge},
					{Op: op, Flags: flags, SGEs: append(sge, sge...)},
					{Op: op, Flags: flags},
					{Op: op, Flags: flags, SGEs: sge, AH: ah},
					{Op: op, Flags: flags, SGEs: sge, RemoteQPN: 1},
					{Op: op, Flags: flags, SGEs: sge, RemoteQKey: 1},
					{Op: op, Flags: flags, SGEs: sge, RemoteAddr: 4},
				} {
					fast, all := q.checkSend("test", 0, &w), q.checkSendAll("test", 0, &w)
					if (fast == nil) != (all == nil) {
						t.Fatalf("%s QP, %+v: checkSend %v, checkSendAll %v", typ, w, fast, all)
					}
				}
			}
		}
	}
}
