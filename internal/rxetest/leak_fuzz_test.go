package rxetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseResources feeds the reader of `rdma -j resource show <kind>` arbitrary output
// for each kind. Seeds: the outputs recorded in testdata/rdma-resource on both roots. An
// accepted output has one Resource of the asked kind per array element, and the
// resources, written back as rdma writes them, read back unchanged.
func FuzzParseResources(f *testing.F) {
	for _, root := range []string{"host", "sid"} {
		for i, kind := range Kinds {
			data, err := os.ReadFile(filepath.Join("testdata/rdma-resource", root, kind+".json"))
			require.NoError(f, err)
			f.Add(uint8(i), data)
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		kind := Kinds[int(k)%len(Kinds)]
		rs, err := parseResources(kind, data)
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		var elems []json.RawMessage
		require.NoError(t, json.Unmarshal(data, &elems))
		require.Len(t, rs, len(elems))
		var back []map[string]any
		for _, r := range rs {
			require.Equal(t, kind, r.Kind)
			back = append(back, map[string]any{"ifname": r.Dev, idField[kind]: r.ID, "pid": r.PID, "comm": r.Comm})
		}
		if back == nil {
			back = []map[string]any{}
		}
		out, err := json.Marshal(back)
		require.NoError(t, err)
		again, err := parseResources(kind, out)
		require.NoError(t, err, "%s", out)
		require.Equal(t, rs, again, "%s", out)
	})
}
