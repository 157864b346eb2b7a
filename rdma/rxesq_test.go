package rdma

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/ibv"
)

// TestRxeSQAt: a UD QP's sends are never written in Go (they need an
// address handle); nor are an RC or UC QP's when rxeRQOf found no send
// queue, or when what should describe it and its ring does not (the rxe
// tests in the guest check that a real QP's passes).
func TestRxeSQAt(t *testing.T) {
	p := allOnes(t)
	raw := (*ibv.QP)(p)
	caps := ibv.QPCap{MaxSendWR: 1, MaxSendSGE: 1}
	for _, typ := range []ibv.QPType{ibv.QPTypeUD, ibv.QPTypeRC, ibv.QPTypeUC} {
		require.Nil(t, rxeSQAt(rxeWQ{}, raw, typ, caps), "%v, no send queue", typ)
		require.Nil(t, rxeSQAt(rxeWQ{at: p, q: p, size: 4096}, raw, typ, caps), "%v, nonsense", typ)
	}
}

// TestRxeDirectOp: PostSend writes into an rxe send queue only the work
// requests SendWork describes in full; the rest (atomics, memory windows,
// invalidation, ...) go through the provider.
func TestRxeDirectOp(t *testing.T) {
	for op, direct := range map[ibv.WROpcode]bool{
		ibv.WROpcodeSend: true, ibv.WROpcodeSendWithImm: true, ibv.WROpcodeRDMAWrite: true, ibv.WROpcodeRDMAWriteWithImm: true, ibv.WROpcodeRDMARead: true,
		ibv.WROpcodeAtomicCmpAndSwp: false, ibv.WROpcodeAtomicFetchAndAdd: false, ibv.WROpcodeLocalInv: false, ibv.WROpcodeBindMW: false, ibv.WROpcodeSendWithInv: false,
	} {
		require.Equal(t, direct, rxeDirectOp(op), "%v", op)
	}
}
