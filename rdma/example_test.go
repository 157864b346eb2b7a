//go:build linux

package rdma_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"slices"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// The Example functions run on the rxe test bed (make test-rxe, on every root) and check
// their output there; a test run without the rxe tag compiles them only (host_test.go).
// They run between the bed's two nodes, rxe_a and rxe_b, each a device and the IPv4
// address of its netdev; a program would take these from its flags.

// nodes returns the two nodes of the bed (in the own-device mode, GOVERBS_DEVICE's
// devices: one device is both nodes) and the index of their RoCE v2 IPv4 GID.
func nodes() (a, b rxetest.Node, gidIndex int) {
	env, err := rxetest.Bed()
	if err != nil {
		log.Fatal(err)
	}
	return env.Nodes[0], env.Nodes[len(env.Nodes)-1], env.GIDIndex
}

// A client connects to a server through rdmacm and sends one message from
// registered memory; the server receives it. Both wait for their completions
// on the netpoller, bounded by the context.
func Example() {
	a, b, _ := nodes()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// The server listens on node B's address (port 0: any free port).
	l, err := rdma.Listen(netip.AddrPortFrom(netip.MustParseAddr(b.IP), 0), rdma.ConnConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	received := make(chan string)
	go func() {
		conn, err := l.Accept(ctx)
		if err != nil {
			log.Fatal(err)
		}
		defer conn.Close()
		buf, err := rdma.AllocBuffer(4096) // outside the Go heap
		if err != nil {
			log.Fatal(err)
		}
		defer buf.Free()
		mr, err := conn.PD.Register(buf.Bytes(), ibv.AccessFlagsLocalWrite)
		if err != nil {
			log.Fatal(err)
		}
		defer mr.Close()
		sge, _ := mr.SGE(0, buf.Len())
		if err := conn.QP.PostRecv(rdma.RecvWork{ID: 1, SGEs: []ibv.SGE{sge}}); err != nil {
			log.Fatal(err)
		}
		received <- string(buf.Bytes()[:await(ctx, conn.CQ).ByteLen])
	}()

	// The client dials it from node A.
	laddr := netip.AddrPortFrom(netip.MustParseAddr(a.IP), 0)
	conn, err := rdma.Dial(ctx, laddr, netip.AddrPortFrom(netip.MustParseAddr(b.IP), l.Port()), rdma.ConnConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	buf, err := rdma.AllocBuffer(4096)
	if err != nil {
		log.Fatal(err)
	}
	defer buf.Free()
	mr, err := conn.PD.Register(buf.Bytes(), ibv.AccessFlagsLocalWrite)
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	sge, _ := mr.SGE(0, copy(buf.Bytes(), "hello"))
	if err := conn.QP.PostSend(rdma.SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{sge}}); err != nil {
		log.Fatal(err)
	}
	await(ctx, conn.CQ)
	fmt.Println("the server received:", <-received)
	// Output: the server received: hello
}

// await waits for one completion on cq (parking the goroutine on the
// netpoller, no thread held) and fails unless its work request succeeded.
func await(ctx context.Context, cq *rdma.CQ) ibv.WC {
	wcs := make([]ibv.WC, 1)
	if _, err := cq.Await(ctx, wcs); err != nil {
		log.Fatal(err)
	}
	if wcs[0].Status != ibv.WCStatusSuccess {
		log.Fatalf("work request %d: %s", wcs[0].WRID, ibv.WCStatusStr(wcs[0].Status))
	}
	return wcs[0]
}

// Open a device by name and query its first port.
func ExampleOpen() {
	a, _, _ := nodes()
	dev, err := rdma.Open(a.Dev) // e.g. "rxe_a", "mlx5_0"
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	port, err := dev.QueryPort(1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ibv.PortStateStr(port.State))
	// Output: active
}

// Wait for completions with a deadline: Await parks the goroutine on the
// netpoller (no thread held) until the CQ's channel signals a completion or
// the context ends; on a CQ nothing completes on, that is the deadline.
func ExampleCQ_Await() {
	a, _, _ := nodes()
	dev, err := rdma.Open(a.Dev)
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ch, err := dev.NewCompChannel()
	if err != nil {
		log.Fatal(err)
	}
	defer ch.Close()
	cq, err := dev.NewCQ(16, ch) // armed on ch, ready for Await
	if err != nil {
		log.Fatal(err)
	}
	defer cq.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	wcs := make([]ibv.WC, 16)
	n, err := cq.Await(ctx, wcs)
	fmt.Println(n, errors.Is(err, context.DeadlineExceeded))
	// Output: 0 true
}

// List the host's RDMA devices and find those whose first port is up.
func ExampleDevices() {
	a, b, _ := nodes()
	devs, err := rdma.Devices()
	if err != nil {
		log.Fatal(err)
	}
	var active []string
	for _, d := range devs {
		dev, err := rdma.Open(d.Name)
		if err != nil {
			log.Fatal(err)
		}
		port, err := dev.QueryPort(1)
		dev.Close()
		if err != nil {
			log.Fatal(err)
		}
		if port.State == ibv.PortStateActive {
			active = append(active, d.Name)
		}
	}
	fmt.Println(slices.Contains(active, a.Dev), slices.Contains(active, b.Dev))
	// Output: true true
}

// side is one side of a connection made without rdmacm: a device, a PD, a
// buffer registered on it, a CQ and a QP.
type side struct {
	dev *rdma.Device
	pd  *rdma.PD
	buf *rdma.Buffer
	mr  *rdma.MR
	cq  *rdma.CQ
	qp  *rdma.QP
}

func openSide(name string, typ ibv.QPType, access ibv.AccessFlags) *side {
	e := &side{}
	var err error
	if e.dev, err = rdma.Open(name); err != nil {
		log.Fatal(err)
	}
	if e.pd, err = e.dev.AllocPD(); err != nil {
		log.Fatal(err)
	}
	if e.buf, err = rdma.AllocBuffer(4096); err != nil {
		log.Fatal(err)
	}
	if e.mr, err = e.pd.Register(e.buf.Bytes(), access); err != nil {
		log.Fatal(err)
	}
	if e.cq, err = e.dev.NewCQ(16, nil); err != nil {
		log.Fatal(err)
	}
	if e.qp, err = e.pd.NewQP(rdma.QPConfig{Type: typ, SendCQ: e.cq, RecvCQ: e.cq}); err != nil {
		log.Fatal(err)
	}
	return e
}

func (e *side) close() {
	for _, err := range []error{e.qp.Close(), e.cq.Close(), e.mr.Close(), e.buf.Free(), e.pd.Close(), e.dev.Close()} {
		if err != nil {
			log.Fatal(err)
		}
	}
}

// poll spins on cq until one completion arrives and fails unless its work
// request succeeded.
func poll(cq *rdma.CQ) ibv.WC {
	wcs := make([]ibv.WC, 1)
	for {
		n, err := cq.PollSpin(wcs, 1<<20)
		if err != nil {
			log.Fatal(err)
		}
		if n == 0 {
			continue
		}
		if wcs[0].Status != ibv.WCStatusSuccess {
			log.Fatalf("work request %d: %s", wcs[0].WRID, ibv.WCStatusStr(wcs[0].Status))
		}
		return wcs[0]
	}
}

// Two RC QPs, on nodes A and B, connected through their endpoints (which two
// processes exchange out of band: cmd/rcpingpong does it over TCP as
// ibv_rc_pingpong does), pass one message.
func ExampleQP_Connect() {
	na, nb, gid := nodes()
	a, b := openSide(na.Dev, ibv.QPTypeRC, ibv.AccessFlagsLocalWrite), openSide(nb.Dev, ibv.QPTypeRC, ibv.AccessFlagsLocalWrite)
	defer a.close()
	defer b.close()

	path := rdma.Path{GIDIndex: gid} // the RoCE v2, IPv4-mapped GID
	ea, err := a.qp.Endpoint(path, 0x1234)
	if err != nil {
		log.Fatal(err)
	}
	eb, err := b.qp.Endpoint(path, 0x5678)
	if err != nil {
		log.Fatal(err)
	}
	if err := a.qp.Connect(path, ea.PSN, eb); err != nil {
		log.Fatal(err)
	}
	if err := b.qp.Connect(path, eb.PSN, ea); err != nil {
		log.Fatal(err)
	}

	// B posts a receive for the whole buffer; A sends 5 bytes of its own.
	recv, _ := b.mr.SGE(0, b.buf.Len())
	if err := b.qp.PostRecv(rdma.RecvWork{ID: 1, SGEs: []ibv.SGE{recv}}); err != nil {
		log.Fatal(err)
	}
	send, _ := a.mr.SGE(0, copy(a.buf.Bytes(), "hello"))
	if err := a.qp.PostSend(rdma.SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{send}}); err != nil {
		log.Fatal(err)
	}
	poll(a.cq)
	wc := poll(b.cq)
	fmt.Printf("%s (%d bytes)\n", b.buf.Bytes()[:wc.ByteLen], wc.ByteLen)
	// Output: hello (5 bytes)
}

