//go:build rxe

package rdmacm

import (
	"errors"
	"net/netip"
	"testing"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

const cmPort = "7471"

// page maps n anonymous bytes for everything C reads or keeps through a
// pointer: hints and their socket address, registered buffers.
func page(t *testing.T, n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, unix.Munmap(b)) })
	return b
}

// resolve is rdma_getaddrinfo of ip:cmPort for a TCP-like port space:
// passive for the server; for the client with its own source address src
// (hints in mmap'd memory, as they point to the address).
func resolve(t *testing.T, ip string, passive bool, src string) *Addrinfo {
	mem := page(t, 4096)
	hints := (*Addrinfo)(unsafe.Pointer(&mem[0]))
	hints.AiPortSpace = int32(PortSpaceTCP)
	hints.AiFlags = int32(RaiNumerichost)
	if passive {
		hints.AiFlags |= int32(RaiPassive)
	}
	if src != "" {
		sin := (*unix.RawSockaddrInet4)(unsafe.Pointer(&mem[1024]))
		sin.Family = unix.AF_INET
		sin.Addr = netip.MustParseAddr(src).As4()
		hints.AiSrcAddr, hints.AiSrcLen = (*Sockaddr)(unsafe.Pointer(sin)), uint32(unsafe.Sizeof(*sin))
	}
	res, err := Getaddrinfo(ip, cmPort, hints)
	require.NoError(t, err)
	t.Cleanup(res.Freeaddrinfo)
	return res
}

func qpAttr() ibv.QPInitAttr {
	return ibv.QPInitAttr{
		Cap:      ibv.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1},
		SQSigAll: 1,
	}
}

// TestEndpointSendRecv connects an rdma_create_ep endpoint on node A
// (bound to A's address) to a listening endpoint on node B across the
// link, and exchanges a message each way with rdma_post_send/recv and
// rdma_get_send_comp/recv_comp.
func TestEndpointSendRecv(t *testing.T) {
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)

	// Server on B.
	attr := qpAttr()
	listen, err := CreateEP(resolve(t, nb.IP, true, ""), nil, &attr)
	require.NoError(t, err)
	defer listen.DestroyEP()
	require.NoError(t, listen.Listen(1))
	srvBuf := page(t, 4096)
	served, rkey, done := make(chan error, 1), make(chan uint32, 1), make(chan struct{})
	go func() { served <- serve(listen, srvBuf, rkey, done) }()

	// Client on A.
	attr = qpAttr()
	id, err := CreateEP(resolve(t, nb.IP, false, na.IP), nil, &attr)
	require.NoError(t, err)
	defer id.DestroyEP()
	buf := page(t, 4096)
	mr, err := id.RegMsgs(buf)
	require.NoError(t, err)
	defer func() { require.NoError(t, DeregMR(mr)) }()
	require.NoError(t, id.PostRecv(2, buf[2048:2048+64], mr))
	require.NoError(t, id.Connect(nil))
	assert.Equal(t, "verbs on "+na.Dev, "verbs on "+devName(t, id))

	msg := "ping over rdmacm"
	copy(buf, msg)
	require.NoError(t, id.PostSend(1, buf[:len(msg)], mr, ibv.SendFlagsSignaled))
	wc, err := id.GetSendComp()
	require.NoError(t, err)
	assert.Equal(t, ibv.WCStatusSuccess, wc.Status)
	assert.Equal(t, uint64(1), wc.WRID)

	wc, err = id.GetRecvComp()
	require.NoError(t, err)
	assert.Equal(t, ibv.WCStatusSuccess, wc.Status)
	assert.Equal(t, "pong: "+msg, string(buf[2048:2048+wc.ByteLen]))

	// RDMA write into the server's buffer (registered by rdma_reg_write).
	data := "written through rdma_post_write"
	copy(buf[512:], data)
	require.NoError(t, id.PostWrite(5, buf[512:512+len(data)], mr, ibv.SendFlagsSignaled,
		uint64(uintptr(unsafe.Pointer(&srvBuf[3072]))), <-rkey))
	wc, err = id.GetSendComp()
	require.NoError(t, err)
	assert.Equal(t, ibv.WCStatusSuccess, wc.Status)
	assert.Equal(t, ibv.WCOpcodeRDMAWrite, wc.Opcode)
	assert.Equal(t, data, string(srvBuf[3072:3072+len(data)]))
	close(done)

	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not finish")
	}
	require.NoError(t, id.Disconnect())
}

