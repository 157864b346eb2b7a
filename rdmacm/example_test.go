//go:build linux

package rdmacm_test

import (
	"fmt"
	"log"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdmacm"
)

// The Example functions run on the rxe test bed (make test-rxe, on every root) and check
// their output there; a test run without the rxe tag compiles them only (host_test.go).
// They run between the bed's two nodes, rxe_a and rxe_b, each a device and the IPv4
// address of its netdev; a program would take these from its flags.

// nodes returns the two nodes of the bed (in the own-device mode, GOVERBS_DEVICE's
// devices; with one device, it is both nodes).
func nodes() (a, b rxetest.Node) {
	env, err := rxetest.Bed()
	if err != nil {
		log.Fatal(err)
	}
	return env.Nodes[0], env.Nodes[len(env.Nodes)-1]
}

// Translate node B's address and a port for a reliable connection with rdma_getaddrinfo:
// the result holds the destination address, and the QP type and port space to use
// (CreateEP takes it whole).
func ExampleGetaddrinfo() {
	_, b := nodes()
	hints := &rdmacm.Addrinfo{AiFlags: rdmacm.RaiNumerichost, AiPortSpace: int32(rdmacm.PortSpaceTCP)}
	res, err := rdmacm.Getaddrinfo(b.IP, "7471", hints)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Freeaddrinfo()
	fmt.Println("to node B:", res.AiDstAddr.String() == b.IP+":7471")
	fmt.Println(ibv.QPType(res.AiQPType), rdmacm.PortSpace(res.AiPortSpace))
	// Output:
	// to node B: true
	// IBV_QPT_RC RDMA_PS_TCP
}

// Resolve a destination address and the route to it on an asynchronous id: each step
// reports its end as an event on the id's channel. Address resolution binds the id to
// the RDMA device and port of the source address (node A's); no server need listen.
func ExampleCMID_ResolveAddr() {
	a, b := nodes()
	ch, err := rdmacm.CreateEventChannel()
	if err != nil {
		log.Fatal(err)
	}
	defer ch.Destroy()
	id, err := ch.CreateID(nil, rdmacm.PortSpaceTCP)
	if err != nil {
		log.Fatal(err)
	}
	defer id.DestroyID()

	// await waits for the next event on the channel and acknowledges it.
	await := func() rdmacm.CMEventType {
		ev, err := ch.GetCMEvent()
		if err != nil {
			log.Fatal(err)
		}
		defer ev.Ack()
		return ev.Event
	}

	src := rdmacm.NewSockaddr(netip.AddrPortFrom(netip.MustParseAddr(a.IP), 0))
	dst := rdmacm.NewSockaddr(netip.AddrPortFrom(netip.MustParseAddr(b.IP), 7471))
	if err := id.ResolveAddr(src, dst, 2*time.Second); err != nil {
		log.Fatal(err)
	}
	fmt.Println(await())
	name, err := id.Verbs.Device.GetName()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("on node A's device:", name == a.Dev, "port:", id.PortNum)
	fmt.Println("peer is node B:", id.GetPeerAddr().String() == b.IP+":7471")

	if err := id.ResolveRoute(2 * time.Second); err != nil {
		log.Fatal(err)
	}
	fmt.Println(await())
	// Output:
	// RDMA_CM_EVENT_ADDR_RESOLVED
	// on node A's device: true port: 1
	// peer is node B: true
	// RDMA_CM_EVENT_ROUTE_RESOLVED
}

// A synchronous endpoint (rdma_create_ep with no event channel: each call blocks until
// it is done) on node A connects to one listening on node B and sends it "hello" with
// the rdma_verbs.h helpers. The server accepts in a goroutine, as GetRequest and Accept
// block.
func ExampleCreateEP() {
	a, b := nodes()
	qp := ibv.QPInitAttr{Cap: ibv.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}}

	// The server: a passive endpoint on node B's address, port 0 (any free port).
	hints := &rdmacm.Addrinfo{AiFlags: rdmacm.RaiPassive | rdmacm.RaiNumerichost, AiPortSpace: int32(rdmacm.PortSpaceTCP)}
	res, err := rdmacm.Getaddrinfo(b.IP, "", hints)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Freeaddrinfo()
	listen, err := rdmacm.CreateEP(res, nil, &qp)
	if err != nil {
		log.Fatal(err)
	}
	defer listen.DestroyEP()
	if err := listen.Listen(1); err != nil {
		log.Fatal(err)
	}
	bound, _ := listen.GetLocalAddr().AddrPort() // the port listening chose
	var server sync.WaitGroup
	defer server.Wait()
	received := make(chan string, 1)
	server.Go(func() {
		id, err := listen.GetRequest() // the next connection request, with its QP
		if err != nil {
			log.Fatal(err)
		}
		defer id.DestroyEP()
		buf := mmap(4096) // registered memory lies outside the Go heap
		defer unix.Munmap(buf)
		mr, err := id.RegMsgs(buf)
		if err != nil {
			log.Fatal(err)
		}
		defer rdmacm.DeregMR(mr)
		if err := id.PostRecv(1, buf, mr); err != nil { // before accepting: the client may send at once
			log.Fatal(err)
		}
		if err := id.Accept(nil); err != nil {
			log.Fatal(err)
		}
		wc := check(id.GetRecvComp())
		received <- string(buf[:wc.ByteLen])
	})

	// The client, bound to node A's address: the hints' source address is read by C, so it
	// is pinned for the call.
	var pin runtime.Pinner
	defer pin.Unpin()
	src := rdmacm.NewSockaddr(netip.AddrPortFrom(netip.MustParseAddr(a.IP), 0))
	pin.Pin(src)
	hints = &rdmacm.Addrinfo{AiFlags: rdmacm.RaiNumerichost, AiPortSpace: int32(rdmacm.PortSpaceTCP),
		AiSrcAddr: src, AiSrcLen: unix.SizeofSockaddrInet4}
	res, err = rdmacm.Getaddrinfo(b.IP, strconv.Itoa(int(bound.Port())), hints)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Freeaddrinfo()
	id, err := rdmacm.CreateEP(res, nil, &qp)
	if err != nil {
		log.Fatal(err)
	}
	defer id.DestroyEP()
	if err := id.Connect(nil); err != nil {
		log.Fatal(err)
	}
	buf := mmap(4096)
	defer unix.Munmap(buf)
	mr, err := id.RegMsgs(buf)
	if err != nil {
		log.Fatal(err)
	}
	defer rdmacm.DeregMR(mr)
	n := copy(buf, "hello")
	if err := id.PostSend(2, buf[:n], mr, ibv.SendFlagsSignaled); err != nil {
		log.Fatal(err)
	}
	check(id.GetSendComp())
	fmt.Println("the server received:", <-received)
	// Output: the server received: hello
}

// check fails unless the completion's work request succeeded.
func check(wc ibv.WC, err error) ibv.WC {
	if err != nil {
		log.Fatal(err)
	}
	if wc.Status != ibv.WCStatusSuccess {
		log.Fatalf("work request %d: %s", wc.WRID, ibv.WCStatusStr(wc.Status))
	}
	return wc
}

// mmap maps n bytes of anonymous memory.
func mmap(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		log.Fatal(err)
	}
	return b
}
