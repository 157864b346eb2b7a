package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdma"
)

// Work request IDs: which queue a completion belongs to.
const (
	recvID = 1
	sendID = 2
)

// pingpong is the whole command after parsing: resources, exchange, the
// message loop, the report.
func pingpong(o options, stdout io.Writer) (err error) {
	r, err := openResources(o)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, r.close()) }()

	path := rdma.Path{Port: uint8(o.ibPort), MTU: o.mtu}
	if o.gidIndex >= 0 {
		path.GIDIndex = o.gidIndex
	}
	psn := rand.Uint32() & 0xffffff
	local, err := r.qp.Endpoint(path, psn)
	if err != nil {
		return err
	}
	if o.gidIndex < 0 {
		local.GID = ibv.GID{} // no GID: the peer routes by LID
	}
	fmt.Fprintln(stdout, addressLine("local address: ", local))

	var conn net.Conn
	if o.server != "" {
		conn, err = dial(o.server, o.port)
	} else {
		conn, err = accept(o.port)
	}
	if err != nil {
		return err
	}
	defer conn.Close()

	loop, err := newLoop(o, r)
	if err != nil {
		return err
	}
	// Connect, then keep the receive queue full before the peer may send:
	// the server answers, the client says done, only after this.
	connect := func(remote rdma.Endpoint) error {
		if err := r.qp.Connect(path, psn, remote); err != nil {
			return err
		}
		return loop.fillRecv()
	}
	var remote rdma.Endpoint
	if o.server != "" {
		remote, err = clientExchange(conn, local, connect)
	} else {
		remote, err = serverExchange(conn, local, connect)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, addressLine("remote address:", remote))

	start := time.Now()
	if err := loop.run(o.server != ""); err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprint(stdout, summary(o.size, o.iters, elapsed))
	if loop.invalid > 0 {
		return fmt.Errorf("%d of %d messages received failed validation; first: %w", loop.invalid, o.iters, loop.firstInvalid)
	}
	return nil
}

// loop is the message exchange: one send at a time, alternating with the
// peer's, and up to rxDepth receives posted. Everything it posts and polls
// is allocated here, before the first message, and rdma's PostSend,
// PostRecv and PollSpin do not allocate (rdma's rxe tests measure that;
// this loop is not measured on its own).
type loop struct {
	r        *resources
	iters    int
	validate bool
	events   bool
	send     [1]rdma.SendWork
	recvs    []rdma.RecvWork
	routs    int // receives posted and not yet completed
	// invalid counts the messages that failed -c's check; the first
	// failure is kept. The exchange goes on, so that the peer completes.
	invalid      int
	firstInvalid error
	// wcs is an allocation of its own: cgo's pointer check of a
	// pointer passed as unsafe.Pointer covers the whole object holding it.
	wcs []ibv.WC
}

func newLoop(o options, r *resources) (*loop, error) {
	sge, err := r.mr.SGE(0, o.size)
	if err != nil {
		return nil, err
	}
	sges := []ibv.SGE{sge}
	l := &loop{r: r, iters: o.iters, validate: o.validate, events: o.events,
		recvs: make([]rdma.RecvWork, o.rxDepth), wcs: make([]ibv.WC, 2)}
	l.send[0] = rdma.SendWork{ID: sendID, Op: ibv.WROpcodeSend, Flags: ibv.SendFlagsSignaled, SGEs: sges}
	for i := range l.recvs {
		l.recvs[i] = rdma.RecvWork{ID: recvID, SGEs: sges}
	}
	return l, nil
}

// fillRecv posts receives until rxDepth are outstanding.
func (l *loop) fillRecv() error {
	n := len(l.recvs) - l.routs
	if n == 0 {
		return nil
	}
	err := l.r.qp.PostRecv(l.recvs[:n]...)
	if err == nil {
		l.routs += n
		return nil
	}
	var pe *rdma.PostError
	if errors.As(err, &pe) {
		l.routs += pe.Posted
	}
	return err
}

// Pending completions before the next send.
const (
	pendSend = 1 << iota
	pendRecv
)

// run exchanges iters messages each way; the client sends first.
func (l *loop) run(client bool) error {
	pending := pendRecv
	if client {
		if l.validate {
			writePattern(l.r.buf.Bytes())
		}
		if err := l.r.qp.PostSend(l.send[:]...); err != nil {
			return err
		}
		pending |= pendSend
	}
	scnt, rcnt := 0, 0
	for scnt < l.iters || rcnt < l.iters {
		n, err := l.poll()
		if err != nil {
			return err
		}
		for i := range l.wcs[:n] {
			wc := &l.wcs[i]
			if wc.Status != ibv.WCStatusSuccess {
				return fmt.Errorf("failed status %s (%d) for wr_id %d", ibv.WCStatusStr(wc.Status), wc.Status, wc.WRID)
			}
			switch wc.WRID {
			case sendID:
				scnt++
				pending &^= pendSend
			case recvID:
				rcnt++
				l.routs--
				if l.validate {
					if err := checkPattern(l.r.buf.Bytes()); err != nil {
						if l.invalid == 0 {
							l.firstInvalid = fmt.Errorf("message %d: %w", rcnt, err)
						}
						l.invalid++
					}
				}
				if l.routs <= len(l.recvs)/2 {
					if err := l.fillRecv(); err != nil {
						return err
					}
				}
				pending &^= pendRecv
			default:
				return fmt.Errorf("completion for unknown wr_id %d", wc.WRID)
			}
			if pending == 0 && scnt < l.iters {
				if err := l.r.qp.PostSend(l.send[:]...); err != nil {
					return err
				}
				pending = pendSend | pendRecv
			}
		}
	}
	return nil
}

// poll returns the next completions: busy-polling, or under -e sleeping on
// the completion channel until the CQ has some.
func (l *loop) poll() (int, error) {
	if l.events {
		return l.r.cq.Await(context.Background(), l.wcs)
	}
	for {
		n, err := l.r.cq.PollSpin(l.wcs[:], 1<<16)
		if n > 0 || err != nil {
			return n, err
		}
	}
}
