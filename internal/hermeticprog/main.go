// Command hermeticprog imports every runtime package of goverbs; gen/generate's
// TestBuildsWithoutRDMAHeaders builds it where no rdma-core headers are visible.
package main

import (
	"fmt"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/ionicdv"
	"github.com/goverbs/goverbs/rdma"
	"github.com/goverbs/goverbs/rdmacm"
	"github.com/goverbs/goverbs/rpma"
)

func main() {
	_, err := rdma.Devices()
	fmt.Println(err, ibv.QPTypeRC, rdmacm.PortSpaceTCP, rpma.ErrInval, ionicdv.Error{})
}
