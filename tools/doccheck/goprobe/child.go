//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/dl"
	"github.com/goverbs/goverbs/rdmacm"
	"github.com/goverbs/goverbs/rpma"
)

// fixtureError is the panic of a fixture that could not be set up.
type fixtureError struct {
	name string
	err  error
}

func (e fixtureError) Error() string { return fmt.Sprintf("fixture %s: %v", e.name, e.err) }

// must panics with a fixtureError when a fixture's set-up step fails.
func must(name string, err error) {
	if err != nil {
		panic(fixtureError{name, err})
	}
}

// child runs one probe: the snippet, then the release of what it kept and the fixtures'
// teardown, then the leak check (leftovers), and prints its Result. It returns the exit
// status.
func child(id int) int {
	r := Result{ID: id, Side: "go", Status: "ok"}
	fn, ok := probes[id]
	if !ok {
		r.Status = "no Go probe with this id"
	} else {
		status, err := call(fn)
		r.Status = status
		if err != nil {
			describe(&r, err)
		}
		r.Value, r.HasValue = recorded.value, recorded.set
		if msg := cleanup(); msg != "" && r.Status == "ok" {
			r.Status = "cleanup failed: " + msg
		}
		start := time.Now()
		msg := leftovers()
		r.LeakUS = time.Since(start).Microseconds()
		if msg != "" {
			switch {
			case r.Status == "ok":
				r.Status = "leaked: " + msg
			case strings.HasPrefix(r.Status, "cleanup failed: "):
				r.Status += "; leaked: " + msg
			}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return 2
	}
	return 0
}

// call runs a snippet; a panic fails the probe (status says why), not the run.
func call(fn func() error) (status string, err error) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case fixtureError:
			status = "fixture set-up failed: " + p.Error()
		default:
			status = fmt.Sprintf("panicked: %v", p)
		}
	}()
	return "ok", fn()
}

// cleanup releases what the snippet kept, then tears the fixtures down, newest first; it
// returns what failed.
func cleanup() (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprintf("panicked: %v", p)
		}
	}()
	var errs []error
	for i := len(undo) - 1; i >= 0; i-- {
		if err := undo[i](); err != nil {
			errs = append(errs, err)
		}
	}
	undo = nil
	if err := errors.Join(errs...); err != nil {
		return err.Error()
	}
	return ""
}

// sentinels are the library codes errors.Is can match, by C name.
var sentinels = []*ibv.Error{
	rpma.ErrAgain, rpma.ErrInval, rpma.ErrNomem, rpma.ErrNosupp, rpma.ErrNotSharedChnl,
	rpma.ErrNoCompletion, rpma.ErrNoEvent, rpma.ErrProvider, rpma.ErrSharedChannel, rpma.ErrUnknown,
	ibv.ErrReregMRErrCodeCmd, ibv.ErrReregMRErrCodeCmdAndDoForkNew, ibv.ErrReregMRErrCodeDontForkNew,
	ibv.ErrReregMRErrCodeDoForkOld, ibv.ErrReregMRErrCodeInput,
	rdmacm.EAIBadFlags, rdmacm.EAINoName, rdmacm.EAIAgain, rdmacm.EAIFail, rdmacm.EAINoData, rdmacm.EAIFamily,
	rdmacm.EAISockType, rdmacm.EAIService, rdmacm.EAIAddrFamily, rdmacm.EAIMemory, rdmacm.EAISystem, rdmacm.EAIOverflow,
}

// describe records err's message, the errnos and library codes errors.Is matches, and the
// C function an *Error names.
func describe(r *Result, err error) {
	r.Err = err.Error()
	for n := 1; n < 4096; n++ {
		if errors.Is(err, syscall.Errno(n)) {
			// A kernel-internal errno has no name (ENOTSUPP, 524): doccheck names it "errno 524".
			name := unix.ErrnoName(syscall.Errno(n))
			if name == "" {
				name = fmt.Sprintf("errno %d", n)
			}
			r.Is = append(r.Is, name)
		}
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			r.Is = append(r.Is, s.Name)
		}
	}
	var e *ibv.Error
	if errors.As(err, &e) {
		r.Func = e.Func
	}
	var d *dl.DeviceError
	if errors.As(err, &d) {
		r.Guard = d.Func
	}
}
