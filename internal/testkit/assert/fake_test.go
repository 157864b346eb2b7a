package assert

import "fmt"

// fakeT records what an assertion reports.
type fakeT struct {
	errors  []string
	helpers int
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Helper() { f.helpers++ }
