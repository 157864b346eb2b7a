package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCheck feeds the go test -json reader arbitrary input. Seeds: TestCheck's stream,
// and testdata/fuzz/FuzzCheck (events recorded from real go test -json runs). The reader
// never fails on input with short lines; it counts each test result at most once per
// event; a line that is not an event passes through unchanged; and appending one more
// passing test's event (metamorphic check) adds exactly one to the passes and nothing else.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"skip","Package":"q"}`,
		`not json`,
	}, "\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s, err := check(bytes.NewReader(data), &out)
		require.NoError(t, err)
		require.LessOrEqual(t, s.passed+s.failed+s.skipped+len(s.noTests)+len(s.failedPkgs), s.lines)
		require.Len(t, s.skippedNames, s.skipped)

		// Lines that are not events come out as they went in.
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			var ev event
			if line != "" && json.Unmarshal([]byte(line), &ev) != nil {
				require.Contains(t, out.String(), line+"\n")
			}
		}

		more := append(append([]byte(nil), data...), "\n"+`{"Action":"pass","Package":"p","Test":"TestFuzzExtra"}`+"\n"...)
		s2, err := check(bytes.NewReader(more), &bytes.Buffer{})
		require.NoError(t, err)
		want := *s
		want.passed++
		want.lines++
		require.Equal(t, want, *s2)
	})
}
