//go:build linux && cgo

package stubprovider_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/stubprovider"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestLayout checks stub.h's mirror of the libibverbs structures against
// the generated layout (itself proven against gcc and the pinned headers):
// every size, every member offset of the structures mirrored whole, and
// the data-path ops of struct ibv_context_ops; and its enum values against
// the generated constants.
func TestLayout(t *testing.T) {
	layout, enums := stubprovider.Layout()
	types := map[string]reflect.Type{
		"Context": reflect.TypeFor[ibv.Context](), "ContextOps": reflect.TypeFor[ibv.ContextOps](),
		"SGE": reflect.TypeFor[ibv.SGE](), "SendWR": reflect.TypeFor[ibv.SendWR](), "RecvWR": reflect.TypeFor[ibv.RecvWR](),
		"WC": reflect.TypeFor[ibv.WC](), "WCTMInfo": reflect.TypeFor[ibv.WCTMInfo](), "PollCQAttr": reflect.TypeFor[ibv.PollCQAttr](),
		"CQEx": reflect.TypeFor[ibv.CQEx](), "QP": reflect.TypeFor[ibv.QP](), "QPEx": reflect.TypeFor[ibv.QPEx](),
		"SRQ": reflect.TypeFor[ibv.SRQ](), "stub.WCEx": reflect.TypeFor[stubprovider.WCEx](),
	}
	partial := map[string]bool{"ContextOps": true} // the data-path ops only
	for name, typ := range types {
		size, ok := layout[name]
		require.True(t, ok, "%s: no size", name)
		assert.Equal(t, typ.Size(), size, "size of %s", name)
		if partial[name] {
			continue
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Name == "_" {
				continue
			}
			off, ok := layout[name+"."+f.Name]
			if assert.True(t, ok, "%s.%s is not mirrored", name, f.Name) {
				assert.Equal(t, f.Offset, off, "offset of %s.%s", name, f.Name)
			}
		}
	}
	for key, off := range layout {
		name, field, ok := strings.Cut(strings.TrimPrefix(key, "stub."), ".")
		if !ok {
			continue
		}
		if strings.HasPrefix(key, "stub.") {
			name = "stub." + name
		}
		f, ok := types[name].FieldByName(field)
		if assert.True(t, ok, "%s: no such Go field", key) {
			assert.Equal(t, f.Offset, off, "offset of %s", key)
		}
	}
	// The struct verbs_context the context lives in: ibv_context last, sz
	// just before it (NewContext writes both through the generated layout;
	// gvs_context_new places the ibv_context at the end of its bytes).
	vc := reflect.TypeFor[ibv.VerbsContext]()
	ctxF, _ := vc.FieldByName("Context")
	szF, _ := vc.FieldByName("Sz")
	assert.Equal(t, vc.Size(), ctxF.Offset+ctxF.Type.Size(), "struct ibv_context ends struct verbs_context")
	assert.Equal(t, ctxF.Offset, szF.Offset+szF.Type.Size(), "sz is just before the struct ibv_context")

	want := map[string]uint64{
		"WCStatusSuccess": uint64(ibv.WCStatusSuccess), "WCStatusLocLenErr": uint64(ibv.WCStatusLocLenErr),
		"WCStatusLocProtErr": uint64(ibv.WCStatusLocProtErr), "WCStatusWRFlushErr": uint64(ibv.WCStatusWRFlushErr),
		"WCStatusGeneralErr": uint64(ibv.WCStatusGeneralErr),
		"WCOpcodeSend":       uint64(ibv.WCOpcodeSend), "WCOpcodeRDMAWrite": uint64(ibv.WCOpcodeRDMAWrite),
		"WCOpcodeRDMARead": uint64(ibv.WCOpcodeRDMARead), "WCOpcodeRecv": uint64(ibv.WCOpcodeRecv),
		"WCOpcodeRecvRDMAWithImm": uint64(ibv.WCOpcodeRecvRDMAWithImm),
		"WCFlagsGRH":              uint64(ibv.WCFlagsGRH), "WCFlagsWithImm": uint64(ibv.WCFlagsWithImm),
		"WROpcodeRDMAWrite": uint64(ibv.WROpcodeRDMAWrite), "WROpcodeRDMAWriteWithImm": uint64(ibv.WROpcodeRDMAWriteWithImm),
		"WROpcodeSend": uint64(ibv.WROpcodeSend), "WROpcodeSendWithImm": uint64(ibv.WROpcodeSendWithImm),
		"WROpcodeRDMARead": uint64(ibv.WROpcodeRDMARead),
		"SendFlagsFence":   uint64(ibv.SendFlagsFence), "SendFlagsSignaled": uint64(ibv.SendFlagsSignaled),
		"SendFlagsSolicited": uint64(ibv.SendFlagsSolicited), "SendFlagsInline": uint64(ibv.SendFlagsInline),
		"CreateCQWCFlagsByteLen": uint64(ibv.CreateCQWCFlagsByteLen), "CreateCQWCFlagsImm": uint64(ibv.CreateCQWCFlagsImm),
		"CreateCQWCFlagsQPNum": uint64(ibv.CreateCQWCFlagsQPNum), "CreateCQWCFlagsSrcQP": uint64(ibv.CreateCQWCFlagsSrcQP),
		"CreateCQWCFlagsSLID": uint64(ibv.CreateCQWCFlagsSLID), "CreateCQWCFlagsSL": uint64(ibv.CreateCQWCFlagsSL),
		"CreateCQWCFlagsDLIDPathBits":        uint64(ibv.CreateCQWCFlagsDLIDPathBits),
		"CreateCQWCFlagsCompletionTimestamp": uint64(ibv.CreateCQWCFlagsCompletionTimestamp),
		"CreateCQWCFlagsCVLAN":               uint64(ibv.CreateCQWCFlagsCVLAN), "CreateCQWCFlagsFlowTag": uint64(ibv.CreateCQWCFlagsFlowTag),
		"CreateCQWCFlagsTMInfo":                       uint64(ibv.CreateCQWCFlagsTMInfo),
		"CreateCQWCFlagsCompletionTimestampWallclock": uint64(ibv.CreateCQWCFlagsCompletionTimestampWallclock),
		"QPTypeRC": uint64(ibv.QPTypeRC),
	}
	assert.Equal(t, want, enums)
}

