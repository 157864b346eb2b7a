//go:build linux

package rxetest

import (
	"flag"
	"testing"
)

// RunWithoutExamples runs a package's tests outside the bed (its TestMain in a "!rxe" file
// calls it): the Example functions that need the bed's devices are compiled but not run,
// unless -run or -skip on the command line say otherwise. In the bed (go test -tags rxe,
// make test-rxe) they run and check their output.
func RunWithoutExamples(m *testing.M) int {
	flag.Parse()
	if flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		if err := flag.Set("test.skip", "^Example"); err != nil {
			panic(err)
		}
	}
	return m.Run()
}