// An RDMA write puts 8 bytes into the peer's memory and an RDMA read fetches
// them back, neither involving the peer's CPU: the peer only grants remote
// access, on its QP (Path.Access) and its registration, and tells its address
// and rkey.
func ExampleQP_PostSend() {
	na, nb, gid := nodes()
	remote := ibv.AccessFlagsLocalWrite | ibv.AccessFlagsRemoteWrite | ibv.AccessFlagsRemoteRead
	a, b := openSide(na.Dev, ibv.QPTypeRC, ibv.AccessFlagsLocalWrite), openSide(nb.Dev, ibv.QPTypeRC, remote)
	defer a.close()
	defer b.close()
	ea, err := a.qp.Endpoint(rdma.Path{GIDIndex: gid}, 1)
	if err != nil {
		log.Fatal(err)
	}
	bPath := rdma.Path{GIDIndex: gid, Access: remote}
	eb, err := b.qp.Endpoint(bPath, 2)
	if err != nil {
		log.Fatal(err)
	}
	if err := a.qp.Connect(rdma.Path{GIDIndex: gid}, ea.PSN, eb); err != nil {
		log.Fatal(err)
	}
	if err := b.qp.Connect(bPath, eb.PSN, ea); err != nil {
		log.Fatal(err)
	}

	// A writes bytes 0-7 of its buffer to B's, then reads them back into its bytes 8-15.
	binary.LittleEndian.PutUint64(a.buf.Bytes(), 0x1122334455667788)
	src, _ := a.mr.SGE(0, 8)
	dst, _ := a.mr.SGE(8, 8)
	err = a.qp.PostSend(
		rdma.SendWork{ID: 1, Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{src}, RemoteAddr: b.mr.Addr(), RKey: b.mr.RKey()},
		// RC executes a QP's work requests in order, and a read after a write to the same memory sees it.
		rdma.SendWork{ID: 2, Op: ibv.WROpcodeRDMARead, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{dst}, RemoteAddr: b.mr.Addr(), RKey: b.mr.RKey()},
	)
	if err != nil {
		log.Fatal(err)
	}
	wc := poll(a.cq) // only the read is signaled: its completion ends both
	fmt.Printf("B holds %#x\n", binary.LittleEndian.Uint64(b.buf.Bytes()))
	fmt.Printf("A read back %#x (%s)\n", binary.LittleEndian.Uint64(a.buf.Bytes()[8:]), ibv.WCStatusStr(wc.Status))
	// Output:
	// B holds 0x1122334455667788
	// A read back 0x1122334455667788 (success)
}

