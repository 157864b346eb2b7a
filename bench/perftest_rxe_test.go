//go:build rxe

package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strconv"
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
func perftest(b *testing.B, tool string, a, bn rxetest.Node, gid int, args ...string) (string, error) {
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

// perftestColumn reads the column named col of the result line under the
// header that names it. Header names may be two words ("BW peak[MiB/sec]",
// "99% percentile[usec]"): a word that neither starts with '#' nor ends
// with ']' belongs to the next one.
func perftestColumn(out, col string) (float64, error) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		var names []string
		pending := ""
		for _, w := range strings.Fields(l) {
			if !strings.HasPrefix(w, "#") && !strings.HasSuffix(w, "]") {
				pending += w + " "
				continue
			}
			names = append(names, pending+w)
			pending = ""
		}
		idx := slices.Index(names, col)
		if idx < 0 || i+1 >= len(lines) {
			continue
		}
		v := strings.Fields(lines[i+1])
		if idx >= len(v) {
			return 0, fmt.Errorf("perftest: no %s value in %q", col, lines[i+1])
		}
		f, err := strconv.ParseFloat(v[idx], 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
			return 0, fmt.Errorf("perftest: %s is %q (is the guest's TSC rate known? see make bench)", col, v[idx])
		}
		return f, nil
	}
	return 0, fmt.Errorf("perftest: no column %s in:\n%s", col, out)
}