// fixture is a context with a QP whose send and receive CQs are one.
type fixture struct {
	ctx *stubprovider.Context
	cq  *stubprovider.CQ
	qp  *stubprovider.QP
}

func newFixture(t *testing.T, cqCfg stubprovider.CQConfig, qpCfg stubprovider.QPConfig) *fixture {
	t.Helper()
	f := &fixture{ctx: stubprovider.NewContext()}
	f.cq = f.ctx.NewCQ(cqCfg)
	qpCfg.SendCQ, qpCfg.RecvCQ = f.cq, f.cq
	f.qp = f.ctx.NewQP(qpCfg)
	t.Cleanup(func() {
		f.qp.Free()
		f.cq.Free()
		f.ctx.Free()
	})
	return f
}

// wantWC is the completion the stub's device makes in ring slot i of a CQ
// of entries slots for the QP qpn, before the QP posted anything.
func wantWC(i, entries int, qpn uint32) ibv.WC {
	slot := i % entries
	wc := ibv.WC{QPNum: qpn}
	switch slot % 4 {
	case 0, 2: // a send, an RDMA write: the send queue's wr_id of the slot
		wc.WRID, wc.Opcode = 0x5000+uint64(slot), ibv.WCOpcodeSend
		if slot%4 == 2 {
			wc.Opcode = ibv.WCOpcodeRDMAWrite
		}
	case 1, 3: // a receive, one with immediate data
		wc.WRID, wc.Opcode, wc.ByteLen = 0x7000+uint64(slot), ibv.WCOpcodeRecv, uint32(64+slot%64)
		wc.SrcQP, wc.SL, wc.SLID, wc.DLIDPathBits = 0x0a0b0c, uint8(slot%16), uint16(0x100+slot%256), uint8(slot&0x7f)
		if slot%4 == 3 {
			wc.WCFlags = uint32(ibv.WCFlagsWithImm)
			*wc.ImmData() = hton32(uint32(0x1000 + slot))
		} else {
			wc.PKeyIndex = uint16(slot % 2)
		}
		if slot%8 == 1 {
			wc.WCFlags |= uint32(ibv.WCFlagsGRH)
		}
	}
	return wc
}

func hton32(v uint32) uint32 {
	var b [4]byte
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	return *(*uint32)(unsafe.Pointer(&b))
}

