//go:build rxe

package rdma

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// tablePair is a pair of QPs of one type across the link for
// TestPostTable, with what a send to the peer needs.
type tablePair struct {
	a, b *side
	ah   *AH // UD: to b's QP
}

func newTablePair(t *testing.T, env *rxetest.Env, typ ibv.QPType) *tablePair {
	t.Helper()
	na, nb := env.Pair(t)
	cfg := QPConfig{Type: typ, MaxSend: 8, MaxRecv: 64, MaxInline: 64}
	// Memory the peer may also use atomically.
	acc := access | ibv.AccessFlagsRemoteAtomic
	p := &tablePair{a: newSideAccess(t, na.Dev, cfg, acc), b: newSideAccess(t, nb.Dev, cfg, acc)}
	if typ == ibv.QPTypeUD {
		require.NoError(t, p.a.qp.ActivateUD(1, udQKey))
		require.NoError(t, p.b.qp.ActivateUD(1, udQKey))
		gid, err := p.b.dev.GID(1, env.GIDIndex)
		require.NoError(t, err)
		p.ah = mustAH(t, p.a.pd, env, gid)
	} else {
		path := Path{GIDIndex: env.GIDIndex, Access: acc}
		ea, err := p.a.qp.Endpoint(path, 1)
		require.NoError(t, err)
		eb, err := p.b.qp.Endpoint(path, 2)
		require.NoError(t, err)
		require.NoError(t, p.a.qp.Connect(path, ea.PSN, eb))
		require.NoError(t, p.b.qp.Connect(path, eb.PSN, ea))
	}
	return p
}

