package ibv

import (
	"fmt"
	"strconv"
	"strings"
)

// Bytes is the MTU in bytes: 256, 512, 1024, 2048 or 4096; 0 for a value
// that is none of the IBV_MTU_* ones.
func (m MTU) Bytes() int {
	if m < MTU256 || m > MTU4096 {
		return 0
	}
	return 128 << m
}

// MTUFromBytes is the MTU of n bytes: n must be 256, 512, 1024, 2048 or
// 4096.
func MTUFromBytes(n int) (MTU, error) {
	for m := MTU256; m <= MTU4096; m++ {
		if m.Bytes() == n {
			return m, nil
		}
	}
	return 0, fmt.Errorf("ibv: no IBV_MTU_* of %d bytes (want 256, 512, 1024, 2048 or 4096)", n)
}

// ParseMTU parses an MTU written in bytes ("1024") or by its C name
// ("IBV_MTU_1024").
func ParseMTU(s string) (MTU, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "IBV_MTU_"))
	if err != nil {
		return 0, fmt.Errorf("ibv: MTU %q: want a byte count (256 ... 4096) or IBV_MTU_<bytes>", s)
	}
	return MTUFromBytes(n)
}