// TestPollCQ polls the stub through ibv's generated binding (ibv_poll_cq)
// past the ring's end several times: each completion as the device made
// it, none when it made none, the consumer record following.
func TestPollCQ(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 8}, stubprovider.QPConfig{MaxSend: 8, MaxRecv: 8})
	cq, qpn := f.cq.Raw(), f.qp.Raw().QPNum
	wcs := make([]ibv.WC, 5)
	n, err := cq.Poll(wcs)
	require.NoError(t, err)
	assert.Zero(t, n, "no completion before the device makes one")

	f.cq.SetReady(3)
	total := 0
	for round := range 10 {
		n, err := cq.Poll(wcs)
		require.NoError(t, err)
		require.Equal(t, 3, n, "round %d", round)
		for i := range n {
			assert.Equal(t, wantWC(total+i, 8, qpn), wcs[i], "round %d, completion %d", round, i)
		}
		total += n
	}
	assert.Equal(t, uint64(30), f.cq.Polled())
	assert.Equal(t, uint32(30), f.cq.ConsumerRecord())

	// Fewer asked than ready: the rest waits for the next poll, and the
	// device never overruns what is unpolled.
	f.cq.SetReady(8)
	n, err = cq.Poll(wcs[:2])
	require.NoError(t, err)
	require.Equal(t, 2, n)
	f.cq.SetReady(0)
	n, err = cq.Poll(wcs)
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	n, err = cq.Poll(wcs)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "8 made, 7 polled")
	assert.Equal(t, wantWC(total+7, 8, qpn), wcs[0])
}

// TestPollCQError: an error entry gives its status and vendor error.
func TestPollCQError(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 4}, stubprovider.QPConfig{})
	f.cq.SetError(1, 0x05, 0x1234)
	f.cq.SetReady(2)
	wcs := make([]ibv.WC, 2)
	n, err := f.cq.Raw().Poll(wcs)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	assert.Equal(t, ibv.WCStatusSuccess, wcs[0].Status)
	assert.Equal(t, ibv.WCStatusWRFlushErr, wcs[1].Status)
	assert.Equal(t, uint32(0x1234), wcs[1].VendorErr)
	assert.Equal(t, uint64(0x5001), wcs[1].WRID, "a requester's error: the send queue's wr_id")
}

// TestPostSend posts through ibv's generated binding (ibv_post_send): each
// work request becomes a WQE the device can read, its wr_id kept, the
// doorbell rung; a bad one is returned as bad_wr with EINVAL and stops the
// chain.
func TestPostSend(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 8}, stubprovider.QPConfig{MaxSend: 4, MaxSendSGE: 2, MaxInline: 64})
	qp := f.qp.Raw()
	wrs := stubprovider.SendChain(3, ibv.WROpcodeRDMAWrite, 0x77, 0x10000, 32, 0x99, 0x20000)
	defer stubprovider.Free(unsafe.Pointer(&wrs[0]))
	wrs[1].Opcode = ibv.WROpcodeSend
	*wrs[1].ImmData() = 0xdeadbeef
	for i := range wrs {
		wrs[i].WRID = 100 + uint64(i)
	}
	bad, err := qp.PostSend(&wrs[0])
	require.NoError(t, err)
	assert.Nil(t, bad)
	assert.Equal(t, uint64(3), f.qp.SendPosted())
	bb := 0
	for i := range wrs {
		w := f.qp.SendWQEAt(bb)
		assert.Equal(t, uint16(bb), w.Index)
		assert.Equal(t, qp.QPNum, w.QPN)
		assert.Equal(t, 100+uint64(i), f.qp.SendWRID(bb))
		assert.Equal(t, []ibv.SGE{{Addr: 0x10000 + 64*uint64(i), Length: 32, LKey: 0x77}}, w.SGEs, "WQE %d", i)
		assert.Equal(t, i == 2, w.Signaled)
		if i == 1 {
			assert.Equal(t, uint8(stubprovider.OpSend), w.Opcode)
			assert.Equal(t, 2, w.Segments)
			assert.Zero(t, w.Imm, "a plain send carries no immediate data")
		} else {
			assert.Equal(t, uint8(stubprovider.OpRDMAWrite), w.Opcode)
			assert.Equal(t, 3, w.Segments)
			assert.Equal(t, 0x20000+64*uint64(i), w.RAddr)
			assert.Equal(t, uint32(0x99), w.RKey)
		}
		bb++
	}
	assert.Equal(t, uint32(3), f.qp.SendDoorbell())
	assert.Equal(t, uint32(2<<8|stubprovider.OpRDMAWrite), uint32(hton32(uint32(f.qp.SendRegister()))), "the last WQE's first bytes")

	// Inline data is copied into the WQE.
	data := stubprovider.Alloc(40)
	defer stubprovider.Free(data)
	copy(unsafe.Slice((*byte)(data), 40), "inline data, forty bytes of it, exactly")
	inl := stubprovider.SendChain(1, ibv.WROpcodeSend, 0, uint64(uintptr(data)), 40, 0, 0)
	defer stubprovider.Free(unsafe.Pointer(&inl[0]))
	inl[0].SendFlags |= uint32(ibv.SendFlagsInline)
	_, err = qp.PostSend(&inl[0])
	require.NoError(t, err)
	assert.Equal(t, "inline data, forty bytes of it, exactly\x00", string(f.qp.SendWQEAt(3).Inline))

	// A work request of more SGEs than the QP takes.
	wrs[1].NumSGE = 3
	posted := f.qp.SendPosted()
	bad, err = qp.PostSend(&wrs[0])
	assert.True(t, errors.Is(err, unix.EINVAL), "%v", err)
	_ = bad // the checked binding returns no bad_wr with an error
	assert.Equal(t, posted+1, f.qp.SendPosted(), "the work request before the bad one is posted")
}

