//go:build rxe

package rdma

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	acc := access | ibv.AccessRemoteAtomic
	p := &tablePair{a: newSideAccess(t, na.Dev, cfg, acc), b: newSideAccess(t, nb.Dev, cfg, acc)}
	if typ == ibv.QptUD {
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
	opcodes := []ibv.WROpcode{ibv.WRRDMAWrite, ibv.WRRDMAWriteWithImm, ibv.WRSend, ibv.WRSendWithImm, ibv.WRRDMARead,
		ibv.WRAtomicCmpAndSwp, ibv.WRAtomicFetchAndAdd, ibv.WRLocalInv, ibv.WRBindMW, ibv.WRSendWithInv, ibv.WRTSO,
		ibv.WRDriver1, 12, 13, ibv.WRFlush, ibv.WRAtomicWrite, 200}
	flags := []ibv.SendFlags{ibv.SendSignaled, ibv.SendSignaled | ibv.SendInline, ibv.SendSignaled | ibv.SendFence | ibv.SendSolicited,
		ibv.SendSignaled | ibv.SendIPCsum, ibv.SendSignaled | 1<<10}
	for _, typ := range []ibv.QPType{ibv.QptRC, ibv.QptUC, ibv.QptUD} {
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
						if typ == ibv.QptUD {
							w.AH, w.RemoteQPN, w.RemoteQKey = p.ah, p.b.qp.Num(), udQKey
						}
						switch variant {
						case "wild-sge":
							w.SGEs = []ibv.SGE{{Addr: 0x1000, Length: 8, Lkey: p.a.mr.LKey()}}
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
						if wc.Status != ibv.WCSuccess {
							// The QP is in the error state now: a new pair.
							outcome[what] = "completed in error"
							p = nil
						}
						if op == ibv.WRSendWithInv || op == ibv.WRLocalInv {
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
			sig := ibv.SendSignaled
			require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WRSend, sig)])
			require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WRSendWithImm, sig|ibv.SendInline)])
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s wild-sge", ibv.WRSend, sig|ibv.SendInline)], "inline data from memory not known to be mapped")
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WROpcode(200), sig)])
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WRSend, sig|1<<10)])
			require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WRBindMW, sig)])
			switch typ {
			case ibv.QptRC:
				require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WRRDMARead, sig)])
				require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s plain", ibv.WRAtomicFetchAndAdd, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s short-sge", ibv.WRAtomicCmpAndSwp, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s misaligned", ibv.WRAtomicCmpAndSwp, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s ud-address", ibv.WRSend, sig)])
			case ibv.QptUD:
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s no-ud-address", ibv.WRSend, sig)])
				require.Equal(t, "refused", outcome[fmt.Sprintf("%s %s plain", ibv.WRRDMAWrite, sig)])
				require.Equal(t, "completed", outcome[fmt.Sprintf("%s %s ud-address", ibv.WRSend, sig)])
			}
		})
	}
}
