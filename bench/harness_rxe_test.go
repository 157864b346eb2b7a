//go:build rxe

package bench

import (
	"slices"
	"syscall"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestHarness checks what the benchmarks stand on, so that make bench
// cannot silently measure nothing: the peer process answers a ping-pong
// with the payload size asked, with each way of waiting and after a switch
// from one to another (the paired one, in chunks of the rounds its
// calibration gives, through both its loops, ending in the C twin's, whose
// receive then gives the size), and perftest in this
// guest reports finite times, with -e and without (the guest knows its TSC
// rate).
func TestHarness(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	p, remote, err := startPeer(nb.Dev)
	require.NoError(t, err)
	n, ep, err := newNode(na.Dev, env.GIDIndex)
	defer n.close()
	require.NoError(t, err)
	require.NoError(t, p.send("%s", formatEP(ep)))
	require.NoError(t, n.connect(env.GIDIndex, remote))
	for i, wait := range []string{waitNetpoll, waitBlocking, waitSpin, waitPaired, waitNetpoll, waitPaired, waitSpin, waitPairedC, waitPairedGo, waitPairedBlocking, waitSpin, waitPairedNetpoll, waitBlocking, waitPairedNetpoll} {
		size, iters, chunk := 1000+i, 20, 0
		n.wait, err = parseWait(wait)
		require.NoError(t, err)
		send, recv := n.sendWork(size), n.recvWork()
		if pairedWait(wait) {
			chunk, err = pairCalibrate(n, p, size, send, recv)
			require.NoError(t, err)
			require.GreaterOrEqual(t, chunk, pairChunkMin)
			require.LessOrEqual(t, chunk, pairChunkMax)
			iters = 2*chunk - 1
		}
		require.NoError(t, p.send("pong %d %d %s %d", size, iters, wait, chunk))
		if wait == waitSpin || pairedWait(wait) {
			posts := make([]uint64, iters)
			if wait == waitSpin {
				require.NoError(t, n.spinPingPong(send, recv, iters, true, posts))
			} else {
				require.NoError(t, n.pairedPingPong(send, recv, iters, chunk, true, posts))
			}
			assert.True(t, slices.IsSorted(posts), "the rounds' start times: %v", posts)
			assert.NotZero(t, posts[iters-1], "%s: the last round was stamped", wait)
		} else {
			for range iters {
				require.NoError(t, n.send(send))
				require.NoError(t, n.awaitRecv(recv))
			}
		}
		line, err := p.line()
		require.NoError(t, err)
		assert.Equal(t, "done", line, wait)
		assert.Equal(t, uint32(size), ibvRecvLen(n), "%s: the peer answered with the size asked", wait)
	}
	require.NoError(t, p.stop())

	for _, events := range [][]string{{"-e"}, nil} {
		out, err := perftest(nil, "ib_send_lat", na, nb, env.GIDIndex, append(events, "-s", "64", "-n", "50")...)
		require.NoError(t, err, events)
		v, err := perftestColumn(out, "t_avg[usec]")
		require.NoError(t, err, events)
		assert.Positive(t, v, events)
	}
}

// TestCPingPongErrors: the C twin says which verb failed and wraps its
// errno: a send posted on a QP that is not connected (rxe's doorbell
// refuses it with EINVAL).
func TestCPingPongErrors(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, _ := env.Pair(t)
	n, _, err := newNode(na.Dev, env.GIDIndex)
	defer n.close()
	require.NoError(t, err)
	send, recv := n.sendWork(8), n.recvWork()
	c, err := newCPingPong(n.qp.Raw(), n.scq.Raw(), n.rcq.Raw(), n.cc.Raw(), send.SGEs[0], send.ID, recv.SGEs[0], recv.ID)
	require.NoError(t, err)
	defer c.free()
	var stamp uint64
	sending := false
	err = c.run(1, true, &stamp, &sending)
	require.ErrorIs(t, err, syscall.EINVAL)
	assert.ErrorContains(t, err, "bench_c_spin_pingpong: ibv_post_send")
	assert.NotZero(t, stamp, "the post was stamped")
	assert.False(t, sending, "no send is pending after a failed post")
}