// TestPostRecv posts receives, on a QP and on an SRQ, through ibv's
// generated bindings: scatter lists as the device reads them, terminated
// when shorter than the slot; wr_ids kept; doorbell records.
func TestPostRecv(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 8}, stubprovider.QPConfig{MaxRecv: 4, MaxRecvSGE: 2})
	wrs := stubprovider.RecvChain(3, 0x55, 0x30000, 128)
	defer stubprovider.Free(unsafe.Pointer(&wrs[0]))
	for round := range 3 {
		for i := range wrs {
			wrs[i].WRID = uint64(10*round + i)
		}
		_, err := f.qp.Raw().PostRecv(&wrs[0])
		require.NoError(t, err)
	}
	assert.Equal(t, uint64(9), f.qp.RecvPosted())
	assert.Equal(t, uint32(9), f.qp.RecvDoorbell())
	for slot := 6; slot < 9; slot++ {
		assert.Equal(t, uint64(20+slot-6), f.qp.RecvWRID(slot))
		assert.Equal(t, []ibv.SGE{{Addr: 0x30000 + 128*uint64(slot-6), Length: 128, LKey: 0x55}}, f.qp.RecvWQE(slot))
	}

	srq := f.ctx.NewSRQ(4, 1)
	defer srq.Free()
	_, err := srq.Raw().PostRecv(&wrs[0])
	require.NoError(t, err)
	_, err = srq.Raw().PostRecv(&wrs[0])
	require.NoError(t, err)
	assert.Equal(t, uint64(6), srq.Posted())
	assert.Equal(t, uint32(6), srq.Doorbell())
	for k := range 6 { // the free list is walked in order, around the ring
		slot := k % srq.Slots()
		if k+srq.Slots() < 6 {
			continue // overwritten by a later post
		}
		assert.Equal(t, uint64(20+k%3), srq.WRID(slot), "slot %d", slot)
		assert.Equal(t, []ibv.SGE{{Addr: 0x30000 + 128*uint64(k%3), Length: 128, LKey: 0x55}}, srq.WQE(slot))
	}
}

// TestReqNotify arms the CQ (ibv_req_notify_cq): the arm record carries the
// consumer index and the solicited-only request.
func TestReqNotify(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 8}, stubprovider.QPConfig{})
	f.cq.SetReady(2)
	_, err := f.cq.Raw().Poll(make([]ibv.WC, 4))
	require.NoError(t, err)
	require.NoError(t, f.cq.Raw().ReqNotify(false))
	assert.Equal(t, uint32(2), f.cq.ArmRecord())
	require.NoError(t, f.cq.Raw().ReqNotify(true))
	assert.Equal(t, uint32(1<<24|2), f.cq.ArmRecord())
	assert.Equal(t, uint64(2), f.cq.Arms())
}

// stdTS are the fields of the extended CQs here: the standard ones and the
// completion time stamp.
const stdTS = ibv.CreateCQWCFlagsByteLen | ibv.CreateCQWCFlagsImm | ibv.CreateCQWCFlagsQPNum | ibv.CreateCQWCFlagsSrcQP |
	ibv.CreateCQWCFlagsSLID | ibv.CreateCQWCFlagsSL | ibv.CreateCQWCFlagsDLIDPathBits | ibv.CreateCQWCFlagsCompletionTimestamp

