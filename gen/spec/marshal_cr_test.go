package spec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A string holding a CR is written double-quoted, with the CR as \r, and reads back the
// same; a literal block would lose it.
func TestMarshalKeepsCR(t *testing.T) {
	f := &File{Library: LibIBVerbs, Functions: []Function{{
		Name: "ibv_x", Header: "infiniband/verbs.h", GoName: "X", Convention: ZeroOrErrno,
		Doc:      Doc{Description: "one\r\ntwo\rthree"},
		Override: &Override{Reason: "0\r"},
	}}}
	out, err := Marshal(f)
	require.NoError(t, err)
	require.Contains(t, string(out), `reason: "0\r"`)
	require.Contains(t, string(out), `description: "one\r\ntwo\rthree"`)
	back, err := (&Set{byName: map[string]*Function{}}).loadData("spec/libibverbs.yaml", out)
	require.NoError(t, err, "%s", out)
	require.Equal(t, f.Functions[0].Doc, back.Functions[0].Doc)
	require.Equal(t, f.Functions[0].Override, back.Functions[0].Override)
}
