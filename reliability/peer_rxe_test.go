//go:build rxe

package reliability

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// The peer process: the test binary run again with peerEnv set. It speaks
// one line at a time on stdin/stdout: it prints its QP's endpoint, reads
// the survivor's, connects, prints "ready" and then receives forever,
// reposting each receive, until it is killed.

func formatEndpoint(e rdma.Endpoint) string {
	return fmt.Sprintf("%d %d %d %s", e.QPN, e.PSN, e.LID, hex.EncodeToString(e.GID.Raw()[:]))
}

func parseEndpoint(s string) (rdma.Endpoint, error) {
	var e rdma.Endpoint
	var gid string
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d %d %d %s", &e.QPN, &e.PSN, &e.LID, &gid); err != nil {
		return e, fmt.Errorf("endpoint %q: %w", s, err)
	}
	b, err := hex.DecodeString(gid)
	if err != nil || len(b) != 16 {
		return e, fmt.Errorf("endpoint %q: bad GID", s)
	}
	copy(e.GID.Raw()[:], b)
	return e, nil
}

// peerMain runs the peer on node B; its status is 1 on any failure (which
// the survivor sees as a peer that never got ready).
func peerMain() int {
	if err := peer(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		return 1
	}
	return 0
}

func peer(in io.Reader, out io.Writer) error {
	env, ok := rxetest.FromEnv()
	if !ok || len(env.Nodes) < 2 {
		return fmt.Errorf("not in the two-node rxe guest")
	}
	dev, err := rdma.Open(env.Nodes[1].Dev)
	if err != nil {
		return err
	}
	pd, err := dev.AllocPD()
	if err != nil {
		return err
	}
	buf, err := rdma.AllocBuffer(faultDepth * msgSlot)
	if err != nil {
		return err
	}
	mr, err := pd.Register(buf.Bytes(), access)
	if err != nil {
		return err
	}
	cc, err := dev.NewCompChannel()
	if err != nil {
		return err
	}
	cq, err := dev.NewCQ(2*faultDepth, cc)
	if err != nil {
		return err
	}
	qp, err := pd.NewQP(rdma.QPConfig{SendCQ: cq, RecvCQ: cq, MaxSend: faultDepth, MaxRecv: faultDepth})
	if err != nil {
		return err
	}
	path := failFast
	path.GIDIndex = env.GIDIndex
	me, err := qp.Endpoint(path, 0x300)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, formatEndpoint(me))
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the survivor's endpoint: %w", err)
	}
	them, err := parseEndpoint(line)
	if err != nil {
		return err
	}
	if err := qp.Connect(path, me.PSN, them); err != nil {
		return err
	}
	r := &receiver{qp: qp, cq: cq, mr: mr, depth: faultDepth}
	for r.q.posted < faultDepth {
		if err := r.post(); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "ready")
	wcs := make([]ibv.WC, 16)
	for {
		n, err := cq.Await(context.Background(), wcs)
		if err != nil {
			return err
		}
		for i := range wcs[:n] {
			if wcs[i].Status != ibv.WCStatusSuccess {
				return fmt.Errorf("receive: %s", ibv.WCStatusStr(wcs[i].Status))
			}
			if err := r.post(); err != nil {
				return err
			}
		}
	}
}

// TestPeerKilled: the peer is another process on node B (this binary,
// re-executed); node A streams sends to it on an RC QP with a short retry
// budget and kills it (SIGKILL) after faultAfter successes. The kernel
// destroys the dead process's QP, so A's packets go unanswered: its sends
// fail with IBV_WC_RETRY_EXC_ERR, the rest are flushed, every posted send
// completes before the context's deadline (no wall time asserted), and
// every resource of the survivor closes cleanly.
func TestPeerKilled(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, _ := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := newNode(t, na.Dev, faultDepth*msgSlot, 2*faultDepth)
	qa := a.qp(t, faultDepth)

	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), peerEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	toPeer, err := cmd.StdinPipe()
	require.NoError(t, err)
	fromPeer, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := false
	t.Cleanup(func() {
		if !exited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewReader(fromPeer)
	line, err := lines.ReadString('\n')
	require.NoError(t, err, "peer's endpoint; peer stderr: %s", &stderr)
	them, err := parseEndpoint(line)
	require.NoError(t, err)

	path := failFast
	path.GIDIndex = env.GIDIndex
	me, err := qa.Endpoint(path, 0x400)
	require.NoError(t, err)
	require.NoError(t, qa.Connect(path, me.PSN, them))
	_, err = fmt.Fprintln(toPeer, formatEndpoint(me))
	require.NoError(t, err)
	line, err = lines.ReadString('\n')
	require.NoError(t, err, "peer's ready; peer stderr: %s", &stderr)
	require.Equal(t, "ready\n", line)

	s := &sender{qp: qa, cq: a.cq, mr: a.mr, depth: faultDepth}
	s.run(ctx, t, 0, faultAfter, func() {
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		faults.Add(1)
	})
	err = cmd.Wait()
	exited = true
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "peer stderr: %s", &stderr)
	assert.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal(), "peer: %v; stderr: %s", err, &stderr)

	require.Equal(t, faultAfter, s.faulted, "the sends failed before the peer was killed: %s", s.q)
	checkFailed(t, "A's sends (peer killed)", s.q)
	assert.Equal(t, 1, s.q.status[ibv.WCStatusRetryExcErr], "the first failure is a retry exhaustion")
	attr, _, err := qa.Query(0)
	require.NoError(t, err)
	assert.Equal(t, ibv.QPStateErr, attr.QPState)
}
