package rdma

import (
	"sync"
)

// life is the lifetime of one resource: operations hold it shared for the
// duration of their C call (use), Close holds it exclusively, so a Close
// never frees what a concurrent call is using, and any use after Close is
// ErrClosed. It also counts live children by kind, so that closing a parent
// with children is a *BusyError instead of a C-side EBUSY or a dangling
// child.
type life struct {
	mu       sync.RWMutex
	closed   bool
	kind     string
	children map[string]int
	cmu      sync.Mutex // guards children
}

// use takes the resource for one operation; release with done.
func (l *life) use(op string) error {
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return opErr(op, ErrClosed)
	}
	return nil
}

// tryUse is use for code running under a waiter that Close waits for: it
// fails with ErrClosed instead of blocking when a Close is in progress.
func (l *life) tryUse(op string) error {
	if !l.mu.TryRLock() {
		return opErr(op, ErrClosed)
	}
	if l.closed {
		l.mu.RUnlock()
		return opErr(op, ErrClosed)
	}
	return nil
}

func (l *life) done() { l.mu.RUnlock() }

// adopt records a live child of kind k; the child calls disown at its Close.
func (l *life) adopt(k string) {
	l.cmu.Lock()
	if l.children == nil {
		l.children = map[string]int{}
	}
	l.children[k]++
	l.cmu.Unlock()
}

func (l *life) disown(k string) {
	l.cmu.Lock()
	if l.children[k]--; l.children[k] <= 0 {
		delete(l.children, k)
	}
	l.cmu.Unlock()
}

func (l *life) count(k string) int {
	l.cmu.Lock()
	defer l.cmu.Unlock()
	return l.children[k]
}

// close runs destroy exclusively once: a second Close returns nil, live
// children are a *BusyError (nothing destroyed), and a failed destroy leaves
// the resource open (the C object still exists; Close may be retried).
func (l *life) close(destroy func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.cmu.Lock()
	if len(l.children) > 0 {
		busy := &BusyError{Resource: l.kind, Children: map[string]int{}}
		for k, n := range l.children {
			busy.Children[k] = n
		}
		l.cmu.Unlock()
		return busy
	}
	l.cmu.Unlock()
	if err := destroy(); err != nil {
		return err
	}
	l.closed = true
	return nil
}

// isClosed reports whether Close has succeeded.
func (l *life) isClosed() bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.closed
}
