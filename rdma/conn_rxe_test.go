//go:build rxe

package rdma

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestDialAccept: a listener on node B accepts in one goroutine while node
// A dials, both through the netpoller; a message goes each way over the
// connection's own QP and CQ; closing both leaves nothing behind.
func TestDialAccept(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	laddr := netip.MustParseAddrPort(nb.IP + ":7471")
	l, err := Listen(laddr, ConnConfig{})
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	assert.Equal(t, uint16(7471), l.Port())

	accepted := make(chan *Conn, 1)
	go func() {
		c, err := l.Accept(ctx)
		assert.NoError(t, err)
		accepted <- c
	}()
	cli, err := Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), laddr, ConnConfig{})
	require.NoError(t, err)
	defer func() { require.NoError(t, cli.Close()) }()
	srv := <-accepted
	require.NotNil(t, srv)
	defer func() { require.NoError(t, srv.Close()) }()
	assert.Equal(t, ibv.QPStateRTS, cli.QP.State())

	exchange := func(from, to *Conn, msg string) {
		t.Helper()
		fb, err := AllocBuffer(4096)
		require.NoError(t, err)
		defer func() { require.NoError(t, fb.Free()) }()
		tb, err := AllocBuffer(4096)
		require.NoError(t, err)
		defer func() { require.NoError(t, tb.Free()) }()
		fm, err := from.PD.Register(fb.Bytes(), access)
		require.NoError(t, err)
		defer func() { require.NoError(t, fm.Close()) }()
		tm, err := to.PD.Register(tb.Bytes(), access)
		require.NoError(t, err)
		defer func() { require.NoError(t, tm.Close()) }()
		rs, _ := tm.SGE(0, 4096)
		require.NoError(t, to.QP.PostRecv(RecvWork{ID: 1, SGEs: []ibv.SGE{rs}}))
		copy(fb.Bytes(), msg)
		ss, _ := fm.SGE(0, len(msg))
		require.NoError(t, from.QP.PostSend(SendWork{ID: 2, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: []ibv.SGE{ss}}))
		wcs := make([]ibv.WC, 2)
		n, err := to.CQ.Await(ctx, wcs)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, ibv.WCStatusSuccess, wcs[0].Status, ibv.WCStatusStr(wcs[0].Status))
		assert.Equal(t, msg, string(tb.Bytes()[:wcs[0].ByteLen]))
		n, err = from.CQ.Await(ctx, wcs)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, ibv.WCStatusSuccess, wcs[0].Status)
	}
	exchange(cli, srv, "ping over rdmacm")
	exchange(srv, cli, "pong over rdmacm")

	// The client disconnects; the server sees it.
	require.NoError(t, cli.Disconnect())
	require.NoError(t, srv.WaitDisconnect(ctx))
}

// TestDialRefusedAndCancelled: dialling a port nobody listens on is
// ECONNREFUSED (or unreachable), an Accept ends with its context, and
// Close of a listener ends a pending Accept with ErrClosed.
func TestDialRefusedAndCancelled(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), netip.MustParseAddrPort(nb.IP+":7999"), ConnConfig{})
	require.Error(t, err)
	var ev *CMEventError
	require.ErrorAs(t, err, &ev)
	assert.True(t, errorsIsAny(err, unix.ECONNREFUSED, unix.EHOSTUNREACH, unix.ETIMEDOUT), "%v", err)

	_, err = Dial(ctx, netip.AddrPort{}, netip.MustParseAddrPort("[::1]:1"), ConnConfig{})
	require.ErrorIs(t, err, unix.EINVAL)

	l, err := Listen(netip.MustParseAddrPort(nb.IP+":7472"), ConnConfig{})
	require.NoError(t, err)
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	_, err = l.Accept(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	done := make(chan error, 1)
	go func() {
		_, err := l.Accept(ctx)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, l.Close())
	require.ErrorIs(t, <-done, ErrClosed)
	require.NoError(t, l.Close())
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if assert.ObjectsAreEqual(nil, t) {
			continue
		}
		if ok := isErr(err, t); ok {
			return true
		}
	}
	return false
}

