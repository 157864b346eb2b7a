//go:build linux

package rxebed

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseControl feeds the host's reader of the guest's control lines arbitrary lines.
// Seeds: the lines a run writes (hello, ready, exit, a setup failure). An error quotes the
// line; an accepted line is one the guest can write: its String parses back to the same
// control, holds no line break, and keeps status and codes in range.
func FuzzParseControl(f *testing.F) {
	for _, c := range []control{
		{Word: ctlHello},
		{Word: ctlReady, Uptime: "3.41"},
		{Word: ctlExit, Status: 139, Out: 20 << 20, Err: 17},
		{Word: ctlFail, Code: ExitGuestSetup, Msg: "mount 9p on /host: no such device\nmodprobe 9p"},
	} {
		f.Add(c.String())
	}
	f.Add("exit 0 1 2 3")
	f.Add("fail x boom")
	f.Fuzz(func(t *testing.T, line string) {
		c, err := parseControl(line)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "control line "+strconv.Quote(line)+": "), err.Error())
			return
		}
		s := c.String()
		require.NotContains(t, s, "\n")
		require.NotContains(t, s, "\r")
		again, err := parseControl(s)
		require.NoError(t, err, "the guest's form %q of %q", s, line)
		require.Equal(t, c, again)
		switch c.Word {
		case ctlExit:
			require.True(t, c.Status >= 0 && c.Status <= 255 && c.Out >= 0 && c.Err >= 0, "%+v", c)
		case ctlFail:
			require.True(t, c.Code >= ExitUsage && c.Code <= ExitNoStatus, "%+v", c)
		}
	})
}
