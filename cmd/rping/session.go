package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// Work request IDs: what a completion completes.
const (
	wrRecv = iota
	wrSend
	wrRead
	wrWrite
	nWR
)

var wrNames = [nWR]string{"recv", "send", "rdma read", "rdma write"}

// errDisconnected: the peer ended the connection.
var errDisconnected = errors.New("the peer disconnected")

// region is a Buffer registered for the connection.
type region struct {
	buf *rdma.Buffer
	mr  *rdma.MR
}

func newRegion(pd *rdma.PD, n int, access ibv.AccessFlags) (*region, error) {
	buf, err := rdma.AllocBuffer(n)
	if err != nil {
		return nil, err
	}
	mr, err := pd.Register(buf.Bytes(), access)
	if err != nil {
		buf.Free()
		return nil, err
	}
	return &region{buf: buf, mr: mr}, nil
}

func (r *region) bytes() []byte { return r.buf.Bytes() }

// info advertises the first n bytes of the region.
func (r *region) info(n int) info {
	return info{Addr: r.mr.Addr(), RKey: r.mr.RKey(), Size: uint32(n)}
}

// sge is the region's first n bytes.
func (r *region) sge(n int) ibv.SGE {
	return ibv.SGE{Addr: r.mr.Addr(), Length: uint32(n), LKey: r.mr.LKey()}
}

func (r *region) close() error {
	if r == nil {
		return nil
	}
	return errors.Join(r.mr.Close(), r.buf.Free())
}

// session is one connection's ping state: its messages, its ping buffers
// and the completions seen. Posting and polling do not allocate.
type session struct {
	c    *rdma.Conn
	o    options
	role string // "client" or "server", for the disconnect message
	out  io.Writer

	recv, send *region // one message each way
	bufs       []*region

	rw   [1]rdma.RecvWork
	sw   [1]rdma.SendWork
	rsge [1]ibv.SGE
	ssge [1]ibv.SGE
	// wcs is an allocation of its own: CQ.Poll hands it to C, and cgo's
	// check rejects memory of an object that holds Go pointers.
	wcs  []ibv.WC
	seen [nWR]int // completions not yet claimed by await
	// busy makes await poll in C (CQ.PollSpin) instead of sleeping on the
	// completion channel (CQ.Await, rping's way and the command's): the
	// test of the data path's allocations uses it, because a wait on the
	// netpoller allocates (package rdma's fdWaiter) where posting and
	// polling do not.
	busy bool
	got  info // the last message received

	// ctx ends when the peer disconnects (gone is then set) or the
	// command's context ends; stop ends the watcher, which has ended
	// when watched is closed.
	ctx     context.Context
	stop    context.CancelFunc
	gone    atomic.Bool
	watched chan struct{}
	stderr  io.Writer
}

func newSession(ctx context.Context, c *rdma.Conn, o options, role string, out, stderr io.Writer) (*session, error) {
	s := &session{c: c, o: o, role: role, out: out, stderr: stderr, wcs: make([]ibv.WC, 4)}
	var err error
	if s.recv, err = s.region(infoLen, ibv.AccessFlagsLocalWrite); err != nil {
		s.close()
		return nil, err
	}
	if s.send, err = s.region(infoLen, 0); err != nil {
		s.close()
		return nil, err
	}
	s.rsge[0] = s.recv.sge(infoLen)
	s.rw[0] = rdma.RecvWork{ID: wrRecv, SGEs: s.rsge[:]}
	s.ssge[0] = s.send.sge(infoLen)
	s.ctx, s.stop = context.WithCancel(ctx)
	s.watched = make(chan struct{})
	go s.watch()
	return s, nil
}

// step prints a step of the protocol with -d. (Formatted steps are
// printed under an "if s.o.debug" of their own: boxing their arguments
// would allocate on every ping.)
func (s *session) step(msg string) {
	if s.o.debug {
		fmt.Fprintln(s.out, msg)
	}
}

// region allocates and registers a buffer the session frees on close.
func (s *session) region(n int, access ibv.AccessFlags) (*region, error) {
	r, err := newRegion(s.c.PD, n, access)
	if err != nil {
		return nil, err
	}
	s.bufs = append(s.bufs, r)
	return r, nil
}

