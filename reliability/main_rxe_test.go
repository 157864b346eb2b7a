//go:build rxe

package reliability

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdmacm"
)

// peerEnv, when set in the environment, makes the test binary the peer
// process of TestPeerKilled instead of running tests (see peer_rxe_test.go).
const peerEnv = "GOVERBS_RELIABILITY_PEER"

// Figures of the run, printed after the tests.
var (
	badInputs atomic.Int64 // bad inputs tried (each case of the bad-input tables)
	faults    atomic.Int64 // faults injected (links pulled down, peers killed)
	messages  atomic.Int64 // messages carried and verified
)

// TestMain initialises librdmacm before any test (it opens every device's
// context on first use and keeps them, which rxetest.NoLeaks must see as
// already there), or runs the peer process.
func TestMain(m *testing.M) {
	if os.Getenv(peerEnv) != "" {
		os.Exit(peerMain())
	}
	list, err := rdmacm.GetDevices()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rdma_get_devices:", err)
		os.Exit(1)
	}
	// The list holds a reference on every device (rdma_get_devices); freeing it
	// drops them, the contexts staying open.
	list.Close()
	code := m.Run()
	fmt.Printf("reliability: %d messages verified, %d faults injected, %d bad inputs tried\n",
		messages.Load(), faults.Load(), badInputs.Load())
	os.Exit(code)
}

// noLeaks is rxetest.NoLeaks, plus one line in the test's log when the test
// ends clean.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			t.Logf("leaks: 0 verbs objects, 0 goroutines")
		}
	})
	rxetest.NoLeaks(t)
}
