//go:build rxe

package reliability

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// failFast is the reliability budget of the fault tests' QPs: an ACK
// timeout of 4.096 µs × 2^14 ≈ 67 ms and two retries, so that a dead path
// fails the work requests within a fraction of a second. (One retry of
// 17 ms fails healthy connections now and then on a busy TCG guest.)
var failFast = rdma.Path{Timeout: 14, RetryCnt: 2}

const (
	faultDepth = 32  // sends in flight in the fault tests
	faultAfter = 200 // successful sends before the fault
	recovered  = 500 // sends on the new connection after the fault
)

// linkDown pulls n's netdev down until the test ends (or linkUp).
func linkDown(t *testing.T, n rxetest.Node) {
	t.Helper()
	rxetest.SetLink(t, n.Netdev, "down")
	faults.Add(1)
	t.Cleanup(func() { rxetest.SetLink(t, n.Netdev, "up") })
}

// linkUp brings n's netdev up and waits until its rxe port is ACTIVE with
// its IPv4-mapped GID back at gidIndex.
func linkUp(ctx context.Context, t *testing.T, n rxetest.Node, gidIndex int) {
	t.Helper()
	rxetest.SetLink(t, n.Netdev, "up")
	port := filepath.Join("/sys/class/infiniband", n.Dev, "ports/1")
	for {
		state, _ := os.ReadFile(filepath.Join(port, "state"))
		gid, _ := os.ReadFile(filepath.Join(port, "gids", strconv.Itoa(gidIndex)))
		if strings.Contains(string(state), "ACTIVE") && strings.HasPrefix(string(gid), "0000:0000:0000:0000:0000:ffff:") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s not ACTIVE with its GID after link up: %v (state %q, GID %q)", n.Dev, ctx.Err(), state, gid)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestLinkDownQP: node A streams sends to node B on an RC QP with a short
// retry budget; after faultAfter successes a link goes down — veth-a (A's
// own: rxe finds no route and fails the send at once, IBV_WC_LOC_QP_OP_ERR)
// or veth-b (the far end: A's packets vanish and its retries run out,
// IBV_WC_RETRY_EXC_ERR). Every send posted completes — those acknowledged
// before with success, the first one the link took with that error, the
// rest flushed — and nothing hangs. B received, in order and intact, at
// least every send A saw succeed; its receives are flushed when its QP is
// moved to the error state. With the link up again, a new pair of QPs on
// the same CQs carries traffic.
func TestLinkDownQP(t *testing.T) {
	for _, c := range []struct {
		name  string
		node  int
		first ibv.WCStatus
	}{{"veth-a", 0, ibv.WCStatusLocQPOpErr}, {"veth-b", 1, ibv.WCStatusRetryExcErr}} {
		t.Run(c.name, func(t *testing.T) {
			noLeaks(t)
			env := rxetest.Guest(t)
			na, nb := env.Pair(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			a, b := newNode(t, na.Dev, faultDepth*msgSlot, 4*faultDepth), newNode(t, nb.Dev, faultDepth*msgSlot, 4*faultDepth)
			pulled := env.Nodes[c.node]

			// One connection: A sends (up to limit, or until a failure), B
			// receives until its QP is moved to ERR, flushing its receives.
			round := func(path rdma.Path, limit int, fault func()) (*sender, *receiver) {
				qa, qb := a.qp(t, faultDepth), b.qp(t, faultDepth)
				connect(t, env, path, qa, qb)
				s := &sender{qp: qa, cq: a.cq, mr: a.mr, depth: faultDepth, dev: na.Dev}
				r := &receiver{qp: qb, cq: b.cq, mr: b.mr, depth: faultDepth}
				transfer(ctx, t, s, r, limit, fault)
				return s, r
			}

			s, r := round(failFast, 0, func() { linkDown(t, pulled) })
			checkFailed(t, "A's sends ("+pulled.Netdev+" down)", s.q)
			assert.Equal(t, 1, s.q.status[c.first], "the first failure is %s", ibv.WCStatusStr(c.first))
			checkFailed(t, "B's receives (moved to ERR)", r.q)

			// Link up: a new connection (default budget) carries traffic
			// again, every send successful.
			linkUp(ctx, t, pulled, env.GIDIndex)
			s, r = round(rdma.Path{}, recovered, nil)
			t.Logf("after link up: A's sends: %s", s.q)
			assert.Equal(t, recovered, s.q.status[ibv.WCStatusSuccess], "after link up: %s", s.q)
			assert.Equal(t, recovered, r.delivered)
			checkFailed(t, "B's receives (after link up)", r.q)
		})
	}
}

// TestLinkDownConn is TestLinkDownQP (veth-a) through rdmacm: a
// connection made by rdma.Dial and Listener.Accept (retry count 2) loses
// its link mid-transfer; every send posted completes, the first failure
// followed by flushes; with the link up, a new Dial to the same listener
// carries traffic; every Conn and the Listener close cleanly.
func TestLinkDownConn(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := rdma.ConnConfig{MaxSend: faultDepth, MaxRecv: faultDepth, RetryCount: 2}
	laddr := netip.MustParseAddrPort(nb.IP + ":7480")
	l, err := rdma.Listen(laddr, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })

	// dial returns a connected pair, each with a registered buffer.
	dial := func() (cli, srv *rdma.Conn, cm, sm *rdma.MR) {
		accepted := make(chan *rdma.Conn, 1)
		go func() {
			c, err := l.Accept(ctx)
			assert.NoError(t, err)
			accepted <- c
		}()
		cli, err := rdma.Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), laddr, cfg)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, cli.Close()) })
		srv = <-accepted
		require.NotNil(t, srv)
		t.Cleanup(func() { require.NoError(t, srv.Close()) })
		reg := func(c *rdma.Conn) *rdma.MR {
			buf, err := rdma.AllocBuffer(faultDepth * msgSlot)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, buf.Free()) })
			mr, err := c.PD.Register(buf.Bytes(), access)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, mr.Close()) })
			return mr
		}
		return cli, srv, reg(cli), reg(srv)
	}

	cli, srv, cm, sm := dial()
	s := &sender{qp: cli.QP, cq: cli.CQ, mr: cm, depth: faultDepth, dev: na.Dev}
	r := &receiver{qp: srv.QP, cq: srv.CQ, mr: sm, depth: faultDepth}
	transfer(ctx, t, s, r, 0, func() { linkDown(t, na) })
	checkFailed(t, "client's sends (veth-a down)", s.q)
	assert.Equal(t, 1, s.q.status[ibv.WCStatusLocQPOpErr]+s.q.status[ibv.WCStatusRetryExcErr], "the first failure: %s", s.q)
	checkFailed(t, "server's receives (moved to ERR)", r.q)

	linkUp(ctx, t, na, env.GIDIndex)
	cli, srv, cm, sm = dial()
	s = &sender{qp: cli.QP, cq: cli.CQ, mr: cm, depth: faultDepth, dev: na.Dev}
	r = &receiver{qp: srv.QP, cq: srv.CQ, mr: sm, depth: faultDepth}
	transfer(ctx, t, s, r, recovered, nil)
	assert.Equal(t, recovered, s.q.status[ibv.WCStatusSuccess], "after link up: %s", s.q)
	assert.Equal(t, recovered, r.delivered)
	checkFailed(t, "server's receives (after link up)", r.q)
}
