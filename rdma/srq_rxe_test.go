//go:build rxe

package rdma

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// srqNode is one node of an SRQ test: a device, PD, Buffer and MR, one CQ,
// one SRQ and qps RC QPs taking their receives from it.
type srqNode struct {
	dev *Device
	pd  *PD
	buf *Buffer
	mr  *MR
	cq  *CQ
	srq *SRQ
	qps []*QP
}

func newSRQNode(t *testing.T, devName string, qps int, scfg SRQConfig) *srqNode {
	t.Helper()
	n := &srqNode{}
	var err error
	n.dev, n.pd = devPD(t, devName)
	n.buf, err = AllocBuffer(1 << 20)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.buf.Free()) })
	n.mr, err = n.pd.Register(n.buf.Bytes(), access)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.mr.Close()) })
	n.cq, err = n.dev.NewCQ(1024, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.cq.Close()) })
	n.srq, err = n.pd.NewSRQ(scfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.srq.Close()) })
	for range qps {
		qp, err := n.pd.NewQP(QPConfig{SendCQ: n.cq, RecvCQ: n.cq, MaxSend: 32, SRQ: n.srq})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, qp.Close()) })
		n.qps = append(n.qps, qp)
	}
	return n
}

// connectQPs connects RC QP qa on one node to qb on the other, both to RTS.
func connectQPs(t testing.TB, env *rxetest.Env, qa, qb *QP) {
	t.Helper()
	path := Path{GIDIndex: env.GIDIndex}
	ea, err := qa.Endpoint(path, 0x1234)
	require.NoError(t, err)
	eb, err := qb.Endpoint(path, 0x5678)
	require.NoError(t, err)
	require.NoError(t, qa.Connect(path, ea.PSN, eb))
	require.NoError(t, qb.Connect(path, eb.PSN, ea))
}

const (
	srqSlot    = 64      // bytes of one receive or send slot
	srqRecvOff = 0       // receive slots: wr_id i at srqRecvOff + i*srqSlot
	srqSendOff = 1 << 19 // send slots of QP q: srqSendOff + (q*window + k)*srqSlot
)

// srqMessage is message seq of QP q: its QP index, sequence number, a
// payload derived from both, and a CRC-32C of the rest.
func srqMessage(b []byte, q, seq int) {
	binary.LittleEndian.PutUint32(b[0:], uint32(q))
	binary.LittleEndian.PutUint32(b[4:], uint32(seq))
	for i := 8; i < srqSlot-4; i++ {
		b[i] = byte(q*31 + seq*7 + i)
	}
	binary.LittleEndian.PutUint32(b[srqSlot-4:], crc32.Checksum(b[:srqSlot-4], crc32.MakeTable(crc32.Castagnoli)))
}

