package rdma_test

import (
	"fmt"
	"log"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// side is one side of the example's connection.
type side struct {
	dev *rdma.Device
	pd  *rdma.PD
	buf *rdma.Buffer
	mr  *rdma.MR
	cq  *rdma.CQ
	qp  *rdma.QP
}

func openSide(name string) *side {
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
	if e.mr, err = e.pd.Register(e.buf.Bytes(), ibv.AccessFlagsLocalWrite); err != nil {
		log.Fatal(err)
	}
	if e.cq, err = e.dev.NewCQ(16, nil); err != nil {
		log.Fatal(err)
	}
	if e.qp, err = e.pd.NewQP(rdma.QPConfig{SendCQ: e.cq, RecvCQ: e.cq}); err != nil {
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

// Two RC QPs, on rxe_a and rxe_b, connected through their endpoints (which
// two processes exchange out of band: cmd/rcpingpong does it over TCP as
// ibv_rc_pingpong does), pass one message. It needs the devices, so it is
// compiled but not run by go test.
func ExampleQP_Connect() {
	a, b := openSide("rxe_a"), openSide("rxe_b")
	defer a.close()
	defer b.close()

	path := rdma.Path{GIDIndex: 1} // RoCEv2, IPv4-mapped GID
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
	recv, _ := b.mr.SGE(0, 4096)
	if err := b.qp.PostRecv(rdma.RecvWork{ID: 1, SGEs: []ibv.SGE{recv}}); err != nil {
		log.Fatal(err)
	}
	copy(a.buf.Bytes(), "hello")
	send, _ := a.mr.SGE(0, 5)
	if err := a.qp.PostSend(rdma.SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{send}}); err != nil {
		log.Fatal(err)
	}
	wcs := make([]ibv.WC, 4)
	for _, cq := range []*rdma.CQ{a.cq, b.cq} {
		n := 0
		for n == 0 && err == nil {
			n, err = cq.PollSpin(wcs, 1<<20)
		}
		if err != nil {
			log.Fatal(err)
		}
		if wcs[0].Status != ibv.WCStatusSuccess {
			log.Fatalf("work request %d: %s", wcs[0].WRID, ibv.WCStatusStr(wcs[0].Status))
		}
	}
	fmt.Printf("%s (%d bytes)\n", b.buf.Bytes()[:wcs[0].ByteLen], wcs[0].ByteLen)
}
