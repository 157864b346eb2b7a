//go:build linux

package rxebed

import (
	"fmt"
	"strconv"
	"strings"
)

// The guest's init reports to the host over the control port, one line each:
//
//	hello                               init started (the boot timer stops)
//	ready <uptime>                      every rxe port is ACTIVE; the guest's uptime in s
//	exit <status> <stdout> <stderr>     the command's exit status (0..255) and how many bytes
//	                                    of stdout and stderr it wrote
//	fail <code> <message>               the bed failed with exit code 110..119
//
// The host answers "bye" once all output has arrived (after exit).
const (
	ctlHello = "hello"
	ctlReady = "ready"
	ctlExit  = "exit"
	ctlFail  = "fail"
)

// control is one control line.
type control struct {
	Word     string
	Uptime   string // ready
	Status   int    // exit
	Out, Err int64  // exit: bytes the command wrote to stdout and stderr
	Code     int    // fail: one of the Exit* codes
	Msg      string // fail: one line
}

// String is the line as the guest writes it (without its "\n"); a message's line breaks
// become " | ".
func (c control) String() string {
	switch c.Word {
	case ctlReady:
		if c.Uptime == "" {
			return ctlReady
		}
		return ctlReady + " " + c.Uptime
	case ctlExit:
		return fmt.Sprintf("%s %d %d %d", ctlExit, c.Status, c.Out, c.Err)
	case ctlFail:
		msg := strings.NewReplacer("\r\n", " | ", "\n", " | ", "\r", " | ").Replace(c.Msg)
		if msg == "" {
			return fmt.Sprintf("%s %d", ctlFail, c.Code)
		}
		return fmt.Sprintf("%s %d %s", ctlFail, c.Code, msg)
	}
	return c.Word
}

// parseControl reads one control line (without its line break); an error quotes it.
func parseControl(line string) (control, error) {
	bad := func(format string, args ...any) (control, error) {
		return control{}, fmt.Errorf("control line %q: %s", line, fmt.Sprintf(format, args...))
	}
	if strings.ContainsAny(line, "\r\n") {
		return bad("a line break inside the line")
	}
	word, rest, _ := strings.Cut(line, " ")
	c := control{Word: word}
	switch word {
	case ctlHello:
		if rest != "" {
			return bad("hello takes nothing")
		}
	case ctlReady:
		c.Uptime = rest
	case ctlExit:
		f := strings.Fields(rest)
		if len(f) != 3 {
			return bad("want exit <status> <stdout bytes> <stderr bytes>")
		}
		var err error
		if c.Status, err = strconv.Atoi(f[0]); err != nil || c.Status < 0 || c.Status > 255 {
			return bad("status %q is not 0..255", f[0])
		}
		if c.Out, err = strconv.ParseInt(f[1], 10, 64); err != nil || c.Out < 0 {
			return bad("stdout byte count %q is not a count", f[1])
		}
		if c.Err, err = strconv.ParseInt(f[2], 10, 64); err != nil || c.Err < 0 {
			return bad("stderr byte count %q is not a count", f[2])
		}
	case ctlFail:
		code, msg, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(code)
		if err != nil || n < ExitUsage || n > ExitNoStatus {
			return bad("code %q is not a bed exit code (%d..%d)", code, ExitUsage, ExitNoStatus)
		}
		c.Code, c.Msg = n, msg
	default:
		return bad("unknown word %q", word)
	}
	return c, nil
}