// watch waits for the connection's end, says so as rping does, and ends
// the session's context.
func (s *session) watch() {
	defer close(s.watched)
	if err := s.c.WaitDisconnect(s.ctx); err == nil {
		s.gone.Store(true)
		fmt.Fprintf(s.stderr, "%s DISCONNECT EVENT...\n", s.role)
		s.stop()
	}
}

// disconnectWait bounds the wait for the end of a connection this side
// ended.
const disconnectWait = 5 * time.Second

// disconnect ends the connection and waits until the watcher has seen it
// end (at most disconnectWait).
func (s *session) disconnect() {
	if !s.gone.Load() {
		s.c.Disconnect()
	}
	t := time.NewTimer(disconnectWait)
	defer t.Stop()
	select {
	case <-s.watched:
	case <-t.C:
		s.stop()
		<-s.watched
	}
}

// close stops the watcher and frees the buffers (the caller closes the
// connection).
func (s *session) close() error {
	if s.stop != nil {
		s.stop()
		<-s.watched
	}
	var errs []error
	for _, r := range s.bufs {
		errs = append(errs, r.close())
	}
	return errors.Join(errs...)
}

// postRecv posts the receive of the next message.
func (s *session) postRecv() error { return s.c.QP.PostRecv(s.rw[:]...) }

// sendInfo sends m and waits for the send to complete.
func (s *session) sendInfo(m info) error {
	m.put(s.send.bytes())
	s.sw[0] = rdma.SendWork{ID: wrSend, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: s.ssge[:]}
	if err := s.c.QP.PostSend(s.sw[:]...); err != nil {
		return err
	}
	if err := s.await(wrSend); err != nil {
		return err
	}
	s.step("send completion")
	return nil
}

// recvInfo waits for the next message, re-posts the receive and decodes it
// into s.got.
func (s *session) recvInfo() error {
	if err := s.await(wrRecv); err != nil {
		return err
	}
	s.step("recv completion")
	if err := s.postRecv(); err != nil {
		return err
	}
	return nil
}

// rdma posts an RDMA read or write of the first n bytes of local from or
// to the peer's buffer m, and waits for it to complete.
func (s *session) rdma(id uint64, op ibv.WROpcode, local *region, m info) error {
	s.ssge[0] = local.sge(int(m.Size))
	s.sw[0] = rdma.SendWork{ID: id, Op: op, Flags: ibv.SendFlagsSignaled, SGEs: s.ssge[:], RemoteAddr: m.Addr, RKey: m.RKey}
	err := s.c.QP.PostSend(s.sw[:]...)
	s.ssge[0] = s.send.sge(infoLen)
	if err != nil {
		return err
	}
	return s.await(id)
}

// poll returns the next completions, waiting for at least one.
func (s *session) poll() (int, error) {
	if !s.busy {
		return s.c.CQ.Await(s.ctx, s.wcs)
	}
	for {
		if err := s.ctx.Err(); err != nil {
			return 0, err
		}
		if n, err := s.c.CQ.PollSpin(s.wcs, 1<<12); n > 0 || err != nil {
			return n, err
		}
	}
}

// completionError is a work request that completed with an error status.
type completionError struct {
	wr     string
	status ibv.WCStatus
}

func (e *completionError) Error() string {
	return fmt.Sprintf("cq completion failed status %d (%s) on the %s", int(e.status), ibv.WCStatusStr(e.status), e.wr)
}

// await returns once a completion of work request id has arrived,
// counting the others it sees on the way. A failed completion is an
// error; so is the peer's disconnect (errDisconnected).
func (s *session) await(id uint64) error {
	for s.seen[id] == 0 {
		n, err := s.poll()
		if err != nil {
			if s.gone.Load() {
				return errDisconnected
			}
			return err
		}
		for i := range s.wcs[:n] {
			wc := &s.wcs[i]
			if wc.Status != ibv.WCStatusSuccess {
				if wc.Status == ibv.WCStatusWRFlushErr && s.gone.Load() {
					return errDisconnected
				}
				return &completionError{wr: wrNames[wc.WRID%nWR], status: wc.Status}
			}
			if wc.WRID == wrRecv {
				b := s.recv.bytes()
				if int(wc.ByteLen) < len(b) {
					b = b[:wc.ByteLen]
				}
				m, err := parseInfo(b)
				if err != nil {
					return err
				}
				s.got = m
			}
			s.seen[wc.WRID%nWR]++
		}
	}
	s.seen[id]--
	return nil
}
