package derive

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/header"
	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/internal/testinputs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var (
	deriveOnce  sync.Once
	derived     map[string]*spec.Function
	derivedRep  *Report
	derivedErr  error
	derivedFile []*spec.File
)

// deriveAll derives the spec from the pinned inputs and the committed
// overrides, once per test binary.
func deriveAll(t *testing.T) (map[string]*spec.Function, *Report) {
	t.Helper()
	in := Inputs{Root: testinputs.Dir(t)}
	root := testinputs.RepoRoot(t)
	deriveOnce.Do(func() {
		var ovs []spec.OverrideEntry
		ovs, derivedErr = spec.LoadOverrides(filepath.Join(root, "spec", "overrides"))
		if derivedErr != nil {
			return
		}
		derivedFile, derivedRep, derivedErr = Derive(in, ovs)
		derived = map[string]*spec.Function{}
		for _, f := range derivedFile {
			for i := range f.Functions {
				fn := &f.Functions[i]
				fn.Library = f.Library
				derived[fn.Name] = fn
			}
		}
	})
	require.NoError(t, derivedErr)
	return derived, derivedRep
}

// Every function of every in-scope header is in the spec, in its
// library, documented or not.
func TestDeriveCoversEveryHeaderFunction(t *testing.T) {
	fns, _ := deriveAll(t)
	in := Inputs{Root: testinputs.Dir(t)}
	total := 0
	for _, src := range in.Sources() {
		for _, h := range src.Headers {
			hs, err := header.List(src.Include, h, src.ExtraIncludes...)
			require.NoError(t, err)
			for _, hf := range hs {
				f, ok := fns[hf.Name]
				if assert.True(t, ok, "%s (%s) missing", hf.Name, h) {
					assert.Equal(t, src.Library, f.Library, hf.Name)
					assert.Equal(t, h, f.Header, hf.Name)
				}
			}
			total += len(hs)
		}
	}
	assert.Equal(t, total, len(fns))
	assert.Equal(t, 181+6+62+84+16+3+3+10+171, total) // + efadv.h, manadv.h, hnsdv.h, mlx4dv.h, mlx5dv.h
}

func TestDeriveNothingUnclassified(t *testing.T) {
	_, rep := deriveAll(t)
	assert.Empty(t, rep.Unclassified)
	// 13 pages that need a decision, 15 undocumented functions decided, 18
	// functions with curated Go shapes of parameters only, 7 inline bodies that set
	// errno where the page says nothing of it (ibv_create_qp_ex, ibv_alloc_mw,
	// ibv_create_wq, ibv_create_rwq_ind_table, ibv_create_srq_ex, ibv_open_qp,
	// ibv_open_xrcd), 2 functions that leave read(2)'s errno (ibv_get_cq_event,
	// ibv_get_async_event) and 4 librpma functions whose code fails otherwise than
	// their pages say (differs:); mlx5dv.h: 8 pages that need a decision, 3
	// undocumented functions decided and 25 functions with curated Go shapes only;
	// 11 direct-verbs functions whose code decides their contract (efadv's creates
	// and queue depths, its completion getters and CQ view, mlx4dv_create_qp,
	// mlx5dv_open_device) or whose parameter is an input (mlx5dv_query_device); the 4
	// dumps of mlx5dv_dump(3), which return fprintf's -1 with errno (differs:).
	assert.Len(t, rep.Overridden, 59+36+11+4)
}

// Without overrides, the tool lists every function it could not classify.
func TestDeriveListsUnclassified(t *testing.T) {
	deriveAll(t) // reuse the page cache warm-up; inputs are present
	_, rep, err := Derive(Inputs{Root: testinputs.Dir(t)}, nil)
	require.NoError(t, err)
	var names []string
	why := map[string]string{}
	for _, p := range rep.Unclassified {
		names = append(names, p.Function)
		why[p.Function] = p.Why
		assert.NotEmpty(t, p.Why, p.Function)
		assert.NotEmpty(t, p.Page, p.Function)
	}
	assert.Equal(t, "the page has no RETURN VALUE section", why["rpma_err_2str"])
	assert.Equal(t, "RETURN VALUE says nothing about this function", why["ibv_destroy_flow_action"])
	assert.Contains(t, why["rdma_getaddrinfo"], "several conventions")
	want := []string{
		"efadv_qp_from_ibv_qp_ex", "ibv_destroy_flow_action", "ibv_modify_flow_action_esp", "ibv_next_poll",
		"ibv_qp_to_qp_ex", "ibv_rereg_mr", "ibv_start_poll", "ibv_wc_read_flow_tag",
		"ibv_wc_read_vendor_err", "ibv_wr_complete",
		"mlx5dv_create_flow_action_esp", "mlx5dv_destroy_mkey", "mlx5dv_devx_subscribe_devx_event",
		"mlx5dv_devx_subscribe_devx_event_fd", "mlx5dv_dr_domain_allow_duplicate_rules",
		"mlx5dv_dr_domain_set_reclaim_device_memory", "mlx5dv_qp_ex_from_ibv_qp_ex", "mlx5dv_ts_to_ns",
		"rdma_getaddrinfo",
		"rpma_err_2str", "rpma_log_set_function",
	}
	sort.Strings(names)
	assert.Equal(t, want, names)
}

