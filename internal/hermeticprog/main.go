// Command hermeticprog imports every runtime package of goverbs. gen/generate's tests build
// it where no rdma-core headers are visible, with CGO_ENABLED=0, and for other systems: it
// prints what opening the first device gives, and, in a build that cannot call C, whether
// that error matches ErrNotSupported.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/goverbs/goverbs/efadv"
	"github.com/goverbs/goverbs/hnsdv"
	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/ionicdv"
	"github.com/goverbs/goverbs/manadv"
	"github.com/goverbs/goverbs/mlx4dv"
	"github.com/goverbs/goverbs/mlx5dv"
	"github.com/goverbs/goverbs/rdma"
	"github.com/goverbs/goverbs/rdmacm"
	"github.com/goverbs/goverbs/rpma"
)

func main() {
	_, err := rdma.Devices()
	fmt.Printf("rdma.Devices: %v\n", err)
	for name, err := range map[string]error{"ibv": ibv.Load(), "rdmacm": rdmacm.Load(), "rpma": rpma.Load(), "ionicdv": ionicdv.Load(),
		"efadv": efadv.Load(), "manadv": manadv.Load(), "hnsdv": hnsdv.Load(), "mlx4dv": mlx4dv.Load(), "mlx5dv": mlx5dv.Load()} {
		fmt.Printf("%s.Load: not supported %v\n", name, errors.Is(err, ibv.ErrNotSupported))
	}
	if errors.Is(err, rdma.ErrNotSupported) {
		fmt.Println("ErrNotSupported")
		os.Exit(0)
	}
}
