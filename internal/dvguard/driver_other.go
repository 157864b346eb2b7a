//go:build !linux

package dvguard

import (
	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/dl"
)

// Driver is the kernel's driver id of the RDMA device named name: on Linux only.
func Driver(name string) (ibv.RDMADriverID, error) { return 0, dl.ErrNotSupported }
