//go:build linux

package rxebed

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// What the guest writes, the host reads back.
func TestControlRoundTrip(t *testing.T) {
	for _, c := range []control{
		{Word: ctlHello},
		{Word: ctlReady, Uptime: "?"},
		{Word: ctlExit, Status: 0, Out: 0, Err: 0},
		{Word: ctlExit, Status: 255, Out: 1 << 40, Err: 3},
		{Word: ctlFail, Code: ExitCommandFailed},
		{Word: ctlFail, Code: ExitRxeNotUp, Msg: "rxe_a not ACTIVE after 30s"},
	} {
		got, err := parseControl(c.String())
		require.NoError(t, err, c.String())
		require.Equal(t, c, got)
	}
}

// A failure message keeps to one line: its line breaks become " | ".
func TestControlMessageOneLine(t *testing.T) {
	c := control{Word: ctlFail, Code: ExitRxeNotUp, Msg: "rxe_a not ACTIVE\r\nrxe_b not ACTIVE\rafter 30s\n"}
	require.Equal(t, "fail 116 rxe_a not ACTIVE | rxe_b not ACTIVE | after 30s | ", c.String())
}

// A line the guest cannot have written is refused: in particular a fail line without a
// bed exit code, which would otherwise make rxe exit 0 although the bed failed.
func TestControlRefused(t *testing.T) {
	for line, want := range map[string]string{
		"":              `unknown word ""`,
		"hello there":   "hello takes nothing",
		"exit 0 1":      "want exit <status>",
		"exit 0 1 2 3":  "want exit <status>",
		"exit 256 0 0":  `status "256" is not 0..255`,
		"exit 0 -1 0":   `stdout byte count "-1"`,
		"exit 0 0 x":    `stderr byte count "x"`,
		"fail 0 boom":   `code "0" is not a bed exit code (110..119)`,
		"fail boom":     `code "boom" is not a bed exit code`,
		"fail 115 a\rb": "a line break inside the line",
		"bye":           `unknown word "bye"`,
	} {
		_, err := parseControl(line)
		require.ErrorContains(t, err, want, line)
		require.ErrorContains(t, err, "control line ", line)
	}
}
