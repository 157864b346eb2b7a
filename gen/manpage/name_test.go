package manpage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesAliasPages(t *testing.T) {
	for _, tc := range []struct {
		pkg, page string
		want      []Entry
	}{
		{"rdma-core-65", "ibv_create_cq", []Entry{{
			Names:   []string{"ibv_create_cq", "ibv_destroy_cq"},
			Summary: "create or destroy a completion queue (CQ)",
		}}},
		// Several "names - summary" lines in one NAME section.
		{"rdma-core-65", "ibv_create_comp_cntr", []Entry{
			{Names: []string{"ibv_create_comp_cntr", "ibv_destroy_comp_cntr"}, Summary: "Create or destroy a completion counter"},
			{Names: []string{"ibv_set_comp_cntr", "ibv_set_err_comp_cntr"}, Summary: "Set the value of a completion or error counter"},
			{Names: []string{"ibv_inc_comp_cntr", "ibv_inc_err_comp_cntr"}, Summary: "Increment a completion or error counter"},
			{Names: []string{"ibv_read_comp_cntr", "ibv_read_err_comp_cntr"}, Summary: "Read the value of a completion or error counter"},
		}},
		// "()" after names.
		{"rdma-core-65", "ibv_alloc_td", []Entry{{
			Names:   []string{"ibv_alloc_td", "ibv_dealloc_td"},
			Summary: "allocate and deallocate thread domain object",
		}}},
		// A "Name" heading (not "NAME") and a capitalized name.
		{"rdma-core-65", "rdma_freeaddrinfo", []Entry{{
			Names:   []string{"rdma_freeaddrinfo"},
			Summary: "Frees the list of rdma_addrinfo structures returned by rdma_getaddrinfo",
		}}},
		// librpma's "--" separator.
		{"librpma", "rpma_cq_wait", []Entry{{
			Names:   []string{"rpma_cq_wait"},
			Summary: "wait for a completion and ack it",
		}}},
		// A C type word before a name is dropped.
		{"rdma-core-65", "ibv_alloc_dmah", []Entry{
			{Names: []string{"ibv_alloc_dmah"}, Summary: "allocate a dma handle"},
			{Names: []string{"ibv_dealloc_dmah"}, Summary: "deallocate a dma handle"},
		}},
	} {
		t.Run(tc.page, func(t *testing.T) {
			assert.Equal(t, tc.want, load(t, tc.pkg, tc.page).Names())
		})
	}
}

func TestNamesWrPostCoversAllFunctions(t *testing.T) {
	p := load(t, "rdma-core-65", "ibv_wr_post")
	var all []string
	for _, e := range p.Names() {
		all = append(all, e.Names...)
	}
	assert.Len(t, all, 21)
	assert.Contains(t, all, "ibv_wr_start")
	assert.Contains(t, all, "ibv_wr_set_xrc_srqn")
}

// ibv_alloc_dm(3) names "ibv_memcpy_to/from_dm" in NAME and declares the
// real names in its DESCRIPTION, not its SYNOPSIS.
func TestSynopsisAndBodyDeclarations(t *testing.T) {
	p := load(t, "rdma-core-65", "ibv_alloc_dm")
	assert.Equal(t, []string{"ibv_alloc_dm", "ibv_free_dm"}, p.SynopsisCalls())
	decl := p.Declared()
	assert.Contains(t, decl, "ibv_memcpy_to_dm")
	assert.Contains(t, decl, "ibv_memcpy_from_dm")
	for _, e := range p.Names() {
		assert.NotContains(t, e.Names, "ibv_memcpy_to")
	}
}

func TestDeclaredInBody(t *testing.T) {
	p := load(t, "rdma-core-65", "ibv_create_cq_ex")
	d := p.Declared()
	assert.Contains(t, d, "ibv_start_poll")
	assert.Contains(t, d, "ibv_wc_read_opcode")
	b := p.Declaration("ibv_wc_read_qp_num")
	require.NotNil(t, b)
	assert.Equal(t, "Get the QP number field from the current completion.", b.Text)
	assert.Nil(t, p.Declaration("ibv_no_such_function"))
}

// On an alias page, each function keeps the blocks about itself and the
// ones about the whole page.
func TestBlocksForSplitsAliasPage(t *testing.T) {
	p := load(t, "rdma-core-65", "ibv_create_cq")
	funcs := pageFuncs(p)
	desc := p.Section("DESCRIPTION").Blocks
	create := PlainText(BlocksFor(desc, "ibv_create_cq", funcs))
	destroy := PlainText(BlocksFor(desc, "ibv_destroy_cq", funcs))
	assert.Contains(t, create, "creates a completion queue")
	assert.NotContains(t, create, "destroys the CQ")
	assert.Equal(t, "ibv_destroy_cq() destroys the CQ cq.", destroy)
}

func TestSentencesForSubjectCarriesOver(t *testing.T) {
	blocks := []Block{{Kind: Para, Text: "Both return something. foo() returns 0. It never fails. bar() returns -1 on error."}}
	funcs := []string{"foo", "bar"}
	assert.Equal(t, []string{"Both return something.", "foo() returns 0.", "It never fails."}, SentencesFor(blocks, "foo", funcs))
	assert.Equal(t, []string{"Both return something.", "bar() returns -1 on error."}, SentencesFor(blocks, "bar", funcs))
}

func TestSeeAlso(t *testing.T) {
	p := load(t, "rdma-core-65", "rdma_get_send_comp")
	refs := p.SeeAlso()
	require.NotEmpty(t, refs)
	assert.Equal(t, "rdma_cm", refs[0].Name)
	assert.Equal(t, "7", refs[0].Section)
	assert.Equal(t, "ibv_poll_cq", refs[1].Name)
}

// mlx5dv_dr_flow(3) writes "mlx5dv_dr_action_create_push_vlan\- Create push
// vlan action": no space before the dash, and the summary's words are not
// names.
func TestNamesDashWithoutSpace(t *testing.T) {
	found := false
	for _, e := range load(t, "rdma-core-65", "mlx5dv_dr_flow").Names() {
		for _, n := range e.Names {
			require.Contains(t, n, "mlx5dv_", "a summary word taken for a name")
		}
		if e.Names[0] == "mlx5dv_dr_action_create_push_vlan" {
			found = true
			assert.Equal(t, "Create push vlan action", e.Summary)
		}
	}
	assert.True(t, found)
}