func TestDeriveRejectsUnknownOverride(t *testing.T) {
	_, _, err := Derive(Inputs{Root: testinputs.Dir(t)}, []spec.OverrideEntry{
		{Function: "ibv_no_such_verb", Reason: "x", Pos: "spec/overrides/libibverbs.yaml:7"},
	})
	require.Error(t, err)
	assert.Equal(t, `spec/overrides/libibverbs.yaml:7: override for unknown function "ibv_no_such_verb" (not declared by any in-scope header)`, err.Error())
}

func TestDeriveSeeds(t *testing.T) {
	fns, _ := deriveAll(t)
	for name, want := range map[string]spec.Convention{
		"ibv_req_notify_cq":           spec.ZeroOrErrno,
		"ionic_dv_pd_set_rqcmb":       spec.ZeroOrErrno,
		"ibv_create_cq":               spec.PointerOrNullErrno,
		"ibv_destroy_cq":              spec.ZeroOrErrno,
		"rdma_get_send_comp":          spec.CountOrMinusOneErrno,
		"rpma_cq_wait":                spec.ZeroOrNegCode,
		"ibv_query_gid_table":         spec.CountOrNegErrno,
		"ibv_destroy_ah":              spec.ZeroOrErrno, // stated under NOTES
		"ibv_wc_read_qp_num":          spec.Value,       // declared in ibv_create_cq_ex(3)'s body
		"ibv_ack_cq_events":           spec.Void,
		"ibv_query_port":              spec.ZeroOrErrno, // macro around ___ibv_query_port
		"ibv_reg_mr":                  spec.PointerOrNullErrno,
		"rdma_seterrno":               spec.ZeroOrMinusOneErrno, // overridden
		"ibv_resolve_eth_l2_from_gid": spec.Undocumented,
		"ibv_wr_atomic_write":         spec.Void, // undocumented, but void
	} {
		f, ok := fns[name]
		if assert.True(t, ok, name) {
			assert.Equal(t, want, f.Convention, name)
		}
	}
	assert.Equal(t, "ibv_query_port.3", fns["ibv_query_port"].Page)
	assert.Equal(t, "___ibv_query_port", fns["ibv_query_port"].Impl)
	assert.Equal(t, "__ibv_reg_mr", fns["ibv_reg_mr"].Impl)
	assert.Equal(t, "ibv_reg_mr.3", fns["ibv_reg_mr"].Page)
	assert.Equal(t, "ibv_create_cq.3", fns["ibv_destroy_cq"].Page)
	assert.False(t, fns["rdma_seterrno"].Documented)
	assert.NotNil(t, fns["rdma_seterrno"].Override)
	assert.False(t, fns["ibv_resolve_eth_l2_from_gid"].Documented)
	assert.NotNil(t, fns["ibv_rereg_mr"].Override)
	var codes []string
	for _, e := range fns["ibv_rereg_mr"].Errors {
		codes = append(codes, e.Name)
	}
	assert.Equal(t, []string{"IBV_REREG_MR_ERR_CMD", "IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW", "IBV_REREG_MR_ERR_DONT_FORK_NEW", "IBV_REREG_MR_ERR_DO_FORK_OLD", "IBV_REREG_MR_ERR_INPUT"}, codes)
}

// Golden files pin the whole derived entry of a sample of functions.
func TestDeriveGolden(t *testing.T) {
	fns, _ := deriveAll(t)
	for _, name := range []string{
		"ibv_create_cq", "ibv_destroy_cq", "ibv_req_notify_cq", "ibv_query_gid_table",
		"ionic_dv_pd_set_rqcmb", "rdma_get_send_comp", "rpma_cq_wait",
		"ibv_destroy_ah", "ibv_wc_read_qp_num", "rdma_getaddrinfo",
	} {
		t.Run(name, func(t *testing.T) {
			f := fns[name]
			require.NotNil(t, f)
			got, err := spec.Marshal(&spec.File{Library: f.Library, Functions: []spec.Function{*f}})
			require.NoError(t, err)
			path := filepath.Join("testdata", "golden", name+".yaml")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./gen/derive -run Golden -update")
			assert.Equal(t, string(want), string(got))
		})
	}
}

func TestGoName(t *testing.T) {
	for c, want := range map[string]string{
		"ibv_create_cq":                   "CreateCQ",
		"ibv_query_gid_table":             "QueryGIDTable",
		"rdma_get_send_comp":              "GetSendComp",
		"rpma_err_2str":                   "ErrToString",
		"ionic_dv_pd_set_rqcmb":           "PDSetRQCMB",
		"mbps_to_ibv_rate":                "MbpsToIBVRate",
		"_ibv_query_gid_ex":               "QueryGIDExImpl",
		"ibv_export_buf_dmabuf_fd":        "ExportBufDMABufFD",
		"ibv_wc_read_completion_ts":       "WCReadCompletionTS",
		"rpma_conn_cfg_get_compl_channel": "ConnCfgGetComplChannel",
	} {
		prefix := "ibv_"
		switch {
		case c[:5] == "rdma_":
			prefix = "rdma_"
		case c[:5] == "rpma_":
			prefix = "rpma_"
		case c[:6] == "ionic_":
			prefix = "ionic_dv_"
		}
		assert.Equal(t, want, GoName(c, prefix), c)
	}
}

func TestDeriveReportsRedundantOverride(t *testing.T) {
	_, rep, err := Derive(Inputs{Root: testinputs.Dir(t)}, []spec.OverrideEntry{
		{Function: "ibv_create_cq", Convention: spec.PointerOrNullErrno, Reason: "x", Pos: "o.yaml:2"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"o.yaml:2: ibv_create_cq"}, rep.Redundant)
}
