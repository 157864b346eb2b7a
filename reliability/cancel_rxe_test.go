//go:build rxe

package reliability

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// badCase is one bad input: do must fail with an error matching every one
// of want (errors.Is). Each case run counts in badInputs.
type badCase struct {
	name string
	do   func() error
	want []error
}

// tryBad runs the cases, each bounded by a generous limit (a hang fails
// the case; nothing is asserted about how long the call took).
func tryBad(t *testing.T, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		badInputs.Add(1)
		done := make(chan error, 1)
		go func() { done <- c.do() }()
		select {
		case err := <-done:
			require.Error(t, err, c.name)
			for _, w := range c.want {
				assert.ErrorIs(t, err, w, c.name)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: no return", c.name)
		}
	}
}

// cancelled returns a context already cancelled.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// waitCases are the three ways to end a wait by its context: cancelled
// before the call, cancelled while the call waits, and a deadline.
func waitCases(name string, wait func(context.Context) error) []badCase {
	return []badCase{
		{name + ", context cancelled before", func() error { return wait(cancelled()) }, []error{context.Canceled}},
		{name + ", context cancelled while waiting", func() error {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			return wait(ctx)
		}, []error{context.Canceled}},
		{name + ", deadline", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			return wait(ctx)
		}, []error{context.DeadlineExceeded}},
	}
}

// TestCancelEveryWait: every call of rdma that waits — CQ.Wait, CQ.Await,
// CompChannel.Wait, their blocking twins CQ.WaitBlocking and
// CompChannel.WaitBlocking, Device.AsyncEvent, Listener.Accept, Dial and
// Conn.WaitDisconnect — returns its context's error when the context is
// cancelled before the call, while it waits, or reaches its deadline; and
// the resources waited on stay usable (a completion, then a connection,
// get through afterwards).
func TestCancelEveryWait(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	a, b := newNode(t, na.Dev, 4096, 16), newNode(t, nb.Dev, 4096, 16)
	qa, qb := a.qp(t, 4), b.qp(t, 4)
	connect(t, env, rdma.Path{}, qa, qb)
	wcs := make([]ibv.WC, 4)

	var cases []badCase
	cases = append(cases, waitCases("CQ.Wait", func(ctx context.Context) error { return b.cq.Wait(ctx) })...)
	cases = append(cases, waitCases("CQ.Await", func(ctx context.Context) error { _, err := b.cq.Await(ctx, wcs); return err })...)
	cases = append(cases, waitCases("CompChannel.Wait", func(ctx context.Context) error { _, err := b.cc.Wait(ctx); return err })...)
	cases = append(cases, waitCases("CompChannel.WaitPoll", func(ctx context.Context) error { _, _, err := b.cc.WaitPoll(ctx, wcs); return err })...)
	cases = append(cases, waitCases("CQ.WaitBlocking", func(ctx context.Context) error { return b.cq.WaitBlocking(ctx) })...)
	cases = append(cases, waitCases("CompChannel.WaitBlocking", func(ctx context.Context) error { _, err := b.cc.WaitBlocking(ctx); return err })...)
	cases = append(cases, waitCases("CompChannel.WaitBlockingPoll", func(ctx context.Context) error {
		_, _, err := b.cc.WaitBlockingPoll(ctx, wcs)
		return err
	})...)
	cases = append(cases, waitCases("Device.AsyncEvent", func(ctx context.Context) error { _, err := b.dev.AsyncEvent(ctx); return err })...)
	tryBad(t, cases)

	// Still usable: a send gets through and is awaited.
	require.NoError(t, qb.PostRecv(rdma.RecvWork{ID: 1, SGEs: []ibv.SGE{b.sge(t, 0, 64)}}))
	require.NoError(t, qa.PostSend(rdma.SendWork{ID: 2, Op: ibv.WROpcodeSend, SGEs: []ibv.SGE{a.sge(t, 0, 8)}}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := b.cq.Await(ctx, wcs)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, ibv.WCStatusSuccess, wcs[0].Status)

	// rdmacm: a listener nobody dials; a Dial to a port where a listener
	// never accepts (the request stays queued at the listener, consumed
	// below); a connection nobody disconnects.
	cfg := rdma.ConnConfig{MaxSend: 4, MaxRecv: 4}
	laddr := netip.MustParseAddrPort(nb.IP + ":7490")
	l, err := rdma.Listen(laddr, cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	src := netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0)
	cases = waitCases("Listener.Accept", func(ctx context.Context) error { _, err := l.Accept(ctx); return err })
	cases = append(cases, badCase{"Dial, context cancelled before", func() error {
		_, err := rdma.Dial(cancelled(), src, laddr, cfg)
		return err
	}, []error{context.Canceled}})
	tryBad(t, cases)

	cli, srv := dialPair(t, ctx, l, src, laddr, cfg)
	tryBad(t, waitCases("Conn.WaitDisconnect", cli.WaitDisconnect))
	// Still usable: a disconnect is seen.
	require.NoError(t, srv.Disconnect())
	require.NoError(t, cli.WaitDisconnect(ctx))
}

// dialPair connects a client to l, returning both ends, closed at the end
// of the test.
func dialPair(t *testing.T, ctx context.Context, l *rdma.Listener, src, dst netip.AddrPort, cfg rdma.ConnConfig) (cli, srv *rdma.Conn) {
	t.Helper()
	accepted := make(chan *rdma.Conn, 1)
	go func() {
		c, err := l.Accept(ctx)
		assert.NoError(t, err)
		accepted <- c
	}()
	cli, err := rdma.Dial(ctx, src, dst, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cli.Close()) })
	srv = <-accepted
	require.NotNil(t, srv)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return cli, srv
}

