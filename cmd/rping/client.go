package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"syscall"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// errMismatch: the data that came back differs from the data sent (-V).
var errMismatch = errors.New("data mismatch")

// runClient connects to the server and pings it o.count times (forever
// when 0): per ping it fills its source buffer with the ping's pattern and
// advertises it; the server RDMA-reads it and answers "go ahead"; the
// client advertises its sink buffer; the server RDMA-writes the data there
// and answers again. With -V the sink must then equal the source.
func runClient(ctx context.Context, o options, stdout, stderr io.Writer) error {
	raddr, err := resolve(o.addr, o.port)
	if err != nil {
		return err
	}
	var laddr netip.AddrPort
	if o.srcAddr != "" {
		if laddr, err = resolve(o.srcAddr, 0); err != nil {
			return err
		}
	}
	c, err := rdma.Dial(ctx, laddr, raddr, connConfig())
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) { // what the rdmacm event means
			return fmt.Errorf("connect to %s: %w: %v", raddr, err, errno)
		}
		return fmt.Errorf("connect to %s: %w", raddr, err)
	}
	defer c.Close()
	s, err := newSession(ctx, c, o, "client", stdout, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	s.step("rdma_connect successful")
	return s.client()
}

func (s *session) client() error {
	src, err := s.region(s.o.size, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteRead)
	if err != nil {
		return err
	}
	sink, err := s.region(s.o.size, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite)
	if err != nil {
		return err
	}
	if err := s.postRecv(); err != nil {
		return err
	}
	for ping := 0; s.o.count == 0 || ping < s.o.count; ping++ {
		if err := s.ping(ping, src, sink); err != nil {
			return s.pingErr(ping, err)
		}
	}
	s.disconnect()
	return nil
}

// ping makes ping number ping: the source buffer src goes to the server
// and comes back into sink.
func (s *session) ping(ping int, src, sink *region) error {
	fillPattern(src.bytes(), ping)
	for _, r := range [2]*region{src, sink} {
		m := r.info(s.o.size)
		if s.o.debug {
			fmt.Fprintf(s.out, "RDMA addr %x rkey %x len %d\n", m.Addr, m.RKey, m.Size)
		}
		if err := s.sendInfo(m); err != nil {
			return err
		}
		if err := s.recvInfo(); err != nil {
			return err
		}
	}
	if s.o.validate && !bytes.Equal(src.bytes(), sink.bytes()) {
		return errMismatch
	}
	if s.o.verbose {
		fmt.Fprintf(s.out, "ping data: %s\n", cString(sink.bytes()))
	}
	return nil
}

// pingErr says which ping failed. Without -C a disconnect by the server is
// the normal end of an unbounded run.
func (s *session) pingErr(ping int, err error) error {
	if errors.Is(err, errDisconnected) && s.o.count == 0 {
		return nil
	}
	return fmt.Errorf("ping %d: %w", ping, err)
}
