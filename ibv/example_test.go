//go:build linux

package ibv_test

import (
	"fmt"
	"log"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// The Example functions run on the rxe test bed (make test-rxe, on every root) and check
// their output there; a test run without the rxe tag compiles them only (host_test.go).

// Open a device found in the device list, and query its first port and the
// GID that carries RoCE v2 over IPv4: the address of the device's netdev,
// IPv4-mapped.
func ExampleGetDeviceList() {
	env, err := rxetest.Bed() // the bed's devices (rxe_a, rxe_b) and their IPv4 addresses
	if err != nil {
		log.Fatal(err)
	}
	node := env.Nodes[0]

	list, err := ibv.GetDeviceList()
	if err != nil {
		log.Fatal(err)
	}
	defer list.Close()
	for _, d := range list.All() {
		name, err := d.GetName()
		if err != nil {
			log.Fatal(err)
		}
		if name != node.Dev {
			continue
		}
		ctx, err := d.Open()
		if err != nil {
			log.Fatal(err)
		}
		defer ctx.CloseDevice()
		port, err := ctx.QueryPort(1)
		if err != nil {
			log.Fatal(err)
		}
		gid, err := ctx.QueryGID(1, env.GIDIndex)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ibv.PortStateStr(port.State), gid.Addr().Unmap().String() == node.IP)
	}
	// Output: active true
}
