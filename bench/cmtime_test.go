package bench

import (
	"os"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestCmtimeFullConnect reads the full-connect time of cmtime's run with
// QPs, not of its warm-up or of its run without QPs, and refuses output
// without one.
func TestCmtimeFullConnect(t *testing.T) {
	b, err := os.ReadFile("testdata/cmtime.txt")
	require.NoError(t, err)
	v, err := cmtimeFullConnect(string(b), 10)
	require.NoError(t, err)
	assert.Equal(t, 4321.0, v)
	_, err = cmtimeFullConnect(string(b), 100)
	assert.ErrorContains(t, err, "no full connect time for 100 connections")
	_, err = cmtimeFullConnect("qp_conn 10\nfull connect x 1 2 3 4 5\n", 10)
	assert.ErrorContains(t, err, `avg/conn is "x"`)
}