// TestCQEx polls an extended CQ through ibv's generated bindings
// (ibv_start_poll, the ibv_wc_read_* getters, ibv_next_poll,
// ibv_end_poll): the same completions poll_cq gives, the getters of fields
// the CQ was not created with absent.
func TestCQEx(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 8, Ex: true, WCFlags: stdTS}, stubprovider.QPConfig{MaxSend: 8, MaxRecv: 8})
	cq, qpn := f.cq.RawEx(), f.qp.Raw().QPNum
	var attr ibv.PollCQAttr
	err := cq.CallStartPoll(&attr)
	assert.True(t, errors.Is(err, unix.ENOENT), "an empty CQ: %v", err)

	f.cq.SetReady(5)
	require.NoError(t, cq.CallStartPoll(&attr))
	for i := 0; ; i++ {
		want := wantWC(i, 8, qpn)
		assert.Equal(t, want.WRID, cq.WRID)
		assert.Equal(t, want.Status, cq.Status)
		get := func(v uint32, err error) uint32 { require.NoError(t, err); return v }
		op, err := cq.WCReadOpcode()
		require.NoError(t, err)
		assert.Equal(t, want.Opcode, op)
		if want.Opcode&ibv.WCOpcodeRecv != 0 {
			assert.Equal(t, want.ByteLen, get(cq.WCReadByteLen()))
		}
		assert.Equal(t, want.QPNum, get(cq.WCReadQPNum()))
		flags, err := cq.WCReadWCFlags()
		require.NoError(t, err)
		assert.Equal(t, ibv.WCFlags(want.WCFlags), flags)
		if want.WCFlags&uint32(ibv.WCFlagsWithImm) != 0 {
			assert.Equal(t, *want.ImmData(), get(cq.WCReadImmData()))
		}
		if want.Opcode&ibv.WCOpcodeRecv != 0 {
			assert.Equal(t, want.SrcQP, get(cq.WCReadSrcQP()))
			assert.Equal(t, uint32(want.SLID), get(cq.WCReadSLID()))
			sl, err := cq.WCReadSL()
			require.NoError(t, err)
			assert.Equal(t, want.SL, sl)
			bits, err := cq.WCReadDLIDPathBits()
			require.NoError(t, err)
			assert.Equal(t, want.DLIDPathBits, bits)
		}
		ts, err := cq.WCReadCompletionTS()
		require.NoError(t, err)
		assert.Equal(t, uint64(1000000+i), ts)
		if err := cq.CallNextPoll(); err != nil {
			assert.True(t, errors.Is(err, unix.ENOENT), "%v", err)
			assert.Equal(t, 4, i, "five ready")
			break
		}
	}
	require.NoError(t, cq.CallEndPoll())
	assert.Equal(t, uint32(5), f.cq.ConsumerRecord())
	_, err = cq.WCReadCVLAN()
	var nilOp *ibv.NilOpError
	assert.ErrorAs(t, err, &nilOp, "no cvlan getter on a CQ created without IBV_WC_EX_WITH_CVLAN")
}

// TestQPEx posts RDMA writes with the extended API through ibv's generated
// bindings: the same WQEs as ibv_post_send builds.
func TestQPEx(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 8}, stubprovider.QPConfig{MaxSend: 8, Ex: true})
	qp := f.qp.RawEx()
	require.NoError(t, qp.Start())
	for i := range 3 {
		qp.WRID, qp.WRFlags = 40+uint64(i), 0
		if i == 2 {
			qp.WRFlags = uint32(ibv.SendFlagsSignaled)
		}
		require.NoError(t, qp.RDMAWrite(0x99, 0x20000+64*uint64(i)))
		require.NoError(t, qp.SetSGE(0x77, 0x10000+64*uint64(i), 64))
	}
	assert.Zero(t, f.qp.SendPosted(), "nothing posted before ibv_wr_complete")
	require.NoError(t, qp.Complete())
	assert.Equal(t, uint64(3), f.qp.SendPosted())
	for i := range 3 {
		w := f.qp.SendWQEAt(i)
		assert.Equal(t, uint8(stubprovider.OpRDMAWrite), w.Opcode)
		assert.Equal(t, 0x20000+64*uint64(i), w.RAddr)
		assert.Equal(t, []ibv.SGE{{Addr: 0x10000 + 64*uint64(i), Length: 64, LKey: 0x77}}, w.SGEs)
		assert.Equal(t, i == 2, w.Signaled)
		assert.Equal(t, 40+uint64(i), f.qp.SendWRID(i))
	}
	assert.Equal(t, uint32(3), f.qp.SendDoorbell())

	// Aborted: nothing posted, the next WQE where it was.
	require.NoError(t, qp.Start())
	require.NoError(t, qp.Send())
	require.NoError(t, qp.SetSGE(0x77, 0x10000, 8))
	require.NoError(t, qp.Abort())
	assert.Equal(t, 3, f.qp.SendHead())
	assert.Equal(t, uint64(3), f.qp.SendPosted())
}

