package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// perftestColumn reads the column named col of the result line under the
// header that names it. Header names may be two words ("BW peak[MiB/sec]",
// "99% percentile[usec]"): a word that neither starts with '#' nor ends
// with ']' belongs to the next one.
func perftestColumn(out, col string) (float64, error) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		var names []string
		pending := ""
		for _, w := range strings.Fields(l) {
			if !strings.HasPrefix(w, "#") && !strings.HasSuffix(w, "]") {
				pending += w + " "
				continue
			}
			names = append(names, pending+w)
			pending = ""
		}
		idx := slices.Index(names, col)
		if idx < 0 || i+1 >= len(lines) {
			continue
		}
		v := strings.Fields(lines[i+1])
		if idx >= len(v) {
			return 0, fmt.Errorf("perftest: no %s value in %q", col, lines[i+1])
		}
		f, err := strconv.ParseFloat(v[idx], 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
			return 0, fmt.Errorf("perftest: %s is %q (is the guest's TSC rate known? see make bench)", col, v[idx])
		}
		return f, nil
	}
	return 0, fmt.Errorf("perftest: no column %s in:\n%s", col, out)
}