// A UD QP sends a datagram to another through an address handle made from the
// peer's GID (on RoCE v2, its IPv4 address mapped), naming its QP number and
// Q_Key. The receive gets the datagram after the 40-byte GRH (rdma.ParseGRH
// reads it), and the sender's QP number in its completion.
func ExampleQP_ActivateUD() {
	na, nb, gid := nodes()
	a, b := openSide(na.Dev, ibv.QPTypeUD, ibv.AccessFlagsLocalWrite), openSide(nb.Dev, ibv.QPTypeUD, ibv.AccessFlagsLocalWrite)
	defer a.close()
	defer b.close()
	const qkey = 0x11111111
	for _, qp := range []*rdma.QP{a.qp, b.qp} {
		if err := qp.ActivateUD(1, qkey); err != nil { // INIT, RTR, RTS on port 1
			log.Fatal(err)
		}
	}
	toB, err := a.pd.NewAH(rdma.Route{GIDIndex: gid, DGID: ibv.GIDFromAddr(netip.MustParseAddr(nb.IP))})
	if err != nil {
		log.Fatal(err)
	}
	defer toB.Close()

	recv, _ := b.mr.SGE(0, b.buf.Len()) // room for the GRH and the datagram
	if err := b.qp.PostRecv(rdma.RecvWork{ID: 1, SGEs: []ibv.SGE{recv}}); err != nil {
		log.Fatal(err)
	}
	send, _ := a.mr.SGE(0, copy(a.buf.Bytes(), "hello"))
	err = a.qp.PostSend(rdma.SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{send},
		AH: toB, RemoteQPN: b.qp.Num(), RemoteQKey: qkey})
	if err != nil {
		log.Fatal(err)
	}
	poll(a.cq)
	wc := poll(b.cq)
	fmt.Printf("%s (%d bytes after the GRH)\n", b.buf.Bytes()[rdma.GRHLen:wc.ByteLen], wc.ByteLen-rdma.GRHLen)
	fmt.Println("from A's QP:", wc.SrcQP == a.qp.Num())
	// Output:
	// hello (5 bytes after the GRH)
	// from A's QP: true
}
