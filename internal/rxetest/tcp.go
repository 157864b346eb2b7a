//go:build linux

package rxetest

import (
	"fmt"
	"os"
	"strings"
)

// TCPListening reports whether some socket listens on the TCP port (read from /proc,
// so that probing does not consume the one connection a server such as ibv_rc_pingpong
// accepts).
func TCPListening(port int) bool {
	want := fmt.Sprintf(":%04X ", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) > 3 && strings.HasSuffix(fields[1]+" ", want) && fields[3] == "0A" {
				return true
			}
		}
	}
	return false
}
