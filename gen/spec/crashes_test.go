package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodCrashes = `library: libibverbs
reason: measured by doccheck's crash map
crashes:
  - function: ibv_create_cq
    class: cqe-huge
    signal: SIGSEGV
    c: [44, 65]
    go: [44]
    when: cqe is huge
    check: query max_cqe
`

func TestLoadCrashes(t *testing.T) {
	dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib, "crashes/libibverbs.yaml": goodCrashes})
	s, err := Load(dir)
	require.NoError(t, err)
	got := s.Crashes("ibv_create_cq")
	require.Len(t, got, 1)
	assert.Equal(t, Crash{Function: "ibv_create_cq", Class: "cqe-huge", Signal: "SIGSEGV", C: []int{44, 65}, Go: []int{44},
		When: "cqe is huge", Check: "query max_cqe"}, got[0])
	assert.Equal(t, "SIGSEGV", got[0].GoSig())
	assert.Empty(t, s.Crashes("ibv_destroy_cq"))
	assert.Equal(t, got, s.AllCrashes())
}

func TestLoadCrashesStrict(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"unknown function", "  - {function: ibv_nope, class: x, signal: SIGSEGV, c: [44], when: w}\n", `unknown function "ibv_nope"`},
		{"bad class", "  - {function: ibv_create_cq, class: Bad, signal: SIGSEGV, c: [44], when: w}\n", "lower-case words"},
		{"bad signal", "  - {function: ibv_create_cq, class: x, signal: segv, c: [44], when: w}\n", "want a signal name"},
		{"bad go signal", "  - {function: ibv_create_cq, class: x, signal: SIGSEGV, go_signal: boom, go: [44], when: w}\n", "want a signal name"},
		{"no releases", "  - {function: ibv_create_cq, class: x, signal: SIGSEGV, when: w}\n", "names the releases"},
		{"release not run", "  - {function: ibv_create_cq, class: x, signal: SIGSEGV, c: [33], when: w}\n", "release 33 is not one"},
		{"no when", "  - {function: ibv_create_cq, class: x, signal: SIGSEGV, c: [44]}\n", "says when"},
		{"twice", "  - {function: ibv_create_cq, class: x, signal: SIGSEGV, c: [44], when: w}\n  - {function: ibv_create_cq, class: x, signal: hang, c: [65], when: w}\n", "claimed twice"},
		{"unknown field", "  - {function: ibv_create_cq, class: x, signal: SIGSEGV, c: [44], when: w, roots: [host]}\n", "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib,
				"crashes/libibverbs.yaml": "library: libibverbs\nreason: r\ncrashes:\n" + tc.body})
			_, err := Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "crashes/libibverbs.yaml:")
		})
	}
	t.Run("no reason", func(t *testing.T) {
		dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib, "crashes/libibverbs.yaml": "library: libibverbs\ncrashes: []\n"})
		_, err := Load(dir)
		require.ErrorContains(t, err, "needs a reason")
	})
	t.Run("wrong file", func(t *testing.T) {
		dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib, "crashes/librdmacm.yaml": "library: libibverbs\nreason: r\n"})
		_, err := Load(dir)
		require.ErrorContains(t, err, "must live in libibverbs.yaml")
	})
}
