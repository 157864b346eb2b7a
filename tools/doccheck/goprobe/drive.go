//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// probeTimeout bounds one probe's child, as the C harness's alarm does.
const probeTimeout = 20 * time.Second

// Result is one Go probe's outcome, printed as a JSON line (side "go").
type Result struct {
	ID     int    `json:"id"`
	Side   string `json:"side"`
	Status string `json:"status"` // "ok", or why the probe did not complete
	// Err is the error the snippet returned ("" for nil); Is lists the errno and library
	// code names errors.Is matches it against; Func is the C function an *Error names.
	Err  string   `json:"err,omitempty"`
	Is   []string `json:"is,omitempty"`
	Func string   `json:"func,omitempty"`
	// Guard is the C function a *dl.DeviceError names: a direct-verbs wrapper's guard
	// refused the call (spec/guards).
	Guard string `json:"guard,omitempty"`
	// Value is the result the snippet asked to compare with C's (see same and count).
	Value    int64 `json:"value,omitempty"`
	HasValue bool  `json:"has_value,omitempty"`
	// LeakUS is how long the leak check took, in µs (its cost, for doccheck's summary).
	LeakUS int64 `json:"leak_us,omitempty"`
}

// Leftovers is the last line (side "resources"): the verbs objects of user processes after
// every probe, or why they could not be listed.
type Leftovers struct {
	Side      string   `json:"side"`
	Objects   []string `json:"objects"`
	ListError string   `json:"list_error,omitempty"`
}

func drive(harness string, ids []int) error {
	out := json.NewEncoder(os.Stdout)
	if harness != "" {
		cmd := exec.Command(harness)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("the C harness: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := out.Encode(runChild(self, id)); err != nil {
			return err
		}
	}
	left := Leftovers{Side: "resources", Objects: []string{}}
	rs, err := rxetest.AllResources()
	if err != nil {
		left.ListError = err.Error()
	}
	for _, r := range rs {
		left.Objects = append(left.Objects, r.String())
	}
	return out.Encode(left)
}

// runChild runs probe id in a child process and decodes its result line.
func runChild(self string, id int) Result {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "-probe", strconv.Itoa(id))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var r Result
	if jerr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r); jerr == nil && r.ID == id && err == nil {
		return r
	}
	r = Result{ID: id, Side: "go"}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Status = fmt.Sprintf("hung for %s", probeTimeout)
	case errors.As(err, &ee):
		r.Status = exitStatus(ee, stderr.Bytes())
	case err != nil:
		r.Status = "child: " + err.Error()
	default:
		r.Status = fmt.Sprintf("child printed no result: %q", stdout.String())
	}
	return r
}

// exitStatus is the status of a child that did not exit 0: how it ended, with the signal
// that ended it in parentheses (doccheck's crash map reads it), and its last line of stderr.
func exitStatus(ee *exec.ExitError, stderr []byte) string {
	sig := ""
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = " (" + unix.SignalName(ws.Signal()) + ")"
	} else if m := runtimeSignal.FindSubmatch(stderr); m != nil {
		sig = " (" + string(m[1]) + ")"
	}
	return fmt.Sprintf("child %s%s: %s", ee.ProcessState, sig, lastLine(stderr))
}

// runtimeSignal finds the signal the Go runtime reports when a signal kills the process
// ("[signal SIGSEGV: segmentation violation …]" for a fault in C code, "SIGABRT: abort").
var runtimeSignal = regexp.MustCompile(`(?m)(?:^|\[signal )(SIG[A-Z0-9]+)[: ]`)

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}
