package layouttest

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

// format writes c as the C program does (records, then their fields, then constants;
// sorted, where the program follows the table's order).
func format(c *CSide) string {
	var b strings.Builder
	for _, r := range sortedKeys(c.Records) {
		fmt.Fprintf(&b, "R %s %d %d\n", r, c.Records[r][0], c.Records[r][1])
	}
	for _, r := range sortedKeys(c.Fields) {
		for _, f := range sortedKeys(c.Fields[r]) {
			fmt.Fprintf(&b, "F %s %s %d %d\n", r, f, c.Fields[r][f][0], c.Fields[r][f][1])
		}
	}
	for _, k := range sortedKeys(c.Consts) {
		fmt.Fprintf(&b, "C %s %d\n", k, c.Consts[k])
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var lineRe = regexp.MustCompile(`^line (\d+): `)

// FuzzParse feeds the reader of the layout program's output arbitrary text. Seeds: lines
// as the program prints them for ibv's records, members and constants. An error names a
// line of the text; accepted output, written back as the program writes it, reads back
// the same.
func FuzzParse(f *testing.F) {
	f.Add("R struct ibv_qp 160 8\nF struct ibv_qp qp_num 52 4\nF struct ibv_qp context 0 8\nR union ibv_gid 16 8\nC IBV_ACCESS_LOCAL_WRITE 1\nC IBV_WC_EX_WITH_BYTE_LEN 1\n")
	f.Add("R struct ibv_wc 48 8\nF struct ibv_wc wr_id 0 8\nC IBV_DEVICE_NAME_MAX 64\nC MAX 18446744073709551615\n")
	f.Add("R struct x 1\nC A -1\n")
	f.Fuzz(func(t *testing.T, out string) {
		c, err := Parse(out)
		if err != nil {
			m := lineRe.FindStringSubmatch(err.Error())
			if m == nil {
				require.True(t, strings.HasPrefix(err.Error(), "reading the C program's output: "), err.Error())
				return
			}
			n, _ := strconv.Atoi(m[1])
			require.True(t, n >= 1 && n <= strings.Count(out, "\n")+1, "line %d of %q: %v", n, out, err)
			return
		}
		again, err := Parse(format(c))
		require.NoError(t, err, format(c))
		require.Equal(t, c, again, format(c))
	})
}
