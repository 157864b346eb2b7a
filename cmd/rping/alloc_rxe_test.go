//go:build rxe

package main

import (
	"context"
	"io"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// TestPingDoesNotAllocate runs a client and a server session in this
// process (node A to node B) and counts the allocations of whole pings,
// both sides together: posting, polling, the RDMA read and write and -V's
// validation allocate nothing in steady state. The sessions busy-poll:
// sleeping on the completion channel (CQ.Await) allocates in package rdma,
// which the test reports (not asserts) after.
func TestPingDoesNotAllocate(t *testing.T) {
	rxetest.NoLeaks(t)
	env := rxetest.Guest(t)
	a, b := env.Pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o := options{size: 4000, validate: true}
	var busy atomic.Bool
	busy.Store(true)

	laddr := netip.MustParseAddrPort(b.IP + ":7270")
	l, err := rdma.Listen(laddr, connConfig())
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	served := make(chan error, 1)
	go func() {
		c, err := l.Accept(ctx)
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		s, err := newSession(ctx, c, o, "server", io.Discard, io.Discard)
		if err != nil {
			served <- err
			return
		}
		defer s.close()
		s.busy = busy.Load()
		served <- s.server()
	}()

	c, err := rdma.Dial(ctx, netip.AddrPortFrom(netip.MustParseAddr(a.IP), 0), laddr, connConfig())
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	s, err := newSession(ctx, c, o, "client", io.Discard, io.Discard)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.close()) }()
	s.busy = true
	src, err := s.region(o.size, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteRead)
	require.NoError(t, err)
	sink, err := s.region(o.size, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite)
	require.NoError(t, err)
	require.NoError(t, s.postRecv())

	ping := 0
	var perr error
	one := func() {
		if perr == nil {
			perr = s.ping(ping, src, sink)
			ping++
		}
	}
	for range 5 { // warm up: first waits, lazily made goroutines and buffers
		one()
	}
	allocs := testing.AllocsPerRun(50, one)
	require.NoError(t, perr)
	assert.Zero(t, allocs, "allocations per ping")
	assert.Greater(t, ping, 50)

	// Sleeping on the completion channel instead (the client only: the
	// server keeps busy-polling).
	s.busy = false
	t.Logf("allocations per ping with the client in CQ.Await: %v", testing.AllocsPerRun(20, one))
	require.NoError(t, perr)

	s.disconnect()
	require.NoError(t, <-served, "the server")
}
