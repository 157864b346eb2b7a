//go:build linux

package rxetest

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

// FuzzParseDump feeds the reader of the kernel's resource dumps (RDMA netlink) arbitrary
// messages for each kind. Seeds: the messages recorded in testdata/rdma-netlink, and an
// encoded srq dump (the recording has none). An accepted message yields only objects of the
// asked kind, which, encoded again as the kernel encodes them, read back unchanged.
func FuzzParseDump(f *testing.F) {
	for i, k := range resKinds {
		for _, m := range recorded(f, k.name) {
			f.Add(uint8(i), m)
		}
	}
	srq, _ := kindByName("srq")
	for _, m := range encodeDump(srq, []Resource{{Kind: "srq", Dev: "rxe_a", ID: 1, PID: 5}}) {
		f.Add(uint8(4), m)
	}
	f.Fuzz(func(t *testing.T, ki uint8, msg []byte) {
		k := resKinds[int(ki)%len(resKinds)]
		rs, err := parseDump(k, [][]byte{msg})
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		for _, r := range rs {
			require.Equal(t, k.name, r.Kind)
			require.NotEmpty(t, r.Dev)
		}
		again, err := parseDump(k, encodeDump(k, rs))
		require.NoError(t, err)
		if len(rs) == 0 {
			require.Empty(t, again)
			return
		}
		require.Equal(t, rs, again)
	})
}
