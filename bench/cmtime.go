package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// cmtimeFullConnect reads, from the output of cmtime's client, the "full
// connect" time per connection (its avg/conn column, µs: the wall time
// from the first rdma_create_id to the last connection established, over
// the connections) of its test with QPs: the table after the line
// "qp_conn <n>" (cmtime prints "cm_conn" for its runs without QPs).
func cmtimeFullConnect(out string, n int) (float64, error) {
	inQP := false
	for l := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 2 && (f[0] == "qp_conn" || f[0] == "cm_conn"):
			inQP = f[0] == "qp_conn" && f[1] == strconv.Itoa(n)
		case inQP && len(f) >= 8 && f[0] == "full" && f[1] == "connect":
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil || v <= 0 {
				return 0, fmt.Errorf("cmtime: full connect avg/conn is %q", f[2])
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("cmtime: no full connect time for %d connections with QPs in:\n%s", n, out)
}
