//go:build linux

package rxetest

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The goroutine half of NoLeaks: goroutines running at the end of a test that were not
// running at its start, read from runtime.Stack's dump of every goroutine. Like goleak's
// defaults, the testing package's own goroutines waiting on their tests, os/signal's
// dispatcher and cgo's background syscalls are never counted, nor is the goroutine that
// checks.

// goroutine is one goroutine of a runtime.Stack dump.
type goroutine struct {
	id    int
	state string   // "chan receive", "select", ... (no "N minutes" or "locked to thread")
	funcs []string // the functions on its stack, innermost first, without arguments
	trace string   // the goroutine's whole entry, as the runtime wrote it
}

// leakOption adjusts which goroutines the check ignores.
type leakOption func(*leakFilter)

type leakFilter struct {
	ids map[int]bool // goroutines ignored by id
	top []string     // goroutines ignored by the function on top of their stack
}

// ignoreCurrent ignores the goroutines running now (goleak's IgnoreCurrent).
func ignoreCurrent() leakOption {
	ids := map[int]bool{}
	for _, g := range allGoroutines() {
		ids[g.id] = true
	}
	return func(f *leakFilter) {
		for id := range ids {
			f.ids[id] = true
		}
	}
}

// ignoreTopFunction ignores goroutines with fn on top of their stack (goleak's
// IgnoreTopFunction).
func ignoreTopFunction(fn string) leakOption {
	return func(f *leakFilter) { f.top = append(f.top, fn) }
}

// stackDump is runtime.Stack of every goroutine, in a buffer large enough to hold it.
func stackDump(all bool) []byte {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, all)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

func allGoroutines() []goroutine {
	gs, err := parseGoroutines(string(stackDump(true)))
	if err != nil {
		panic("rxetest: reading runtime.Stack: " + err.Error())
	}
	return gs
}

// currentGoroutine is the id of the calling goroutine.
func currentGoroutine() int {
	gs, err := parseGoroutines(string(stackDump(false)))
	if err != nil || len(gs) != 1 {
		panic(fmt.Sprintf("rxetest: reading runtime.Stack of the current goroutine: %v", err))
	}
	return gs[0].id
}

// parseGoroutines reads a runtime.Stack dump: entries separated by blank lines, each a
// header "goroutine ID [STATE]:" (the runtime may add fields between the id and the
// state), then per frame a function line and a tab-indented file line, and last perhaps
// "created by FUNC in goroutine N" with its file line.
func parseGoroutines(dump string) ([]goroutine, error) {
	var out []goroutine
	for entry := range strings.SplitSeq(strings.TrimSpace(dump), "\n\n") {
		lines := strings.Split(entry, "\n")
		g, err := parseGoroutineHeader(lines[0])
		if err != nil {
			return nil, err
		}
		g.trace = entry
		for _, l := range lines[1:] {
			if l == "" || strings.HasPrefix(l, "\t") {
				continue
			}
			if fn, ok := strings.CutPrefix(l, "created by "); ok {
				fn, _, _ = strings.Cut(fn, " in goroutine ")
				g.funcs = append(g.funcs, fn)
				continue
			}
			if i := strings.LastIndexByte(l, '('); i > 0 {
				l = l[:i]
			}
			g.funcs = append(g.funcs, l)
		}
		out = append(out, g)
	}
	return out, nil
}

func parseGoroutineHeader(h string) (goroutine, error) {
	rest, ok := strings.CutPrefix(h, "goroutine ")
	open, end := strings.IndexByte(rest, '['), strings.LastIndex(rest, "]:")
	if !ok || open < 0 || end < open {
		return goroutine{}, fmt.Errorf("goroutine header %q", h)
	}
	idField, _, _ := strings.Cut(rest[:open], " ")
	id, err := strconv.Atoi(idField)
	if err != nil {
		return goroutine{}, fmt.Errorf("goroutine header %q: %w", h, err)
	}
	state, _, _ := strings.Cut(rest[open+1:end], ",")
	return goroutine{id: id, state: state}, nil
}

// top is the function on top of g's stack ("" if none).
func (g goroutine) top() string {
	if len(g.funcs) == 0 {
		return ""
	}
	return g.funcs[0]
}

func (g goroutine) has(fn string) bool {
	for _, f := range g.funcs {
		if f == fn {
			return true
		}
	}
	return false
}

// ignoredByDefault reports the goroutines the check never counts: the testing package's,
// blocked on a test (a parent waiting in Run for its subtest, a test waiting in Parallel
// for its turn, tRunner waiting for its parallel subtests), os/signal's dispatcher, and
// cgo's goroutines in a system call.
func ignoredByDefault(g goroutine) bool {
	switch top := g.top(); {
	case top == "testing.RunTests", top == "testing.(*T).Run", top == "testing.(*T).Parallel",
		top == "testing.(*F).Fuzz", strings.HasPrefix(top, "testing.tRunner"):
		return strings.HasPrefix(g.state, "chan receive")
	case top == "os/signal.signal_recv", top == "os/signal.loop":
		return true
	}
	if g.has("runtime.ensureSigM") {
		return true
	}
	return g.has("runtime.goexit") && strings.HasPrefix(g.state, "syscall")
}

// leakedGoroutines returns the goroutines, other than the caller, that opts and the
// defaults do not ignore.
func leakedGoroutines(opts ...leakOption) []goroutine {
	f := &leakFilter{ids: map[int]bool{currentGoroutine(): true}}
	for _, o := range opts {
		o(f)
	}
	var out []goroutine
	for _, g := range allGoroutines() {
		if f.ids[g.id] || ignoredByDefault(g) || f.ignoresTop(g) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func (f *leakFilter) ignoresTop(g goroutine) bool {
	for _, fn := range f.top {
		if g.top() == fn {
			return true
		}
	}
	return false
}

// leakWait bounds how long findLeakedGoroutines waits for goroutines to end.
var leakWait = 5 * time.Second

// findLeakedGoroutines returns an error describing the goroutines that leakedGoroutines
// finds, once they have had time to end: it looks again, with a growing pause, until none
// is left or leakWait has passed (goroutines a test stops often end just after it returns).
func findLeakedGoroutines(opts ...leakOption) error {
	deadline := time.Now().Add(leakWait)
	pause := time.Millisecond
	for {
		gs := leakedGoroutines(opts...)
		if len(gs) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			fmt.Fprintf(&b, "found %d unexpected goroutine(s):", len(gs))
			for _, g := range gs {
				fmt.Fprintf(&b, "\n[%s\n]", g.trace)
			}
			return fmt.Errorf("%s", b.String())
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}
