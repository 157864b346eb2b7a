//go:build rxe

package ibv

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// okOrUnsupported requires err to be nil or an error unix.EOPNOTSUPP matches: an op the
// provider left NULL (*NilOpError) or a struct member the installed release's struct does
// not have (*MissingError, naming it and the release it needs).
func okOrUnsupported(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	require.ErrorIs(t, err, unix.EOPNOTSUPP, what)
	var m *MissingError
	var n *NilOpError
	require.True(t, errors.As(err, &m) || errors.As(err, &n), "%s: %T: %v", what, err, err)
}

// TestEveryExtendedOp calls every extended-QP builder (between ibv_wr_start and
// ibv_wr_abort) and every extended-CQ getter (on a real completion) that rxe's objects
// have, on each root: each works, or fails with EOPNOTSUPP, and none crashes. On
// rdma-core 44 ibv_qp_ex has no wr_flush (from 45): the Go wrapper refuses it with a
// *MissingError instead of reading past the library's struct. Before rxetest.RxeExtended
// librxe makes no extended QP or CQ at all.
func TestEveryExtendedOp(t *testing.T) {
	env := rxetest.Guest(t)
	ctx := openDevice(t, env.Nodes[0].Dev)
	defer func() { require.NoError(t, ctx.CloseDevice()) }()
	pd, err := ctx.AllocPD()
	require.NoError(t, err)
	defer func() { require.NoError(t, pd.Dealloc()) }()

	wcFlags := CreateCQWCFlagsByteLen | CreateCQWCFlagsImm | CreateCQWCFlagsQPNum | CreateCQWCFlagsSrcQP |
		CreateCQWCFlagsSLID | CreateCQWCFlagsSL | CreateCQWCFlagsDLIDPathBits
	cqx, err := ctx.CreateCQEx(&CQInitAttrEx{CQE: 16, WCFlags: uint64(wcFlags)})
	if env.Release < rxetest.RxeExtended {
		require.ErrorIs(t, err, unix.EOPNOTSUPP, "rdma-core %s: librxe has no extended CQ", env.RdmaCore)
		return
	}
	require.NoError(t, err)
	cq := CQExToCQ(cqx)
	defer func() { require.NoError(t, cq.Destroy()) }()

	// The QP takes every send op the device accepts, one flag at a time.
	var ops QPCreateSendOpsFlags
	for bit := QPCreateSendOpsFlags(1); bit <= QPCreateSendOpsFlagsAtomicWrite; bit <<= 1 {
		qp, err := ctx.CreateQPEx(&QPInitAttrEx{SendCQ: cq, RecvCQ: cq, QPType: QPTypeRC, PD: pd,
			Cap:      QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 2, MaxRecvSGE: 1, MaxInlineData: 64},
			CompMask: uint32(QPInitAttrMaskPD | QPInitAttrMaskSendOpsFlags), SendOpsFlags: uint64(bit)})
		if err == nil {
			ops |= bit
			require.NoError(t, qp.Destroy())
		}
	}
	t.Logf("rdma-core %s: send ops %s", env.RdmaCore, ops)
	require.NotZero(t, ops&QPCreateSendOpsFlagsSend)
	qp, err := ctx.CreateQPEx(&QPInitAttrEx{SendCQ: cq, RecvCQ: cq, QPType: QPTypeRC, PD: pd,
		Cap:      QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 2, MaxRecvSGE: 1, MaxInlineData: 64},
		CompMask: uint32(QPInitAttrMaskPD | QPInitAttrMaskSendOpsFlags), SendOpsFlags: uint64(ops)})
	require.NoError(t, err)
	defer func() { require.NoError(t, qp.Destroy()) }()
	qpx, err := qp.ToQPEx()
	require.NoError(t, err)

	// Memory, an address handle and a memory window for the builders' arguments.
	mem, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer unix.Munmap(mem)
	mr, err := pd.RegMR(mem, AccessFlagsLocalWrite|AccessFlagsRemoteWrite|AccessFlagsRemoteRead|AccessFlagsMWBind)
	require.NoError(t, err)
	defer func() { require.NoError(t, mr.Dereg()) }()
	gid, err := ctx.QueryGID(1, env.GIDIndex)
	require.NoError(t, err)
	ah, err := pd.CreateAH(&AHAttr{IsGlobal: 1, PortNum: 1, GRH: GlobalRoute{DGID: gid, SGIDIndex: uint8(env.GIDIndex), HopLimit: 1}})
	require.NoError(t, err)
	defer func() { require.NoError(t, ah.Destroy()) }()
	var mw *MW
	if env.Release >= rxetest.RxeMW {
		mw, err = pd.AllocMW(MWType2)
		require.NoError(t, err)
		defer func() { require.NoError(t, mw.Dealloc()) }()
	}
	addr := uint64(uintptr(unsafe.Pointer(&mem[0])))
	sges := []SGE{{Addr: addr, Length: 8, LKey: mr.LKey}, {Addr: addr + 8, Length: 8, LKey: mr.LKey}}
	atomic := make([]byte, 8)
	builders := []struct {
		name string
		call func() error
	}{
		{"ibv_wr_send", qpx.Send},
		{"ibv_wr_send_imm", func() error { return qpx.SendImm(1) }},
		{"ibv_wr_send_inv", func() error { return qpx.SendInv(mr.RKey) }},
		{"ibv_wr_send_tso", func() error { return qpx.SendTSO(make([]byte, 16), 1024) }},
		{"ibv_wr_rdma_write", func() error { return qpx.RDMAWrite(mr.RKey, addr) }},
		{"ibv_wr_rdma_write_imm", func() error { return qpx.RDMAWriteImm(mr.RKey, addr, 1) }},
		{"ibv_wr_rdma_read", func() error { return qpx.RDMARead(mr.RKey, addr) }},
		{"ibv_wr_atomic_cmp_swp", func() error { return qpx.AtomicCmpSwp(mr.RKey, addr, 1, 2) }},
		{"ibv_wr_atomic_fetch_add", func() error { return qpx.AtomicFetchAdd(mr.RKey, addr, 1) }},
		{"ibv_wr_atomic_write", func() error { return qpx.AtomicWrite(mr.RKey, addr, unsafe.Pointer(&atomic[0])) }},
		{"ibv_wr_flush", func() error { return qpx.Flush(mr.RKey, addr, 8, 0, 0) }},
		{"ibv_wr_local_inv", func() error { return qpx.LocalInv(mr.RKey) }},
		{"ibv_wr_bind_mw", func() error {
			if mw == nil {
				return nil
			}
			return qpx.BindMW(mw, mw.RKey, &MWBindInfo{MR: mr, Addr: addr, Length: 8, MWAccessFlags: uint32(AccessFlagsRemoteWrite)})
		}},
		{"ibv_wr_set_sge", func() error { return qpx.SetSGE(mr.LKey, addr, 8) }},
		{"ibv_wr_set_sge_list", func() error { return qpx.SetSGEList(sges) }},
		{"ibv_wr_set_inline_data", func() error { return qpx.SetInlineData(mem[:16]) }},
		{"ibv_wr_set_inline_data_list", func() error {
			return qpx.SetInlineDataList([]DataBuf{{Addr: unsafe.Pointer(&mem[0]), Length: 8}})
		}},
		{"ibv_wr_set_ud_addr", func() error { return qpx.SetUDAddr(ah, 1, 2) }},
		{"ibv_wr_set_xrc_srqn", func() error { return qpx.SetXRCSRQN(1) }},
	}
	for _, b := range builders {
		require.NoError(t, qpx.Start(), b.name)
		okOrUnsupported(t, b.name, b.call())
		require.NoError(t, qpx.Abort(), b.name)
	}
	// The member dated after the oldest release: refused on a release without it.
	require.NoError(t, qpx.Start())
	err = qpx.Flush(mr.RKey, addr, 8, 0, 0)
	require.NoError(t, qpx.Abort())
	if env.Release < 45 {
		var m *MissingError
		require.ErrorAs(t, err, &m, "rdma-core %s: ibv_qp_ex has no wr_flush", env.RdmaCore)
		assert.Equal(t, "ibv_qp_ex.wr_flush", m.Member)
		assert.Equal(t, "rdma-core 45", m.Since)
		assert.ErrorIs(t, err, unix.EOPNOTSUPP)
	}

	// A completion to read: a receive flushed when the QP moves to ERR.
	require.NoError(t, qp.Modify(&QPAttr{QPState: QPStateInit, PortNum: 1}, QPAttrMaskState|QPAttrMaskPKeyIndex|QPAttrMaskPort|QPAttrMaskAccessFlags))
	_, err = qp.PostRecv(&RecvWR{WRID: 42, SgList: nil, NumSGE: 0})
	require.NoError(t, err)
	require.NoError(t, qp.Modify(&QPAttr{QPState: QPStateErr}, QPAttrMaskState))
	for deadline := 0; ; deadline++ {
		err = cqx.CallStartPoll(&PollCQAttr{})
		if err == nil {
			break
		}
		require.ErrorIs(t, err, unix.ENOENT)
		require.Less(t, deadline, 1<<22, "no flushed completion")
	}
	assert.Equal(t, uint64(42), cqx.WRID)
	assert.Equal(t, WCStatusWRFlushErr, cqx.Status)
	getters := map[string]func() error{
		"ibv_wc_read_opcode":                  func() error { _, err := cqx.WCReadOpcode(); return err },
		"ibv_wc_read_vendor_err":              func() error { _, err := cqx.WCReadVendorErr(); return err },
		"ibv_wc_read_byte_len":                func() error { _, err := cqx.WCReadByteLen(); return err },
		"ibv_wc_read_imm_data":                func() error { _, err := cqx.WCReadImmData(); return err },
		"ibv_wc_read_invalidated_rkey":        func() error { _, err := cqx.WCReadInvalidatedRKey(); return err },
		"ibv_wc_read_qp_num":                  func() error { _, err := cqx.WCReadQPNum(); return err },
		"ibv_wc_read_src_qp":                  func() error { _, err := cqx.WCReadSrcQP(); return err },
		"ibv_wc_read_wc_flags":                func() error { _, err := cqx.WCReadWCFlags(); return err },
		"ibv_wc_read_slid":                    func() error { _, err := cqx.WCReadSLID(); return err },
		"ibv_wc_read_sl":                      func() error { _, err := cqx.WCReadSL(); return err },
		"ibv_wc_read_dlid_path_bits":          func() error { _, err := cqx.WCReadDLIDPathBits(); return err },
		"ibv_wc_read_completion_ts":           func() error { _, err := cqx.WCReadCompletionTS(); return err },
		"ibv_wc_read_completion_wallclock_ns": func() error { _, err := cqx.WCReadCompletionWallclockNS(); return err },
		"ibv_wc_read_cvlan":                   func() error { _, err := cqx.WCReadCVLAN(); return err },
		"ibv_wc_read_flow_tag":                func() error { _, err := cqx.WCReadFlowTag(); return err },
		"ibv_wc_read_tm_info":                 func() error { _, err := cqx.WCReadTMInfo(); return err },
	}
	for name, get := range getters {
		okOrUnsupported(t, name, get())
	}
	qpn, err := cqx.WCReadQPNum()
	require.NoError(t, err)
	assert.Equal(t, qp.QPNum, qpn, "the completion's QP")
	require.NoError(t, cqx.CallEndPoll())

}
