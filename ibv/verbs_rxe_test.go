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

// TestSendRecvAndWrite connects an RC QP on rxe_a with one on rxe_b
// (QPN and GID exchanged in-process), then passes a send/receive and an
// RDMA write across the veth link.
func TestSendRecvAndWrite(t *testing.T) {
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a := newEndpoint(t, na.Dev, env.GIDIndex)
	b := newEndpoint(t, nb.Dev, env.GIDIndex)
	a.connect(t, b.qp.QPNum, b.gid, env.GIDIndex)
	b.connect(t, a.qp.QPNum, a.gid, env.GIDIndex)

	// Send/receive: b posts a receive, a sends "hello rxe".
	msg := "hello rxe"
	rwr := b.recvWR()
	rwr.WRID, rwr.SgList, rwr.NumSGE = 7, b.sge(0, 0, 64), 1
	_, err := b.qp.PostRecv(rwr)
	require.NoError(t, err)

	copy(a.buf, msg)
	swr := a.sendWR()
	swr.WRID, swr.SgList, swr.NumSGE = 9, a.sge(0, 0, len(msg)), 1
	swr.Opcode, swr.SendFlags = WROpcodeSend, uint32(SendFlagsSignaled)
	_, err = a.qp.PostSend(swr)
	require.NoError(t, err)

	wc := a.pollOne(t)
	assert.Equal(t, uint64(9), wc.WRID)
	assert.Equal(t, WCOpcodeSend, wc.Opcode)

	b.waitEvent(t) // the armed CQ signals the receive through the channel
	wc = b.pollOne(t)
	assert.Equal(t, uint64(7), wc.WRID)
	assert.Equal(t, WCOpcodeRecv, wc.Opcode)
	assert.Equal(t, uint32(len(msg)), wc.ByteLen)
	assert.Equal(t, msg, string(b.buf[:len(msg)]))

	// RDMA write: a writes into b's buffer at offset 1024 with b's rkey;
	// b sees the bytes without any completion of its own.
	data := "written by RDMA"
	copy(a.buf[512:], data)
	swr = a.sendWR()
	swr.WRID, swr.SgList, swr.NumSGE = 11, a.sge(1, 512, len(data)), 1
	swr.Opcode, swr.SendFlags = WROpcodeRDMAWrite, uint32(SendFlagsSignaled)
	r := swr.WR.RDMA()
	r.RemoteAddr, r.RKey = uint64(uintptr(unsafe.Pointer(&b.buf[1024]))), b.mr.RKey
	_, err = a.qp.PostSend(swr)
	require.NoError(t, err)
	wc = a.pollOne(t)
	assert.Equal(t, uint64(11), wc.WRID)
	assert.Equal(t, WCOpcodeRDMAWrite, wc.Opcode)
	assert.Equal(t, data, string(b.buf[1024:1024+len(data)]))
}

// TestCQTooLarge provokes EINVAL: a CQ with more entries than max_cqe.
func TestCQTooLarge(t *testing.T) {
	env := rxetest.Guest(t)
	ctx := openDevice(t, env.Nodes[0].Dev)
	defer func() { require.NoError(t, ctx.CloseDevice()) }()
	attr, err := ctx.QueryDevice()
	require.NoError(t, err)
	require.Greater(t, attr.MaxCQE, int32(0))

	cq, err := ctx.CreateCQ(int(attr.MaxCQE)+1, nil, nil, 0)
	require.Error(t, err)
	assert.Nil(t, cq)
	assert.ErrorIs(t, err, unix.EINVAL)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "ibv_create_cq", e.Func)
	assert.Contains(t, err.Error(), "ibv_create_cq")
}
