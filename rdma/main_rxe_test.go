//go:build rxe

package rdma

import (
	"os"
	"testing"

	"github.com/goverbs/goverbs/rdmacm"
)

// TestMain initialises librdmacm before any test: it opens every device's
// context on first use and keeps them for the process's life, which
// rxetest.NoLeaks must see as already there, not as a test's leak.
func TestMain(m *testing.M) {
	list, err := rdmacm.GetDevices()
	if err != nil {
		println("rdma_get_devices:", err.Error())
		os.Exit(1)
	}
	// The list holds a reference on every device (rdma_get_devices); freeing it
	// drops them, the contexts staying open.
	list.Close()
	os.Exit(m.Run())
}