// TestLoops runs each C loop: what it returns and what the stub then
// holds.
func TestLoops(t *testing.T) {
	f := newFixture(t, stubprovider.CQConfig{Entries: 64}, stubprovider.QPConfig{MaxSend: 16, MaxRecv: 16})
	wcs := (*ibv.WC)(stubprovider.Alloc(16 * unsafe.Sizeof(ibv.WC{})))
	defer stubprovider.Free(unsafe.Pointer(wcs))
	f.cq.SetReady(16)
	assert.Equal(t, int64(160), stubprovider.LoopPollCQ(f.cq, 16, wcs, 10))
	assert.Equal(t, wantWC(159, 64, f.qp.Raw().QPNum), unsafe.Slice(wcs, 16)[15])
	f.cq.SetReady(0)
	assert.Equal(t, int64(0), stubprovider.LoopPollCQ(f.cq, 16, wcs, 10))
	assert.Equal(t, int64(7), stubprovider.LoopReqNotifyCQ(f.cq, 7))
	assert.Equal(t, uint64(7), f.cq.Arms())

	swrs := stubprovider.SendChain(16, ibv.WROpcodeRDMAWrite, 1, 0x1000, 64, 2, 0x2000)
	defer stubprovider.Free(unsafe.Pointer(&swrs[0]))
	assert.Equal(t, int64(160), stubprovider.LoopPostSend(f.qp, swrs, 10))
	assert.Equal(t, uint64(160), f.qp.SendPosted())
	assert.Equal(t, uint64(159), f.qp.SendWRID(f.qp.SendHead()-1), "the last wr_id of the counter")

	rwrs := stubprovider.RecvChain(16, 1, 0x1000, 64)
	defer stubprovider.Free(unsafe.Pointer(&rwrs[0]))
	assert.Equal(t, int64(160), stubprovider.LoopPostRecv(f.qp, rwrs, 10))
	assert.Equal(t, uint64(160), f.qp.RecvPosted())
	srq := f.ctx.NewSRQ(16, 1)
	defer srq.Free()
	assert.Equal(t, int64(160), stubprovider.LoopPostSRQRecv(srq, rwrs, 10))
	assert.Equal(t, uint64(160), srq.Posted())

	g := newFixture(t, stubprovider.CQConfig{Entries: 64, Ex: true, WCFlags: stdTS}, stubprovider.QPConfig{MaxSend: 16, MaxRecv: 16, Ex: true})
	out := (*stubprovider.WCEx)(stubprovider.Alloc(16 * unsafe.Sizeof(stubprovider.WCEx{})))
	defer stubprovider.Free(unsafe.Pointer(out))
	g.cq.SetReady(16)
	assert.Equal(t, int64(160), stubprovider.LoopPollEx(g.cq, 16, out, 10))
	last, want := unsafe.Slice(out, 16)[15], wantWC(159, 64, g.qp.Raw().QPNum)
	assert.Equal(t, want.WRID, last.WRID)
	assert.Equal(t, uint32(want.Opcode), last.Opcode)
	assert.Equal(t, want.ByteLen, last.ByteLen)
	assert.Equal(t, uint64(1000000+159%64), last.CompletionTS)
	assert.Equal(t, int64(160), stubprovider.LoopWR(g.qp, 16, 3, 0x4000, 10))
	assert.Equal(t, uint64(160), g.qp.SendPosted())
	w := g.qp.SendWQEAt(g.qp.SendHead() - 1)
	assert.True(t, w.Signaled)
	assert.Equal(t, []ibv.SGE{{Addr: 0x4000 + 15*64, Length: 64, LKey: 3}}, w.SGEs)
}
