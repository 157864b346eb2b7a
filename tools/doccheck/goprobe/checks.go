//go:build linux

//lint:file-ignore U1000 used by the probe snippets, which doccheck generates into zprobes.go (go build -overlay)

package main

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdmacm"
)

// Helpers for the snippets' checks, as the C harness's (comp_ok, data_ok, none_posted,
// is_ipv4, own_count): each returns nil when what the call did is what the probe set up, or
// an error saying what differs, which the snippet returns (a success probe whose check fails
// is a wrong Go result).

// wantComp checks a completion that rdma_get_send_comp or rdma_get_recv_comp returned: no
// error, success, the opcode op and, where n is not 0, n bytes.
func wantComp(wc ibv.WC, err error, op ibv.WCOpcode, n uint32) error {
	switch {
	case err != nil:
		return fmt.Errorf("completion: %w", err)
	case wc.Status != ibv.WCStatusSuccess || wc.Opcode != op || (n != 0 && wc.ByteLen != n):
		return fmt.Errorf("completion: status %s, opcode %d (want %d), %d bytes (want %d)", ibv.WCStatusStr(wc.Status), wc.Opcode, op, wc.ByteLen, n)
	}
	return nil
}

// wantData checks that got holds the bytes of want.
func wantData(got, want []byte, what string) error {
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s: %q, want %q", what, got, want)
	}
	return nil
}

// nonePosted checks, 100 ms after a post that failed, that no completion came from it on cq.
func nonePosted(cq *ibv.CQ) error {
	time.Sleep(100 * time.Millisecond)
	wc := make([]ibv.WC, 1)
	if n, err := cq.Poll(wc); n != 0 || err != nil {
		return fmt.Errorf("the failed post completed: %d completion(s) (status %s), %v", n, ibv.WCStatusStr(wc[0].Status), err)
	}
	return nil
}

// wantAddr checks that s is the IPv4 address of the variable env and, where port >= 0, port.
func wantAddr(s *rdmacm.Sockaddr, env string, port int) error {
	if s == nil {
		return fmt.Errorf("no address")
	}
	ap, ok := s.AddrPort()
	want, err := netip.ParseAddr(os.Getenv(env))
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", env, err)
	case !ok || ap.Addr() != want || (port >= 0 && int(ap.Port()) != port):
		return fmt.Errorf("address %v, want %v port %d", s, want, port)
	}
	return nil
}

// ownCount is the number of verbs objects of kind this process owns (rxetest.Resources).
func ownCount(kind string) int {
	rs, err := rxetest.Resources(os.Getpid())
	must("listing verbs objects", err)
	n := 0
	for _, r := range rs {
		if r.Kind == kind {
			n++
		}
	}
	return n
}