// TestSRQ: four RC QPs on each node share one SRQ per node; 10 000
// messages go each way (2 500 per QP), each with its QP index, sequence
// number and checksum, and every one arrives once, intact, in order per
// QP, through receives posted to the SRQ alone (a QP's own PostRecv is
// refused).
func TestSRQ(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	const qps, perQP, window, srqDepth = 4, 2500, 8, 128
	a := newSRQNode(t, na.Dev, qps, SRQConfig{MaxWR: srqDepth})
	b := newSRQNode(t, nb.Dev, qps, SRQConfig{MaxWR: srqDepth})
	for i := range qps {
		connectQPs(t, env, a.qps[i], b.qps[i])
	}
	var pe *PostError
	require.ErrorAs(t, a.qps[0].PostRecv(RecvWork{SGEs: []ibv.SGE{a.mr.sge(t, 0, 64)}}), &pe, "a QP on an SRQ takes no receives of its own")
	require.ErrorIs(t, pe, unix.EINVAL)

	run := func(n, peer *srqNode) error {
		// Every receive slot posted to the SRQ, in batches.
		for i := 0; i < srqDepth; i += 16 {
			ws := make([]RecvWork, 16)
			for k := range ws {
				ws[k] = RecvWork{ID: uint64(i + k), SGEs: []ibv.SGE{n.mr.sge(t, srqRecvOff+(i+k)*srqSlot, srqSlot)}}
			}
			if err := n.srq.PostRecv(ws...); err != nil {
				return err
			}
		}
		qpIndex := map[uint32]int{}
		for i, qp := range n.qps {
			qpIndex[qp.Num()] = i
		}
		sent, inflight, nextSeq := make([]int, qps), make([]int, qps), make([]int, qps)
		received := 0
		wcs := make([]ibv.WC, 32)
		deadline := time.Now().Add(5 * time.Minute)
		for received < qps*perQP || sum(inflight) > 0 || sum(sent) < qps*perQP {
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out: sent %v, in flight %v, received %d", sent, inflight, received)
			}
			for q := range qps {
				for inflight[q] < window && sent[q] < perQP {
					slot := q*window + sent[q]%window
					off := srqSendOff + slot*srqSlot
					srqMessage(n.buf.Bytes()[off:off+srqSlot], q, sent[q])
					w := SendWork{ID: uint64(q)<<32 | uint64(sent[q]), Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled,
						SGEs: []ibv.SGE{n.mr.sge(t, off, srqSlot)}}
					if err := n.qps[q].PostSend(w); err != nil {
						return err
					}
					sent[q]++
					inflight[q]++
				}
			}
			k, err := n.cq.Poll(wcs)
			if err != nil {
				return err
			}
			for _, wc := range wcs[:k] {
				if wc.Status != ibv.WCStatusSuccess {
					return fmt.Errorf("completion %#x (%s): %s", wc.WRID, wc.Opcode, ibv.WCStatusStr(wc.Status))
				}
				if wc.Opcode == ibv.WCOpcodeSend {
					inflight[wc.WRID>>32]--
					continue
				}
				q, ok := qpIndex[wc.QPNum]
				if !ok || wc.Opcode != ibv.WCOpcodeRecv || wc.ByteLen != srqSlot {
					return fmt.Errorf("receive %d: QP %d, %s, %d bytes", wc.WRID, wc.QPNum, wc.Opcode, wc.ByteLen)
				}
				off := srqRecvOff + int(wc.WRID)*srqSlot
				got := n.buf.Bytes()[off : off+srqSlot]
				var want [srqSlot]byte
				srqMessage(want[:], q, nextSeq[q])
				if string(got) != string(want[:]) {
					return fmt.Errorf("QP %d: message %d came as QP %d's %d (or corrupted)", q, nextSeq[q], binary.LittleEndian.Uint32(got), binary.LittleEndian.Uint32(got[4:]))
				}
				nextSeq[q]++
				received++
				clear(got)
				if err := n.srq.PostRecv(RecvWork{ID: wc.WRID, SGEs: []ibv.SGE{n.mr.sge(t, off, srqSlot)}}); err != nil {
					return err
				}
			}
		}
		for q := range qps {
			if nextSeq[q] != perQP {
				return fmt.Errorf("QP %d received %d of %d", q, nextSeq[q], perQP)
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	var errA, errB error
	wg.Go(func() { errA = run(a, b) })
	wg.Go(func() { errB = run(b, a) })
	wg.Wait()
	require.NoError(t, errA, "node A")
	require.NoError(t, errB, "node B")
	require.ErrorAs(t, a.pd.Close(), new(*BusyError), "a PD with an SRQ does not close")
	require.ErrorAs(t, a.srq.Close(), new(*BusyError), "an SRQ with QPs does not close")
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// sge is s's MR's SGE at off, n bytes long.
func (m *MR) sge(t testing.TB, off, n int) ibv.SGE {
	t.Helper()
	sg, err := m.SGE(off, n)
	require.NoError(t, err)
	return sg
}

// TestSRQLimit: an armed SRQ limit raises IBV_EVENT_SRQ_LIMIT_REACHED,
// delivered by Device.AsyncEvent with the SRQ, once the SRQ holds fewer
// receives than the limit, and not before; the event disarms the limit
// (Query shows 0) and SetLimit re-arms it for a second event.
func TestSRQLimit(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	const depth, limit = 16, 6
	a := newSRQNode(t, na.Dev, 1, SRQConfig{MaxWR: depth})
	b := newSRQNode(t, nb.Dev, 1, SRQConfig{MaxWR: depth, Limit: limit})
	connectQPs(t, env, a.qps[0], b.qps[0])
	attr, err := b.srq.Query()
	require.NoError(t, err)
	assert.Equal(t, uint32(limit), attr.SRQLimit, "armed at creation")

	fillSRQ := func() {
		for i := range depth {
			require.NoError(t, b.srq.PostRecv(RecvWork{ID: uint64(i), SGEs: []ibv.SGE{b.mr.sge(t, i*srqSlot, srqSlot)}}))
		}
	}
	sendN := func(n int) {
		for i := range n {
			require.NoError(t, a.qps[0].PostSend(SendWork{ID: uint64(i), Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{a.mr.sge(t, srqSendOff, 8)}}))
		}
		awaitWCs(t, a.cq, n)
		awaitWCs(t, b.cq, n)
	}
	noEvent := func(what string) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		ev, err := b.dev.AsyncEvent(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded, "%s: got %v", what, ev)
	}
	limitEvent := func(what string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ev, err := b.dev.AsyncEvent(ctx)
		require.NoError(t, err, what)
		require.Equal(t, ibv.EventTypeSRQLimitReached, ev.Type, "%s: %v", what, ev)
		require.Same(t, b.srq, ev.SRQ, what)
		attr, err := b.srq.Query()
		require.NoError(t, err)
		assert.Zero(t, attr.SRQLimit, "%s: the event disarmed the limit", what)
	}
	for round := range 2 {
		what := fmt.Sprintf("round %d", round)
		fillSRQ()
		if round > 0 {
			require.NoError(t, b.srq.SetLimit(limit), "re-arm")
		}
		// depth-limit receives taken: limit left, not fewer than it.
		sendN(depth - limit)
		noEvent(what)
		sendN(1)
		limitEvent(what)
		sendN(limit - 1) // the SRQ is empty again, no event: disarmed
		noEvent(what + ", disarmed")
	}
	require.ErrorIs(t, b.srq.SetLimit(0), unix.EINVAL)
	require.ErrorIs(t, b.srq.SetLimit(depth+1000), unix.EINVAL)
}