// serve accepts one connection on listen, receives a message into buf
// and answers "pong: " and the message; it hands the rkey of buf to the
// client for an RDMA write and keeps the connection until done.
func serve(listen *CMID, buf []byte, rkey chan<- uint32, done <-chan struct{}) error {
	id, err := listen.GetRequest()
	if err != nil {
		return err
	}
	defer id.DestroyEP()
	mr, err := id.RegWrite(buf)
	if err != nil {
		return err
	}
	defer DeregMR(mr)
	rkey <- mr.RKey
	if err := id.PostRecv(3, buf[:1024], mr); err != nil {
		return err
	}
	if err := id.Accept(nil); err != nil {
		return err
	}
	wc, err := id.GetRecvComp()
	if err != nil {
		return err
	}
	if wc.Status != ibv.WCStatusSuccess {
		return errors.New("receive: " + ibv.WCStatusStr(wc.Status))
	}
	reply := append([]byte("pong: "), buf[:wc.ByteLen]...)
	copy(buf[1024:], reply)
	if err := id.PostSend(4, buf[1024:1024+len(reply)], mr, ibv.SendFlagsSignaled); err != nil {
		return err
	}
	if wc, err = id.GetSendComp(); err != nil {
		return err
	}
	if wc.Status != ibv.WCStatusSuccess {
		return errors.New("send: " + ibv.WCStatusStr(wc.Status))
	}
	<-done
	return nil
}

// devName is the name of the RDMA device id is bound to.
func devName(t *testing.T, id *CMID) string {
	require.NotNil(t, id.Verbs)
	name, err := id.Verbs.Device.GetName()
	require.NoError(t, err)
	return name
}

// TestCreateEPAddressInUse provokes a failure of rdma_create_ep (-1 and
// errno): a second passive endpoint on an address and port a first one
// is bound to fails with EADDRINUSE, an *Error naming rdma_create_ep.
func TestCreateEPAddressInUse(t *testing.T) {
	env := rxetest.Guest(t)
	na, _ := env.Pair(t)
	attr := qpAttr()
	first, err := CreateEP(resolve(t, na.IP, true, ""), nil, &attr)
	require.NoError(t, err)
	defer first.DestroyEP()
	require.NoError(t, first.Listen(1))
	_, err = CreateEP(resolve(t, na.IP, true, ""), nil, &attr)
	require.Error(t, err)
	assert.ErrorIs(t, err, unix.EADDRINUSE)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "rdma_create_ep", e.Func)
}

// TestNewerThanInstalled calls rdma_write_cm_event, new in rdma-core 60 (spec/since):
// where the installed librdmacm is 65 or newer it has it and passes it to
// the kernel (the guest's Linux 6.1 predates the ucma command and answers
// EINVAL, an *Error naming the function; a newer kernel returns the user
// event through the channel); on an older one (44, 56, 33) the call fails
// with a *MissingError wrapping EOPNOTSUPP that names the release.
func TestNewerThanInstalled(t *testing.T) {
	env := rxetest.Guest(t)
	ch, err := CreateEventChannel()
	require.NoError(t, err)
	defer ch.Destroy()
	id, err := ch.CreateID(nil, PortSpaceTCP)
	require.NoError(t, err)
	defer func() { require.NoError(t, id.DestroyID()) }()

	err = id.WriteCMEvent(CMEventTypeUser, 0, 42)
	if env.Release >= 60 {
		var m *MissingError
		require.False(t, errors.As(err, &m), "rdma-core %s has the symbol: %v", env.RdmaCore, err)
		if err != nil {
			var e *Error
			require.True(t, errors.As(err, &e), "%T: %v", err, err)
			assert.Equal(t, "rdma_write_cm_event", e.Func)
			assert.ErrorIs(t, err, unix.EINVAL)
			return
		}
		ev, err := ch.GetCMEvent()
		require.NoError(t, err)
		assert.Equal(t, CMEventTypeUser, ev.Event, ev.Event.String())
		assert.Equal(t, id, ev.ID)
		require.NoError(t, ev.Ack())
		return
	}
	require.ErrorIs(t, err, unix.EOPNOTSUPP)
	var m *MissingError
	require.True(t, errors.As(err, &m), "%T: %v", err, err)
	assert.Equal(t, "rdma_write_cm_event", m.Symbol)
	assert.Equal(t, "rdma-core 60", m.Since)
	assert.Contains(t, err.Error(), "needs rdma-core 60")
}
