package extract_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/internal/demo"
	"github.com/goverbs/goverbs/gen/ir"
)

func TestExtractDemo(t *testing.T) {
	p, err := demo.Load()
	require.NoError(t, err)
	assert.Equal(t, []ir.Version{"v2", "v1"}, p.Versions)

	wr := p.Struct("struct demo_wr")
	require.NotNil(t, wr)
	assert.EqualValues(t, 48, wr.Size)
	assert.EqualValues(t, 8, wr.Align)
	assert.Equal(t, map[ir.Version]int64{"v2": 48, "v1": 40}, wr.SizeIn)
	var names []string
	for _, f := range wr.Fields {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"id", "next", "state", "", "wr", "added"}, names)
	assert.Equal(t, ir.Record, wr.Fields[3].Type.Kind, "anonymous union member")
	assert.Equal(t, "struct demo_wr::0", wr.Fields[3].Type.Ref)
	assert.EqualValues(t, 20, wr.Fields[3].Offset)
	assert.Equal(t, []ir.Version{"v2"}, wr.Fields[5].In, "added is new in v2")

	u := p.Struct("struct demo_wr::wr")
	require.NotNil(t, u)
	assert.True(t, u.Union)
	assert.Equal(t, "struct demo_wr", u.Parent)
	assert.NotNil(t, p.Struct("struct demo_wr::wr::rdma"))

	ctx := p.Struct("struct demo_ctx")
	require.NotNil(t, ctx)
	assert.Equal(t, ir.FuncPtr, ctx.Fields[3].Type.Kind)
	assert.Equal(t, ir.Array, ctx.Fields[2].Type.Kind)
	assert.True(t, ctx.Fields[2].Type.Elem.Char)
	mutex := p.Struct(ctx.Fields[1].Type.Ref)
	require.NotNil(t, mutex)
	assert.True(t, mutex.Foreign, "libc records are foreign")
	assert.Equal(t, "pthread_mutex_t", mutex.Key)
	assert.True(t, p.Struct("struct demo_opaque").Opaque)

	flags := p.Enum("enum demo_flags")
	require.NotNil(t, flags)
	assert.True(t, flags.Flags)
	assert.Equal(t, []string{"demo_alias_flags"}, flags.Aliases)
	assert.Equal(t, []ir.Version{"v2"}, flags.Values[3].In)
	assert.False(t, p.Enum("enum demo_state").Flags)
	anon := p.Enum("enum {DEMO_ANON_ONE}")
	require.NotNil(t, anon)
	assert.True(t, anon.Signed)
	assert.EqualValues(t, -2, anon.Values[1].Value)

	consts := map[string]int64{}
	for _, c := range p.Consts {
		consts[c.Name] = c.Value
	}
	assert.Equal(t, map[string]int64{"DEMO_MAX_NAME": 64, "DEMO_BIG": 1 << 40}, consts)
	assert.Contains(t, p.Skipped, ir.Skip{Name: "DEMO_ALLOCATOR", Reason: "pointer-valued macro: ( ( void * ) - 1 )"})

	open, query := p.Func("demo_open"), p.Func("__demo_query")
	require.NotNil(t, open)
	require.NotNil(t, query)
	assert.False(t, open.Inline)
	assert.True(t, query.Inline)
	assert.Len(t, open.Params, 2)
	assert.Nil(t, open.Body)
	require.NotNil(t, query.Body)
	assert.Equal(t, ir.ShapeMemberCall, query.Body.Shape)
	assert.Equal(t, []string{"op"}, query.Body.MemberCalls)
	require.Len(t, p.Macros, 2)
	assert.Equal(t, "verbs_get_ctx_op", p.Macros[0].Name)
	assert.Equal(t, []string{"verbs_get_ctx"}, p.Macros[0].Targets)
	assert.Equal(t, "demo_query", p.Macros[1].Name)
	assert.Equal(t, []string{"__demo_query"}, p.Macros[1].Targets)
	require.NotNil(t, query.Body.Forward)
	assert.Equal(t, ir.Forward{Root: "ctx", Path: []string{"op"}, Return: true}, *query.Body.Forward)
}

func TestExtractCtxOp(t *testing.T) {
	p, err := demo.Load()
	require.NoError(t, err)
	op := p.Func("demo_ctx_op")
	require.NotNil(t, op)
	require.NotNil(t, op.Body)
	assert.Equal(t, ir.ShapeCtxOp, op.Body.Shape)
	assert.Equal(t, []string{"demo_op"}, op.Body.CtxOps)
	require.NotNil(t, op.Body.CtxForward)
	assert.Equal(t, ir.CtxForward{Root: "c", Op: "demo_op", Return: true}, *op.Body.CtxForward)

	// verbs_context grew toward lower addresses: v2 prepended demo_new_op.
	vc := p.Struct("struct verbs_context")
	require.NotNil(t, vc)
	assert.Equal(t, map[ir.Version]int64{"v2": 40, "v1": 32}, vc.SizeIn)
	for _, f := range vc.Fields {
		if f.Name == "demo_new_op" {
			assert.Equal(t, []ir.Version{"v2"}, f.In)
			continue
		}
		assert.Equal(t, map[ir.Version]int64{"v1": f.Offset - 8}, f.OffsetIn, f.Name)
	}
}

// An inline that adds the size of the caller's record to its parameters
// (mlx5dv_query_port's shape) is recorded as such; one that forwards through
// an op is not.
func TestExtractSized(t *testing.T) {
	p, err := demo.Load()
	require.NoError(t, err)
	get := p.Func("demo_get_attr")
	require.NotNil(t, get)
	require.NotNil(t, get.Body)
	require.NotNil(t, get.Body.Sized)
	assert.Equal(t, ir.Sized{Func: "_demo_get_attr", Return: true, Param: "attr"}, *get.Body.Sized)
	assert.Nil(t, p.Func("__demo_query").Body.Sized)

	// The packed record: C's offsets, which Go cannot take for the uint16.
	seg := p.Struct("struct demo_seg")
	require.NotNil(t, seg)
	assert.Equal(t, int64(4), seg.Size)
	assert.Equal(t, int64(1), seg.Align)
	assert.Equal(t, int64(1), seg.Fields[1].Offset)
}
