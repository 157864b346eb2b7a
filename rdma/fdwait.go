package rdma

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fdWaiter parks goroutines on Go's netpoller until a C library's event fd
// (a completion channel, an rdmacm event channel, a device's async fd) is
// readable. It works on a duplicate of the fd, made non-blocking — which
// makes the library's own fd non-blocking too (they share the open file
// description), so the library's read returns EAGAIN instead of blocking:
// the try function turns that into "not yet".
//
// One goroutine at a time is inside the poller (sem); it alone owns the
// read deadline, through which its context cancels the wait. Others queue on
// sem, cancellable too. Closing the waiter wakes and fails every waiter and
// returns only when no try is running, so the C object can be destroyed
// right after.
type fdWaiter struct {
	f   *os.File
	rc  syscall.RawConn
	sem chan struct{}

	closed atomic.Bool

	// The current waiter's try and its result (the waiter holds sem);
	// onReadable is readCallback bound once, so that a wait allocates no
	// closure.
	try        func() error
	result     error
	onReadable func(uintptr) bool
	pfd        [1]unix.PollFd

	dmu   sync.Mutex // guards owner and the deadline
	owner uint64     // the wait currently owning the deadline, 0 if none
	seq   uint64
}

func newFDWaiter(fd int32, name string) (*fdWaiter, error) {
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, opErr("rdma: dup "+name+" fd", err)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, opErr("rdma: set "+name+" fd non-blocking", err)
	}
	f := os.NewFile(uintptr(nfd), name)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, opErr("rdma: "+name+" fd", err)
	}
	w := &fdWaiter{f: f, rc: rc, sem: make(chan struct{}, 1)}
	w.onReadable = w.readCallback
	return w, nil
}

// errAgain is what try returns when the fd had nothing for it.
var errAgain = errors.New("again")

// wait calls try when the fd may be readable until try returns something
// other than errAgain, or ctx ends (ctx.Err()), or the waiter is closed
// (ErrClosed).
func (w *fdWaiter) wait(ctx context.Context, try func() error) error {
	if err := w.lock(ctx); err != nil {
		return err
	}
	defer w.unlock()
	return w.waitLocked(ctx, try)
}

// lock makes the caller the one waiter inside the poller (cancellable);
// unlock lets the next in. Between them the caller may read what its try
// left in its own fields. A free lock is taken without looking at ctx (a
// send that cannot block, where a select over two channels costs a
// microsecond under TCG): every caller checks ctx next.
func (w *fdWaiter) lock(ctx context.Context) error {
	select {
	case w.sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case w.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *fdWaiter) unlock() { <-w.sem }

// waitLocked is wait for a caller holding lock. It allocates nothing when
// ctx cannot be cancelled (context.Background) and try does not: the read
// callback is bound once, and a cancellation hook is set up only for a
// context that has one.
func (w *fdWaiter) waitLocked(ctx context.Context, try func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.closed.Load() {
		return ErrClosed
	}
	if ctx.Done() != nil {
		w.dmu.Lock()
		w.seq++
		me := w.seq
		w.owner = me
		w.dmu.Unlock()
		stop := context.AfterFunc(ctx, func() {
			w.dmu.Lock()
			if w.owner == me {
				w.f.SetReadDeadline(time.Unix(1, 0))
			}
			w.dmu.Unlock()
		})
		defer func() {
			stop()
			w.dmu.Lock()
			w.owner = 0
			w.f.SetReadDeadline(time.Time{})
			w.dmu.Unlock()
		}()
	}

	w.try, w.result = try, nil
	err := w.rc.Read(w.onReadable)
	result := w.result
	w.try, w.result = nil, nil
	switch {
	case w.closed.Load():
		return ErrClosed
	case errors.Is(err, os.ErrDeadlineExceeded):
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	case err != nil:
		return err
	}
	return result
}

// readCallback is the RawConn.Read callback: it runs the current try.
func (w *fdWaiter) readCallback(uintptr) bool {
	w.result = w.try()
	return w.result != errAgain
}

// readable reports whether the fd has data now (poll(2), no wait). For the
// libibverbs readers whose page promises only -1 on failure, without errno
// (ibv_get_cq_event, ibv_get_async_event), this is how "nothing yet" is
// told from a failure: they are called only when the fd is readable. Only
// the waiter holding lock calls it.
func (w *fdWaiter) readable(fd int32) (bool, error) {
	w.pfd[0] = unix.PollFd{Fd: fd, Events: unix.POLLIN}
	for {
		n, err := unix.Poll(w.pfd[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, err
		}
		return n > 0 && w.pfd[0].Revents&unix.POLLIN != 0, nil
	}
}

// close wakes every waiter with ErrClosed and returns once no try runs.
func (w *fdWaiter) close() error {
	w.closed.Store(true)
	return w.f.Close()
}
