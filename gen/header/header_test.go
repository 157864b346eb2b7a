package header

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/internal/testinputs"
)

func count(fs []Func) (extern, inline int) {
	for _, f := range fs {
		if f.Extern {
			extern++
		}
		if f.Inline {
			inline++
		}
	}
	return extern, inline
}

func byName(fs []Func) map[string]Func {
	m := map[string]Func{}
	for _, f := range fs {
		m[f.Name] = f
	}
	return m
}

func TestListCounts(t *testing.T) {
	rc := testinputs.Include(t, "rdma-core-65")
	rpma := testinputs.Include(t, "librpma")
	for _, tc := range []struct {
		include, header       string
		total, extern, inline int
		extra                 []string
	}{
		// verbs.h: 87 extern declarations and 97 static inline
		// definitions. Three inline implementations fold into the public
		// macro names (ibv_query_port, ibv_reg_mr, ibv_reg_mr_iova), which
		// also have an extern (compat) declaration: 184 - 3 names.
		{rc, "infiniband/verbs.h", 181, 87, 97, nil},
		{rc, "infiniband/ionic_dv.h", 6, 6, 0, nil},
		// rdma_cma.h and rdma_verbs.h: 62 together; rdma_verbs.h declares
		// rdma_create_srq, rdma_create_srq_ex and rdma_destroy_srq extern.
		{rc, "rdma/rdma_cma.h", 43, 41, 2, nil},
		{rc, "rdma/rdma_verbs.h", 19, 3, 16, nil},
		{rpma, "librpma.h", 84, 84, 0, []string{rc}},
	} {
		t.Run(tc.header, func(t *testing.T) {
			fs, err := List(tc.include, tc.header, tc.extra...)
			require.NoError(t, err)
			ext, inl := count(fs)
			assert.Equal(t, tc.total, len(fs), "functions")
			assert.Equal(t, tc.extern, ext, "extern")
			assert.Equal(t, tc.inline, inl, "inline")
			for _, f := range fs {
				assert.Equal(t, tc.header, f.Header, f.Name)
			}
		})
	}
}

func TestListMacroRenamed(t *testing.T) {
	fs, err := List(testinputs.Include(t, "rdma-core-65"), "infiniband/verbs.h")
	require.NoError(t, err)
	m := byName(fs)
	for name, impl := range map[string]string{
		"ibv_query_port":  "___ibv_query_port",
		"ibv_reg_mr":      "__ibv_reg_mr",
		"ibv_reg_mr_iova": "__ibv_reg_mr_iova",
	} {
		f, ok := m[name]
		require.True(t, ok, "%s missing", name)
		assert.Equal(t, impl, f.Impl, name)
		assert.True(t, f.Extern, "%s keeps its compat symbol", name)
		assert.NotContains(t, m, impl, "implementation name must not be listed")
	}
	assert.True(t, m["ibv_reg_mr"].Pointer)
	assert.Equal(t, "int", m["ibv_query_port"].Result)
	assert.True(t, m["ibv_ack_cq_events"].Void)
	assert.True(t, m["ibv_poll_cq"].Inline)
	// Implementation functions that no macro renames stay under their own
	// name.
	assert.Contains(t, m, "_ibv_query_gid_ex")
}

func TestListSkipsTypedefs(t *testing.T) {
	fs, err := List(testinputs.Include(t, "librpma"), "librpma.h", testinputs.Include(t, "rdma-core-65"))
	require.NoError(t, err)
	m := byName(fs)
	assert.NotContains(t, m, "rpma_log_function", "a function typedef is not a function")
	assert.Contains(t, m, "rpma_log_set_function")
	for _, f := range fs {
		assert.True(t, strings.HasPrefix(f.Name, "rpma_"), f.Name)
	}
}

func TestListMissingHeader(t *testing.T) {
	_, err := List(t.TempDir(), "no/such.h")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no/such.h")
}
