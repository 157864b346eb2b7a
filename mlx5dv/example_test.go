//go:build linux

package mlx5dv_test

import (
	"fmt"
	"log"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/mlx5dv"
)

// The Example functions run on the rxe test bed (make test-rxe, on the host and sid roots)
// and check their output there; a test run without the rxe tag compiles them only
// (host_test.go).

// Query an mlx5 device's capabilities and open a DC-capable context: ask libmlx5 whether
// the device is its own, query the direct-verbs attributes with the Dynamically Connected
// (DC), ODP, LAG and DCI-stream capabilities asked for in CompMask, and create a DC
// initiator (DCI: an IBV_QPT_DRIVER QP with MLX5DV_QP_INIT_ATTR_MASK_DC), whose sends go to
// any DC target given per work request (QPExFromIBVQPEx, then (*QPEx).SetDCAddr). The
// device is the test bed's, an rxe one: mlx5dv_is_supported says no and the example stops
// there. On mlx5 hardware (GOVERBS_DEVICE=<the mlx5 device>) it prints the capabilities
// and the DCI's number.
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
	var dev *ibv.Device
	for _, d := range list.All() {
		if name, err := d.GetName(); err == nil && name == env.Nodes[0].Dev {
			dev = d
		}
	}
	if dev == nil {
		log.Fatalf("no device %s", env.Nodes[0].Dev)
	}

	ok, err := mlx5dv.IsSupported(dev) // a *MissingError where libmlx5.so.1 is not installed
	if err != nil {
		log.Fatal(err)
	}
	if !ok {
		fmt.Println("not an mlx5 device: mlx5dv_is_supported is false")
		return
	}
	ctx, err := mlx5dv.OpenDevice(dev, &mlx5dv.ContextAttr{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.CloseDevice()

	caps := mlx5dv.Context{CompMask: uint64(mlx5dv.ContextCompMaskDCODPCaps | mlx5dv.ContextCompMaskNumLagPorts |
		mlx5dv.ContextCompMaskDciStreams | mlx5dv.ContextCompMaskMaxDCRdAtom)}
	if err := mlx5dv.QueryDevice(ctx, &caps); err != nil {
		log.Fatal(err)
	}
	got := mlx5dv.ContextCompMask(caps.CompMask) // the library answers the bits it filled
	fmt.Printf("flags %v\n", mlx5dv.ContextFlags(caps.Flags))
	if got&mlx5dv.ContextCompMaskDCODPCaps != 0 {
		fmt.Printf("DC ODP %v\n", ibv.ODPTransportCapBits(caps.DCODPCaps))
	}
	if got&mlx5dv.ContextCompMaskNumLagPorts != 0 {
		fmt.Printf("LAG ports %d\n", caps.NumLagPorts)
	}
	if got&mlx5dv.ContextCompMaskDciStreams != 0 {
		fmt.Printf("DCI streams: 2^%d concurrent, 2^%d errored\n", caps.DciStreamsCaps.MaxLogNumConcurent, caps.DciStreamsCaps.MaxLogNumErrored)
	}
	if got&mlx5dv.ContextCompMaskMaxDCRdAtom != 0 {
		fmt.Printf("DC RDMA reads/atomics in flight: %d as responder, %d as initiator\n", caps.MaxDCRdAtom, caps.MaxDCInitRdAtom)
	}

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
	dci := &mlx5dv.QPInitAttr{CompMask: uint64(mlx5dv.QPInitAttrMaskDC), DCInitAttr: mlx5dv.DCInitAttr{DCType: mlx5dv.DCTypeDci}}
	qp, err := mlx5dv.CreateQP(ctx, &ibv.QPInitAttrEx{
		QPType: ibv.QPTypeDriver, SendCQ: cq, RecvCQ: cq, PD: pd,
		CompMask:     uint32(ibv.QPInitAttrMaskPD | ibv.QPInitAttrMaskSendOpsFlags),
		SendOpsFlags: uint64(ibv.QPCreateSendOpsFlagsSend | ibv.QPCreateSendOpsFlagsRDMAWrite),
		Cap:          ibv.QPCap{MaxSendWR: 16, MaxSendSGE: 1},
	}, dci)
	if err != nil {
		log.Fatal(err)
	}
	defer qp.Destroy()
	fmt.Println("DCI", qp.QPNum)
	// Output: not an mlx5 device: mlx5dv_is_supported is false
}
