//go:build rxe

package rdma

import (
	"bytes"
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestPrivateData: the dialer's private data reaches the listener's
// ConnRequest, which accepts with its own, which reaches the dialer's
// Conn; a rejected request hands the dialer the rejecter's data and the
// reason; data longer than the connection manager carries is refused
// before any C call, on Dial, on Accept and on Reject.
func TestPrivateData(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	na, nb := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	laddr := netip.MustParseAddrPort(nb.IP + ":7472")
	l, err := Listen(laddr, ConnConfig{})
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	local := netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0)

	// prefixed requires got to start with want; the IB CM pads the rest
	// with zeros, up to its message's size.
	prefixed := func(got, want []byte, size int, what string) {
		t.Helper()
		require.GreaterOrEqual(t, len(got), len(want), what)
		assert.Equal(t, want, got[:len(want)], what)
		assert.LessOrEqual(t, len(got), size, what)
		assert.Equal(t, make([]byte, len(got)-len(want)), got[len(want):], "%s: padded with zeros", what)
	}

	// Accepted: data both ways, at the limits.
	hello := bytes.Repeat([]byte("h"), MaxConnectPrivateData)
	welcome := bytes.Repeat([]byte("w"), MaxAcceptPrivateData)
	type accepted struct {
		c    *Conn
		data []byte
		err  error
	}
	done := make(chan accepted, 1)
	go func() {
		r, err := l.Request(ctx)
		if err != nil {
			done <- accepted{err: err}
			return
		}
		c, err := r.Accept(ctx, welcome)
		done <- accepted{c, r.PrivateData(), err}
	}()
	cli, err := Dial(ctx, local, laddr, ConnConfig{PrivateData: hello})
	require.NoError(t, err)
	defer func() { require.NoError(t, cli.Close()) }()
	srv := <-done
	require.NoError(t, srv.err)
	defer func() { require.NoError(t, srv.c.Close()) }()
	prefixed(srv.data, hello, MaxConnectPrivateData, "the request's data")
	prefixed(srv.c.PeerPrivateData(), hello, MaxConnectPrivateData, "the accepted connection's peer data")
	prefixed(cli.PeerPrivateData(), welcome, MaxAcceptPrivateData, "the acceptance's data")

	// Rejected: the dialer sees why.
	no := []byte("go away: busy")
	rejected := make(chan error, 1)
	go func() {
		r, err := l.Request(ctx)
		if err != nil {
			rejected <- err
			return
		}
		prefixed(r.PrivateData(), []byte("may I?"), MaxConnectPrivateData, "the rejected request's data")
		rejected <- r.Reject(no)
		assert.ErrorIs(t, r.Reject(nil), unix.EINVAL, "a request is answered once")
	}()
	_, err = Dial(ctx, local, laddr, ConnConfig{PrivateData: []byte("may I?")})
	require.ErrorIs(t, err, unix.ECONNREFUSED)
	var ce *CMEventError
	require.ErrorAs(t, err, &ce)
	prefixed(ce.PrivateData, no, MaxRejectPrivateData, "the reject's data")
	assert.Equal(t, int32(28), ce.Status, "IB CM reject reason: consumer defined")
	require.NoError(t, <-rejected)

	// Too long, each way: refused before C is called.
	_, err = Dial(ctx, local, laddr, ConnConfig{PrivateData: make([]byte, MaxConnectPrivateData+1)})
	require.ErrorIs(t, err, unix.EINVAL)
	var oe *OpError
	require.ErrorAs(t, err, &oe)
	for _, tooLong := range []bool{true, false} {
		answered := make(chan error, 1)
		go func() {
			r, err := l.Request(ctx)
			if err != nil {
				answered <- err
				return
			}
			if tooLong {
				_, err = r.Accept(ctx, make([]byte, MaxAcceptPrivateData+1))
			} else {
				err = r.Reject(make([]byte, MaxRejectPrivateData+1))
			}
			answered <- err
		}()
		_, err = Dial(ctx, local, laddr, ConnConfig{})
		require.ErrorIs(t, err, unix.ECONNREFUSED, "a request whose answer was too long is rejected")
		err = <-answered
		require.ErrorIs(t, err, unix.EINVAL)
		require.ErrorAs(t, err, &oe)
	}
}