// TestCloseTwice: every type's Close (Buffer's Free) succeeds once and is
// a no-op the second and third time; a use after it is ErrClosed.
func TestCloseTwice(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dev, err := rdma.Open(na.Dev)
	require.NoError(t, err)
	pd, err := dev.AllocPD()
	require.NoError(t, err)
	buf, err := rdma.AllocBuffer(4096)
	require.NoError(t, err)
	mr, err := pd.Register(buf.Bytes(), access)
	require.NoError(t, err)
	pinned, err := pd.RegisterPinned(make([]byte, 64), access)
	require.NoError(t, err)
	cc, err := dev.NewCompChannel()
	require.NoError(t, err)
	cq, err := dev.NewCQ(4, cc)
	require.NoError(t, err)
	qp, err := pd.NewQP(rdma.QPConfig{SendCQ: cq, RecvCQ: cq})
	require.NoError(t, err)
	cfg := rdma.ConnConfig{MaxSend: 4, MaxRecv: 4}
	laddr := netip.MustParseAddrPort(nb.IP + ":7491")
	l, err := rdma.Listen(laddr, cfg)
	require.NoError(t, err)
	accepted := make(chan *rdma.Conn, 1)
	go func() {
		c, err := l.Accept(ctx)
		assert.NoError(t, err)
		accepted <- c
	}()
	cli, err := rdma.Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), laddr, cfg)
	require.NoError(t, err)
	srv := <-accepted
	require.NotNil(t, srv)

	for _, c := range []struct {
		name  string
		close func() error
	}{
		{"QP", qp.Close}, {"CQ", cq.Close}, {"CompChannel", cc.Close}, {"MR", mr.Close},
		{"MR (pinned)", pinned.Close}, {"Buffer", buf.Free}, {"PD", pd.Close}, {"Device", dev.Close},
		{"Conn (client)", cli.Close}, {"Conn (server)", srv.Close}, {"Listener", l.Close},
	} {
		require.NoError(t, c.close(), "%s: first Close", c.name)
		for i := range 2 {
			badInputs.Add(1)
			assert.NoError(t, c.close(), "%s: Close #%d", c.name, i+2)
		}
	}
	var cases []badCase
	for name, f := range map[string]func() error{
		"QP.PostRecv after Close":              func() error { return qp.PostRecv(rdma.RecvWork{}) },
		"CQ.Await after Close":                 func() error { _, err := cq.Await(ctx, make([]ibv.WC, 1)); return err },
		"CompChannel.Wait after Close":         func() error { _, err := cc.Wait(ctx); return err },
		"CompChannel.WaitBlocking after Close": func() error { _, err := cc.WaitBlocking(ctx); return err },
		"CompChannel.WaitBlockingPoll after Close": func() error {
			_, _, err := cc.WaitBlockingPoll(ctx, make([]ibv.WC, 1))
			return err
		},
		"CQ.WaitBlocking after Close":  func() error { return cq.WaitBlocking(ctx) },
		"MR.SGE after Close":           func() error { _, err := mr.SGE(0, 1); return err },
		"PD.AllocPD after Close":       func() error { _, err := dev.AllocPD(); return err },
		"Conn.QP.PostSend after Close": func() error { return cli.QP.PostSend(rdma.SendWork{Op: ibv.WROpcodeSend}) },
		"Listener.Accept after Close":  func() error { _, err := l.Accept(ctx); return err },
	} {
		cases = append(cases, badCase{name, f, []error{rdma.ErrClosed}})
	}
	tryBad(t, cases)
}

