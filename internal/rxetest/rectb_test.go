//go:build linux

package rxetest

import (
	"fmt"
	"strings"
	"testing"
)

// recTB records what NoLeaks reports instead of failing the real test.
type recTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recTB) Helper()           {}
func (r *recTB) Cleanup(f func())  { r.cleanups = append(r.cleanups, f) }
func (r *recTB) Error(args ...any) { r.errs = append(r.errs, strings.TrimSpace(fmt.Sprint(args...))) }
func (r *recTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}
func (r *recTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}