// TestPostTable: every opcode there is (and some there are not), with
// every send flag and with fields an operation does not take, on RC, UC
// and UD QPs: each work request either is refused by PostSend before any
// C call (a *PostError of this package, nothing posted) or is posted and
// completes (with whatever status the device gives). None reaches the
// provider in a shape it refuses or crashes on, and none hangs.
func TestPostTable(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	opcodes := []ibv.WROpcode{ibv.WROpcodeRDMAWrite, ibv.WROpcodeRDMAWriteWithImm, ibv.WROpcodeSend, ibv.WROpcodeSendWithImm, ibv.WROpcodeRDMARead,
		ibv.WROpcodeAtomicCmpAndSwp, ibv.WROpcodeAtomicFetchAndAdd, ibv.WROpcodeLocalInv, ibv.WROpcodeBindMW, ibv.WROpcodeSendWithInv, ibv.WROpcodeTSO,
		ibv.WROpcodeDriver1, 12, 13, ibv.WROpcodeFlush, ibv.WROpcodeAtomicWrite, 200}
	flags := []ibv.SendFlags{ibv.SendFlagsSignaled, ibv.SendFlagsSignaled | ibv.SendFlagsInline, ibv.SendFlagsSignaled | ibv.SendFlagsFence | ibv.SendFlagsSolicited,
		ibv.SendFlagsSignaled | ibv.SendFlagsIPCsum, ibv.SendFlagsSignaled | 1<<10}
	for _, typ := range []ibv.QPType{ibv.QPTypeRC, ibv.QPTypeUC, ibv.QPTypeUD} {
		t.Run(typ.String(), func(t *testing.T) {
			var p *tablePair
			outcome := map[string]string{}
			used := 0 // receives posted on p.b since it was made
			posted, refused := 0, 0
			for _, op := range opcodes {
				for _, fl := range flags {
					for _, variant := range []string{"plain", "wild-sge", "short-sge", "misaligned", "no-ud-address", "ud-address"} {
						what := fmt.Sprintf("%s %s %s", op, fl, variant)
						if p == nil || used >= 60 {
							p = newTablePair(t, env, typ)
							used = 0
						}
						w := SendWork{ID: 7, Op: op, Flags: fl, SGEs: []ibv.SGE{p.a.sge(t, 64, 8)},
							RemoteAddr: p.b.mr.Addr() + 128, RKey: p.b.mr.RKey(), Imm: 0x01020304,
							InvalidateRKey: p.b.mr.RKey(), CompareAdd: 1, Swap: 2}
						if typ == ibv.QPTypeUD {
							w.AH, w.RemoteQPN, w.RemoteQKey = p.ah, p.b.qp.Num(), udQKey
						}
						switch variant {
						case "wild-sge":
							w.SGEs = []ibv.SGE{{Addr: 0x1000, Length: 8, LKey: p.a.mr.LKey()}}
						case "short-sge":
							w.SGEs[0].Length = 4
						case "misaligned":
							w.RemoteAddr += 4
						case "no-ud-address":
							w.AH, w.RemoteQPN, w.RemoteQKey = nil, 0, 0
						case "ud-address":
							if w.AH == nil {
								gid, err := p.b.dev.GID(1, env.GIDIndex)
								require.NoError(t, err)
								w.AH, w.RemoteQPN, w.RemoteQKey = mustAH(t, p.a.pd, env, gid), p.b.qp.Num(), udQKey
							}
						}
						require.NoError(t, p.b.qp.PostRecv(RecvWork{SGEs: []ibv.SGE{p.b.sge(t, 4096, 1024)}}), what)
						used++
						err := p.a.qp.PostSend(w)
						if err != nil {
							var pe *PostError
							var oe *OpError
							var ce *ibv.Error
							require.ErrorAs(t, err, &pe, what)
							require.Zero(t, pe.Posted, what)
							require.False(t, errors.As(err, &ce), "%s: reached the provider, which refused it: %v", what, err)
							require.ErrorAs(t, err, &oe, what)
							outcome[what] = "refused"
							refused++
							continue
						}
						posted++
						var wcs [1]ibv.WC
						deadline := time.Now().Add(30 * time.Second)
						for {
							n, err := p.a.cq.Poll(wcs[:])
							require.NoError(t, err, what)
							if n == 1 {
								break
							}
							require.True(t, time.Now().Before(deadline), "%s: posted, no completion in 30 s", what)
						}
						wc := wcs[0]
						require.Equal(t, uint64(7), wc.WRID, what)
						outcome[what] = "completed"
						peer := p.b.cq
						if wc.Status != ibv.WCStatusSuccess {
							// The QP is in the error state now: a new pair.
							outcome[what] = "completed in error"
							p = nil
						}
						if op == ibv.WROpcodeSendWithInv || op == ibv.WROpcodeLocalInv {
							// The rkey is invalidated (rxe, Linux 6.1, did so for
							// the peer's MR, and a second send-with-invalidate
							// naming it never completed, 30 s): a new pair.
							p = nil
						}
						// Whatever the peer took, drained.
						drained := make([]ibv.WC, 16)
						for {
							n, err := peer.Poll(drained)
							require.NoError(t, err)
							if n == 0 {
								break
							}
						}
					}
				}
			}
			t.Logf("%s: %d work requests posted and completed, %d refused before C", typ, posted, refused)
			// Some outcomes are certain.
			sig := ibv.SendFlagsSignaled
			require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeSend, sig)])
			require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeSendWithImm, sig|ibv.SendFlagsInline)])
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s wild-sge", ibv.WROpcodeSend, sig|ibv.SendFlagsInline)], "inline data from memory not known to be mapped")
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcode(200), sig)])
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeSend, sig|1<<10)])
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeBindMW, sig)])
			switch typ {
			case ibv.QPTypeRC:
				require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeRDMARead, sig)])
				require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeAtomicFetchAndAdd, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s short-sge", ibv.WROpcodeAtomicCmpAndSwp, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s misaligned", ibv.WROpcodeAtomicCmpAndSwp, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s ud-address", ibv.WROpcodeSend, sig)])
			case ibv.QPTypeUD:
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s no-ud-address", ibv.WROpcodeSend, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcodeRDMAWrite, sig)])
				require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s ud-address", ibv.WROpcodeSend, sig)])
			}
		})
	}
}
