package manpage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

// The seed pages of the five failure conventions the man pages use.
func TestSeedPages(t *testing.T) {
	for _, tc := range []struct {
		pkg, page, fn string
		res           Result
		want          spec.Convention
		success       string
		errors        []string
	}{
		{"rdma-core-65", "ibv_req_notify_cq", "ibv_req_notify_cq", ResultInt, spec.ZeroOrErrno, "0", nil},
		{"rdma-core-65", "ionic_dv_pd_set_rqcmb", "ionic_dv_pd_set_rqcmb", ResultInt, spec.ZeroOrErrno, "0", []string{"EINVAL", "EPERM"}},
		{"rdma-core-65", "ibv_create_cq", "ibv_create_cq", ResultPointer, spec.PointerOrNullErrno, "non-NULL", nil},
		{"rdma-core-65", "ibv_create_cq", "ibv_destroy_cq", ResultInt, spec.ZeroOrErrno, "0", nil},
		{"rdma-core-65", "rdma_get_send_comp", "rdma_get_send_comp", ResultInt, spec.CountOrMinusOneErrno, ">= 0", nil},
		{"librpma", "rpma_cq_wait", "rpma_cq_wait", ResultInt, spec.ZeroOrNegCode, "0",
			[]string{"RPMA_E_INVAL", "RPMA_E_NO_COMPLETION", "RPMA_E_PROVIDER", "RPMA_E_SHARED_CHANNEL"}},
		{"rdma-core-65", "ibv_query_gid_table", "ibv_query_gid_table", ResultInt, spec.CountOrNegErrno, ">= 0", nil},
		{"rdma-core-65", "ibv_poll_cq", "ibv_poll_cq", ResultInt, spec.CountOrNegative, ">= 0", nil},
		{"rdma-core-65", "ibv_get_cq_event", "ibv_ack_cq_events", ResultVoid, spec.Void, "", nil},
		{"rdma-core-65", "ibv_rate_to_mult", "ibv_rate_to_mult", ResultInt, spec.Value, "any", nil},
		{"rdma-core-65", "ibv_query_gid", "ibv_query_gid", ResultInt, spec.ZeroOrMinusOne, "0", nil},
		{"rdma-core-65", "ibv_create_wq", "ibv_create_wq", ResultPointer, spec.PointerOrNull, "non-NULL", nil},
		{"rdma-core-65", "ibv_get_pkey_index", "ibv_get_pkey_index", ResultInt, spec.CountOrMinusOne, ">= 0", nil},
		{"rdma-core-65", "rdma_bind_addr", "rdma_bind_addr", ResultInt, spec.ZeroOrMinusOneErrno, "0", nil},
		{"rdma-core-65", "ibv_alloc_buf", "ibv_export_buf_dmabuf_fd", ResultInt, spec.CountOrMinusOneErrno, ">= 0", []string{"ENODATA"}},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			p := load(t, tc.pkg, tc.page)
			funcs := pageFuncs(p)
			require.Contains(t, funcs, tc.fn)
			var rv []Block
			if s := p.Section("RETURN VALUE"); s != nil {
				rv = s.Blocks
			}
			c, err := Classify(SentencesFor(rv, tc.fn, funcs), tc.res)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Convention)
			assert.Equal(t, tc.success, c.Success)
			var names []string
			for _, e := range p.Errors(tc.fn, funcs) {
				names = append(names, e.Name)
				assert.NotEmpty(t, e.Meaning, e.Name)
			}
			assert.Equal(t, tc.errors, names)
		})
	}
}

func TestSeedErrorMeanings(t *testing.T) {
	p := load(t, "librpma", "rpma_cq_wait")
	errs := p.Errors("rpma_cq_wait", pageFuncs(p))
	require.NotEmpty(t, errs)
	for _, e := range errs {
		if e.Name == "RPMA_E_SHARED_CHANNEL" {
			assert.Contains(t, e.Meaning, "shared")
		}
	}
	p = load(t, "rdma-core-65", "ionic_dv_pd_set_rqcmb")
	errs = p.Errors("ionic_dv_pd_set_rqcmb", pageFuncs(p))
	require.Len(t, errs, 2)
	assert.Equal(t, "EPERM", errs[1].Name)
	assert.Equal(t, "ibpd is not an ionic protection domain.", errs[1].Meaning)
}

// ibv_create_flow(3) lists its errors as subsections; each function keeps
// the codes that name it.
func TestErrorsFromSubsections(t *testing.T) {
	p := load(t, "rdma-core-65", "ibv_create_flow")
	funcs := pageFuncs(p)
	var names []string
	for _, e := range p.Errors("ibv_create_flow", funcs) {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"EINVAL", "ENOMEM", "ENXIO", "EPERM"}, names)
}

// ibv_create_counters(3): an entry that names one of the page's functions
// belongs to that function only.
func TestErrorsSplitBySubject(t *testing.T) {
	p := load(t, "rdma-core-65", "ibv_create_counters")
	funcs := pageFuncs(p)
	names := func(fn string) []string {
		var out []string
		for _, e := range p.Errors(fn, funcs) {
			out = append(out, e.Name)
		}
		return out
	}
	assert.Equal(t, []string{"ENOMEM", "EOPNOTSUPP"}, names("ibv_create_counters"))
	assert.Equal(t, []string{"EINVAL"}, names("ibv_destroy_counters"))
}

// librpma pages continue an entry with a list ("RPMA_E_INVAL - in one of
// the following:") and sometimes write bullets as tagged paragraphs.
func TestErrorsContinuationLists(t *testing.T) {
	p := load(t, "librpma", "rpma_mr_advise")
	errs := p.Errors("rpma_mr_advise", pageFuncs(p))
	require.Len(t, errs, 3)
	assert.Equal(t, "RPMA_E_INVAL", errs[0].Name)
	assert.Equal(t, "in one of the following: the requested range is out of the memory registration bounds; "+
		"the memory registration usage does not allow the specific advice; the flags are invalid", errs[0].Meaning)

	p = load(t, "librpma", "rpma_conn_req_delete")
	errs = p.Errors("rpma_conn_req_delete", pageFuncs(p))
	require.Len(t, errs, 2)
	assert.Equal(t, "RPMA_E_PROVIDER", errs[1].Name)
	assert.Contains(t, errs[1].Meaning, "rdma_destroy_id(3) failed (active side only)")
}