func isErr(err, target error) bool { return errors.Is(err, target) }

// TestWaitDisconnectSeen: once WaitDisconnect has seen the connection end
// it says so at once, even with a context already done, and Close does not
// wait for a second end (it used to wait a second for an event that never
// comes). The passive side's Close answers the disconnect, which ends the
// active side's wait.
func TestWaitDisconnectSeen(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	laddr := netip.MustParseAddrPort(nb.IP + ":7473")
	l, err := Listen(laddr, ConnConfig{})
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	accepted := make(chan *Conn, 1)
	go func() {
		c, err := l.Accept(ctx)
		assert.NoError(t, err)
		accepted <- c
	}()
	cli, err := Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), laddr, ConnConfig{})
	require.NoError(t, err)
	srv := <-accepted
	require.NotNil(t, srv)

	done, stop := context.WithCancel(ctx)
	stop()
	require.ErrorIs(t, cli.WaitDisconnect(done), context.Canceled, "connected: nothing seen yet")
	require.NoError(t, cli.Disconnect())
	require.NoError(t, srv.WaitDisconnect(ctx))
	require.NoError(t, srv.WaitDisconnect(done))
	require.NoError(t, srv.Close())
	require.NoError(t, cli.WaitDisconnect(ctx))
	require.NoError(t, cli.WaitDisconnect(done))
	require.NoError(t, cli.Close())
}

// TestConnsShareDevice: the connections of a process on one RDMA device
// share librdmacm's verbs context and one waiter on its async-event fd, so
// a connection holds four file descriptors (its rdmacm event channel and
// completion channel, each with the duplicate the netpoller waits on), not
// five; each Conn's Dev is a handle of its own, whose Close ends the
// AsyncEvent waits made through it only; the last handle's Close drops
// the shared waiter.
func TestConnsShareDevice(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	laddr := netip.MustParseAddrPort(nb.IP + ":7474")
	l, err := Listen(laddr, ConnConfig{})
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	dial := func() (cli, srv *Conn) {
		t.Helper()
		accepted := make(chan *Conn, 1)
		go func() {
			c, err := l.Accept(ctx)
			assert.NoError(t, err)
			accepted <- c
		}()
		cli, err := Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), laddr, ConnConfig{})
		require.NoError(t, err)
		srv = <-accepted
		require.NotNil(t, srv)
		return cli, srv
	}
	a1, b1 := dial()
	fds := openFDs(t)
	a2, b2 := dial()
	assert.Equal(t, 8, openFDs(t)-fds, "file descriptors of a second connection, both ends in this process")
	assert.True(t, a1.Dev != a2.Dev && a1.Dev.sh == a2.Dev.sh, "node A's connections: handles of their own, one share")
	assert.True(t, b1.Dev != b2.Dev && b1.Dev.sh == b2.Dev.sh, "node B's connections: handles of their own, one share")
	assert.True(t, a1.Dev.sh != b1.Dev.sh, "the two devices share nothing")

	wait := func(d *Device) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := d.AsyncEvent(ctx)
			done <- err
		}()
		return done
	}
	w1, w2 := wait(a1.Dev), wait(a2.Dev)
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, b1.Close())
	require.NoError(t, a1.Close())
	require.ErrorIs(t, <-w1, ErrClosed)
	select {
	case err := <-w2:
		t.Fatalf("closing one connection ended another's AsyncEvent: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	_, err = a1.Dev.AsyncEvent(ctx)
	require.ErrorIs(t, err, ErrClosed)
	require.NoError(t, b2.Close())
	require.NoError(t, a2.Close())
	require.ErrorIs(t, <-w2, ErrClosed)
	borrowMu.Lock()
	left := len(borrowed)
	borrowMu.Unlock()
	assert.Equal(t, 0, left, "shares left after every connection closed")
}

// openFDs is the number of open file descriptors of this process.
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(es)
}
