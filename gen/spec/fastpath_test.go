package spec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFastPath: the real list loads, and each mistake in a list is an error naming its
// place.
func TestFastPath(t *testing.T) {
	s, err := Load(filepath.Join("..", "..", "spec"))
	require.NoError(t, err)
	require.Contains(t, s.FastPath(LibIBVerbs), "ibv_poll_cq")
	require.Empty(t, s.FastPath(LibRPMA))
	require.Len(t, s.FastPolls(LibIBVerbs), 1)
	require.Equal(t, "ibv_start_poll", s.FastPolls(LibIBVerbs)[0].Start)

	for name, c := range map[string]struct{ file, body, want string }{
		"unknown function": {"libibverbs.yaml", "library: libibverbs\nreason: r\nfunctions: [ibv_no_such]\n", `libibverbs.yaml:3: unknown function "ibv_no_such"`},
		"twice":            {"libibverbs.yaml", "library: libibverbs\nreason: r\nfunctions: [ibv_poll_cq, ibv_poll_cq]\n", "listed twice"},
		"other library":    {"libibverbs.yaml", "library: libibverbs\nreason: r\nfunctions: [rdma_connect]\n", "belongs to librdmacm"},
		"no reason":        {"libibverbs.yaml", "library: libibverbs\nfunctions: [ibv_poll_cq]\n", "needs a reason"},
		"wrong file":       {"librdmacm.yaml", "library: libibverbs\nreason: r\nfunctions: [ibv_poll_cq]\n", "must live in libibverbs.yaml"},
		"unknown field":    {"libibverbs.yaml", "library: libibverbs\nreason: r\nfunction: [ibv_poll_cq]\n", "function"},
		"poll of a function not listed": {"libibverbs.yaml", "library: libibverbs\nreason: r\nfunctions: [ibv_start_poll, ibv_next_poll, ibv_end_poll]\n" +
			"polls:\n  - {name: p, go: P, record: R, start: ibv_start_poll, next: ibv_next_poll, end: ibv_end_poll, getters: [{function: ibv_wc_read_opcode}]}\n",
			`"ibv_wc_read_opcode" is not a fast-path function of libibverbs`},
		"poll without getters": {"libibverbs.yaml", "library: libibverbs\nreason: r\nfunctions: [ibv_start_poll]\n" +
			"polls:\n  - {name: p, go: P, record: R, start: ibv_start_poll}\n", "a poll needs a name, go, record and getters"},
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, c.file), []byte(c.body), 0o644))
		set := &Set{byName: s.byName}
		err := set.loadFastPath(dir)
		require.ErrorContains(t, err, c.want, name)
	}
}
