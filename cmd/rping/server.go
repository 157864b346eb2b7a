package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// runServer listens on o.addr (any address when empty) and serves one
// client until it disconnects, or with -P every client until killed.
func runServer(ctx context.Context, o options, stdout, stderr io.Writer) error {
	addr := netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(o.port))
	if o.addr != "" {
		var err error
		if addr, err = resolve(o.addr, o.port); err != nil {
			return err
		}
	}
	l, err := rdma.Listen(addr, connConfig())
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	defer l.Close()
	fmt.Fprintln(debugOut(o, stdout), "rdma_listen")
	if !o.persistent {
		c, err := l.Accept(ctx)
		if err != nil {
			return err
		}
		return serve(ctx, c, o, stdout, stderr)
	}
	// Persistent: each client on its own goroutine; the output of
	// concurrent clients is serialised line by line.
	out, errOut := &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept(ctx)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := serve(ctx, c, o, out, errOut); err != nil && ctx.Err() == nil {
				fmt.Fprintf(errOut, "rping: server: %v\n", err)
			}
		}()
	}
}

// serve pings with one accepted client and closes the connection.
func serve(ctx context.Context, c *rdma.Conn, o options, stdout, stderr io.Writer) error {
	defer c.Close()
	fmt.Fprintln(debugOut(o, stdout), "accepting client connection request")
	s, err := newSession(ctx, c, o, "server", stdout, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	return s.server()
}

// server answers pings until the client disconnects: per ping it reads
// the client's source buffer (RDMA read), says "go ahead", and writes the
// data into the client's sink buffer (RDMA write), saying so once done.
func (s *session) server() error {
	buf, err := s.region(s.o.size, ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteRead|ibv.AccessFlagsRemoteWrite)
	if err != nil {
		return err
	}
	if err := s.postRecv(); err != nil {
		return err
	}
	for ping := 0; ; ping++ {
		// The client's source buffer; its disconnect here is the normal end.
		if err := s.recvAdv(); err != nil {
			if errors.Is(err, errDisconnected) {
				return nil
			}
			return fmt.Errorf("ping %d: %w", ping, err)
		}
		s.step("server posted rdma read req")
		if err := s.rdma(wrRead, ibv.WROpcodeRDMARead, buf, s.got); err != nil {
			return fmt.Errorf("ping %d: %w", ping, err)
		}
		s.step("rdma read completion")
		s.step("server received read complete")
		if s.o.verbose {
			fmt.Fprintf(s.out, "server ping data: %s\n", cString(buf.bytes()[:s.got.Size]))
		}
		if err := s.goAhead(buf); err != nil {
			return fmt.Errorf("ping %d: %w", ping, err)
		}
		// The client's sink buffer.
		if err := s.recvAdv(); err != nil {
			return fmt.Errorf("ping %d: %w", ping, err)
		}
		if s.o.debug {
			fmt.Fprintf(s.out, "rdma write from lkey %x laddr %x len %d\n", buf.mr.LKey(), buf.mr.Addr(), s.got.Size)
		}
		if err := s.rdma(wrWrite, ibv.WROpcodeRDMAWrite, buf, s.got); err != nil {
			return fmt.Errorf("ping %d: %w", ping, err)
		}
		s.step("rdma write completion")
		s.step("server rdma write complete")
		if err := s.goAhead(buf); err != nil {
			return fmt.Errorf("ping %d: %w", ping, err)
		}
	}
}

// recvAdv receives the client's next buffer advertisement and checks that
// the server's buffer (-S) can hold what it advertises.
func (s *session) recvAdv() error {
	if err := s.recvInfo(); err != nil {
		return err
	}
	if s.o.debug {
		fmt.Fprintf(s.out, "Received %s from peer\n", s.got)
	}
	if int(s.got.Size) > s.o.size {
		return fmt.Errorf("the client's ping of %d bytes does not fit the server's %d (-S)", s.got.Size, s.o.size)
	}
	s.step("server received sink adv")
	return nil
}

// goAhead tells the client to go on (the message advertises the server's
// buffer; rping's client does not look at it).
func (s *session) goAhead(buf *region) error {
	s.step("server posted go ahead")
	return s.sendInfo(buf.info(s.o.size))
}

// lockedWriter serialises writes of concurrent sessions.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
