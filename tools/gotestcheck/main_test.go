package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"fail","Package":"p","Test":"TestB"}`,
		`{"Action":"skip","Package":"p","Test":"TestC"}`,
		`{"Action":"skip","Package":"q"}`,
		`{"Action":"fail","Package":"p"}`,
		`not json`,
	}, "\n")
	var out bytes.Buffer
	s, err := check(strings.NewReader(in), &out)
	require.NoError(t, err)
	require.Equal(t, 1, s.passed)
	require.Equal(t, 1, s.failed)
	require.Equal(t, 1, s.skipped)
	require.Equal(t, []string{"p.TestC"}, s.skippedNames)
	require.Equal(t, []string{"q"}, s.noTests)
	require.Equal(t, []string{"p"}, s.failedPkgs)
	require.Equal(t, "=== RUN   TestA\nnot json\n", out.String())
}
