//go:build !rxe

package rdma

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDataPathInlined pins what the busy-polled data path relies on: Poll,
// PostSend and PostRecv are small enough for the compiler to inline, so
// that a caller's loop calls the function doing the work (pollRing,
// postSendRing, postRecvRing) itself. Under TCG each call level costs a
// return that the emulator looks up, each round trip again, after the
// kernel has run (ARCHITECTURE.md, "Busy polling"). The compiler's own
// report (-gcflags=-m) decides.
func TestDataPathInlined(t *testing.T) {
	out, err := exec.Command("go", "build", "-gcflags=-m", "-o", "/dev/null", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, fn := range []string{"(*CQ).Poll", "(*QP).PostSend", "(*QP).PostRecv"} {
		require.Contains(t, string(out), ": can inline "+fn+"\n", "the compiler no longer inlines %s", fn)
	}
}
