package rdma_test

import (
	"context"
	"fmt"
	"log"
	"net/netip"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// A client connects through rdmacm, sends one message from registered
// memory and waits for its completion on the netpoller. (It needs an RDMA
// device and a listener, so it is compiled, not run, by go test.)
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := rdma.Dial(ctx, netip.AddrPort{}, netip.MustParseAddrPort("192.0.2.2:7471"), rdma.ConnConfig{})
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

	n := copy(buf.Bytes(), "hello")
	sge, _ := mr.SGE(0, n)
	if err := conn.QP.PostSend(rdma.SendWork{ID: 1, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{sge}}); err != nil {
		log.Fatal(err)
	}
	wcs := make([]ibv.WC, 8)
	k, err := conn.CQ.Await(ctx, wcs) // parks on the netpoller, no thread held
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(k, ibv.WCStatusStr(wcs[0].Status))
}

// A server accepts connections, each in its own goroutine.
func ExampleListen() {
	l, err := rdma.Listen(netip.MustParseAddrPort("192.0.2.2:7471"), rdma.ConnConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	for {
		conn, err := l.Accept(context.Background())
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer conn.Close()
			_ = conn.WaitDisconnect(context.Background())
		}()
	}
}
