//go:build linux

package efadv_test

import (
	"errors"
	"fmt"
	"log"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/efadv"
	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// The Example functions run on the rxe test bed (make test-rxe, on the host and sid roots)
// and check their output there; a test run without the rxe tag compiles them only
// (host_test.go).

// Query an EFA device and create a Scalable Reliable Datagram (SRD) QP on it. The device is
// the test bed's, an rxe one: the query fails cleanly with EOPNOTSUPP (the library's "not
// an EFA device") and the example stops there. On EFA hardware (GOVERBS_DEVICE=<the EFA
// device>) it prints the device's queue limits and capabilities and the new QP's number.
func Example() {
	env, err := rxetest.Bed() // the bed's devices (rxe_a, rxe_b), or GOVERBS_DEVICE's
	if err != nil {
		log.Fatal(err)
	}
	list, err := ibv.GetDeviceList()
	if err != nil {
		log.Fatal(err)
	}
	defer list.Close()
	var ctx *ibv.Context
	for _, d := range list.All() {
		if name, err := d.GetName(); err == nil && name == env.Nodes[0].Dev {
			if ctx, err = d.Open(); err != nil {
				log.Fatal(err)
			}
		}
	}
	if ctx == nil {
		log.Fatalf("no device %s", env.Nodes[0].Dev)
	}
	defer ctx.CloseDevice()

	attr, err := efadv.QueryDevice(ctx)
	if errors.Is(err, unix.EOPNOTSUPP) {
		fmt.Println("not an EFA device:", err)
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("max send WRs %d, max receive WRs %d, max send SGEs %d, inline %d bytes, RDMA read %v\n",
		attr.MaxSQWR, attr.MaxRQWR, attr.MaxSQSGE, attr.InlineBufSize, attr.DeviceCaps&efadv.DeviceAttrCapsRDMARead != 0)

	pd, err := ctx.AllocPD()
	if err != nil {
		log.Fatal(err)
	}
	defer pd.Dealloc()
	cq, err := ctx.CreateCQ(64, nil, nil, 0)
	if err != nil {
		log.Fatal(err)
	}
	defer cq.Destroy()
	qp, err := efadv.CreateQPEx(ctx, &ibv.QPInitAttrEx{
		QPType: ibv.QPTypeDriver, SendCQ: cq, RecvCQ: cq, PD: pd, CompMask: uint32(ibv.QPInitAttrMaskPD),
		Cap: ibv.QPCap{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 1},
	}, &efadv.QPInitAttr{DriverQPType: efadv.QPDriverTypeSrd})
	if err != nil {
		log.Fatal(err)
	}
	defer qp.Destroy()
	fmt.Println("SRD QP", qp.QPNum)
	// Output: not an EFA device: efadv_query_device: operation not supported
}