// TestCloseWhileWaiting: closing what a goroutine waits on ends the wait
// with ErrClosed — a CQ's channel (after the CQ), parked on the netpoller
// or held in C, a device's async events,
// a listener's Accept — and a Conn closed while another goroutine waits
// for its disconnect ends that wait too; nothing hangs or leaks.
func TestCloseWhileWaiting(t *testing.T) {
	noLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dev, err := rdma.Open(na.Dev)
	require.NoError(t, err)
	cc, err := dev.NewCompChannel()
	require.NoError(t, err)
	cq, err := dev.NewCQ(4, cc)
	require.NoError(t, err)

	waiting := func(f func() error) <-chan error {
		ch := make(chan error, 1)
		go func() { ch <- f() }()
		time.Sleep(20 * time.Millisecond) // let it park (it need not have)
		return ch
	}
	result := func(name string, ch <-chan error, want ...error) {
		t.Helper()
		badInputs.Add(1)
		select {
		case err := <-ch:
			if len(want) == 0 {
				return
			}
			ok := false
			for _, w := range want {
				ok = ok || errors.Is(err, w)
			}
			assert.True(t, ok, "%s: %v, want one of %v", name, err, want)
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: the wait did not end", name)
		}
	}

	cc2, err := dev.NewCompChannel()
	require.NoError(t, err)
	cq2, err := dev.NewCQ(4, cc2)
	require.NoError(t, err)

	awaiting := waiting(func() error { _, err := cq.Await(ctx, make([]ibv.WC, 1)); return err })
	blocked := waiting(func() error { return cq2.WaitBlocking(ctx) })
	async := waiting(func() error { _, err := dev.AsyncEvent(ctx); return err })
	require.NoError(t, cq.Close())
	require.NoError(t, cc.Close())
	result("CQ.Await, CQ and channel closed", awaiting, rdma.ErrClosed)
	require.NoError(t, cq2.Close())
	require.NoError(t, cc2.Close())
	result("CQ.WaitBlocking (held in C), CQ and channel closed", blocked, rdma.ErrClosed)
	require.NoError(t, dev.Close())
	result("Device.AsyncEvent, device closed", async, rdma.ErrClosed)

	cfg := rdma.ConnConfig{MaxSend: 4, MaxRecv: 4}
	laddr := netip.MustParseAddrPort(nb.IP + ":7492")
	l, err := rdma.Listen(laddr, cfg)
	require.NoError(t, err)
	cli, srv := dialPair(t, ctx, l, netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0), laddr, cfg)
	disc := waiting(func() error { return srv.WaitDisconnect(ctx) })
	require.NoError(t, srv.Close())
	// Close's own disconnect wait and this one share the channel: either
	// may see the event; the other ends with ErrClosed.
	result("Conn.WaitDisconnect, Conn closed", disc)
	require.NoError(t, cli.WaitDisconnect(ctx))
	accepting := waiting(func() error { _, err := l.Accept(ctx); return err })
	require.NoError(t, l.Close())
	result("Listener.Accept, listener closed", accepting, rdma.ErrClosed)
}
