//go:build rxe

package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// perftest runs one perftest tool: its server on node B, its client on node
// A towards B's address, with the GID index and args, and returns the
// client's output. perftest times with the TSC and needs to know its rate:
// the guest gets it from the host (tsc_early_khz, see make bench); without
// it the tool prints inf and perftestColumn fails.
func perftest(_ testing.TB, tool string, a, bn rxetest.Node, gid int, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	common := append([]string{"-x", fmt.Sprint(gid), "-F"}, args...)
	srv := exec.CommandContext(ctx, tool, append([]string{"-d", bn.Dev}, common...)...)
	var srvOut bytes.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		return "", err
	}
	defer srv.Wait()
	var out []byte
	var err error
	// The client retries until the server listens.
	for range 50 {
		out, err = exec.CommandContext(ctx, tool, append(append([]string{"-d", a.Dev}, common...), bn.IP)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "Couldn't connect") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		srv.Process.Kill()
		return "", fmt.Errorf("%s: %w\n%s\nserver:\n%s", tool, err, out, srvOut.String())
	}
	return string(out), nil
}
