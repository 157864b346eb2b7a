package layouttest

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// Parse reads the C program's output (cprog.go), one line each:
//
//	R <record> <size> <align>
//	F <record> <member> <offset> <size>
//	C <constant> <value>
//
// Record names contain a space ("struct ibv_qp"): fields are counted from the end. An
// error names the line.
func Parse(out string) (*CSide, error) {
	c := &CSide{Records: map[string][2]uintptr{}, Fields: map[string]map[string][2]uintptr{}, Consts: map[string]uint64{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		w := strings.Fields(sc.Text())
		var nums []uint64
		num := func(ss ...string) error {
			nums = nums[:0]
			for _, s := range ss {
				u, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: %q: not a number: %q", n, sc.Text(), s)
				}
				nums = append(nums, u)
			}
			return nil
		}
		switch {
		case len(w) >= 4 && w[0] == "R":
			if err := num(w[len(w)-2:]...); err != nil {
				return nil, err
			}
			c.Records[strings.Join(w[1:len(w)-2], " ")] = [2]uintptr{uintptr(nums[0]), uintptr(nums[1])}
		case len(w) >= 5 && w[0] == "F":
			if err := num(w[len(w)-2:]...); err != nil {
				return nil, err
			}
			r := strings.Join(w[1:len(w)-3], " ")
			if c.Fields[r] == nil {
				c.Fields[r] = map[string][2]uintptr{}
			}
			c.Fields[r][w[len(w)-3]] = [2]uintptr{uintptr(nums[0]), uintptr(nums[1])}
		case len(w) == 3 && w[0] == "C":
			if err := num(w[2]); err != nil {
				return nil, err
			}
			c.Consts[w[1]] = nums[0]
		default:
			return nil, fmt.Errorf("line %d: unexpected line %q", n, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the C program's output: %w", err)
	}
	return c, nil
}
