// Command gotestcheck reads `go test -json` on stdin, prints the tests' output as go test -v
// would, and fails the run when any test failed or was skipped, or no test ran at all (with
// -require-tests, also when a package has no tests). It is how `make test` turns "a test
// that needs rxe and did not run" into a failure instead of a skip. It ends with the line
// "N passed, N failed, N skipped".
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// event is one line of go test -json (see go doc test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type summary struct {
	passed, failed, skipped int
	skippedNames            []string
	noTests                 []string // packages without tests
	failedPkgs              []string
	lines                   int
}

func check(r io.Reader, out io.Writer) (*summary, error) {
	s := &summary{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			// Not an event (go vet or build output printed around it): pass it through.
			fmt.Fprintln(out, sc.Text())
			continue
		}
		s.lines++
		switch ev.Action {
		case "output", "build-output":
			fmt.Fprint(out, ev.Output)
		case "pass":
			if ev.Test != "" {
				s.passed++
			}
		case "fail", "build-fail":
			if ev.Test != "" {
				s.failed++
			} else {
				s.failedPkgs = append(s.failedPkgs, ev.Package)
			}
		case "skip":
			if ev.Test == "" {
				s.noTests = append(s.noTests, ev.Package)
				continue
			}
			s.skipped++
			s.skippedNames = append(s.skippedNames, ev.Package+"."+ev.Test)
		}
	}
	return s, sc.Err()
}

func main() {
	allowSkip := flag.Bool("allow-skip", false, "do not fail on skipped tests")
	requireTests := flag.Bool("require-tests", false, "fail when a package has no tests")
	flag.Parse()
	s, err := check(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gotestcheck: reading go test -json: %v\n", err)
		os.Exit(2)
	}
	bad := false
	if len(s.failedPkgs) > 0 {
		sort.Strings(s.failedPkgs)
		fmt.Printf("gotestcheck: failed packages: %v\n", s.failedPkgs)
		bad = true
	}
	if s.skipped > 0 && !*allowSkip {
		fmt.Printf("gotestcheck: %d skipped (a test that did not run is a failure here):\n", s.skipped)
		for _, n := range s.skippedNames {
			fmt.Printf("  %s\n", n)
		}
		bad = true
	}
	if len(s.noTests) > 0 && *requireTests {
		fmt.Printf("gotestcheck: packages without tests: %v\n", s.noTests)
		bad = true
	}
	if s.passed == 0 {
		fmt.Println("gotestcheck: no test ran")
		bad = true
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
	if bad || s.failed > 0 {
		os.Exit(1)
	}
}
