package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const guardLib = `library: mlx4
functions:
  - name: mlx4dv_init_obj
    header: infiniband/mlx4dv.h
    page: mlx4dv_init_obj.3
    go_name: InitObj
    documented: true
    convention: zero_or_errno
    success: "0"
  - name: mlx4dv_query_device
    header: infiniband/mlx4dv.h
    page: mlx4dv_query_device.3
    go_name: QueryDevice
    documented: true
    convention: zero_or_errno
    success: "0"
  - name: mlx4dv_is_supported
    header: infiniband/mlx4dv.h
    go_name: IsSupported
    documented: false
    convention: value
`

const goodGuards = `library: mlx4
reason: measured by doccheck
provider:
  driver: RDMA_DRIVER_MLX4
guards:
  - function: mlx4dv_init_obj
    objects:
      - path: obj.qp.in
        when: obj_type & MLX4DV_OBJ_QP
    why: reads the QP as mlx4's own
    evidence:
      - probe: mlx4dv_init_obj/non-mlx4-qp
        c: {44: returned, 65: SIGSEGV}
      - probe: mlx4dv_query_device/non-mlx4
        c: {65: returned}
`

func TestLoadGuards(t *testing.T) {
	dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib, "mlx4.yaml": guardLib, "guards/mlx4.yaml": goodGuards})
	s, err := Load(dir)
	require.NoError(t, err)
	g := s.Guard("mlx4dv_init_obj")
	require.NotNil(t, g)
	assert.Equal(t, []GuardObject{{Path: "obj.qp.in", When: "obj_type & MLX4DV_OBJ_QP"}}, g.Objects)
	p, c := g.Objects[0].WhenParts()
	assert.Equal(t, []string{"obj_type", "MLX4DV_OBJ_QP"}, []string{p, c})
	assert.Equal(t, []GuardEvidence{{Probe: "mlx4dv_init_obj/non-mlx4-qp", C: map[int]string{44: Returned, 65: "SIGSEGV"}},
		{Probe: "mlx4dv_query_device/non-mlx4", C: map[int]string{65: Returned}}}, g.Evidence)
	assert.Equal(t, []int{44, 65}, g.Evidence[0].Releases())
	assert.Equal(t, "returned on rdma-core 44 and crashed the process (SIGSEGV) on rdma-core 65", g.Evidence[0].Text())
	assert.Equal(t, "returned on rdma-core 44 and 65", GuardEvidence{C: map[int]string{65: Returned, 44: Returned}}.Text())
	assert.Nil(t, s.Guard("mlx4dv_query_device"))
	assert.Equal(t, GuardProvider{Driver: "RDMA_DRIVER_MLX4"}, s.GuardFile("mlx4").Provider)
	assert.Nil(t, s.GuardFile("efa"))
	assert.Equal(t, []*Guard{g}, s.AllGuards())
}

func TestLoadGuardsStrict(t *testing.T) {
	const head = "library: mlx4\nreason: r\nprovider: {driver: RDMA_DRIVER_MLX4}\nguards:\n"
	const ev = "evidence: [{probe: mlx4dv_init_obj/x, c: {44: SIGSEGV}}]"
	for _, tc := range []struct{ name, body, want string }{
		{"unknown function", head + "  - {function: mlx4dv_nope, objects: [{path: a}], why: w, " + ev + "}\n", `unknown function "mlx4dv_nope"`},
		{"other library", head + "  - {function: ibv_create_cq, objects: [{path: a}], why: w, " + ev + "}\n", "belongs to libibverbs"},
		{"twice", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, " + ev + "}\n  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, " + ev + "}\n", "guarded twice"},
		{"no objects", head + "  - {function: mlx4dv_init_obj, why: w, " + ev + "}\n", "names the objects"},
		{"bad path", head + "  - {function: mlx4dv_init_obj, objects: [{path: obj->qp}], why: w, " + ev + "}\n", "member path"},
		{"bad when", head + "  - {function: mlx4dv_init_obj, objects: [{path: obj.qp.in, when: obj_type | 1}], why: w, " + ev + "}\n", "param & CONSTANT"},
		{"no why", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], " + ev + "}\n", "(why)"},
		{"no evidence", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w}\n", "(evidence)"},
		{"bad probe", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, evidence: [{probe: nocase, c: {44: SIGSEGV}}]}\n", "want function/case"},
		{"probe of another library", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, evidence: [{probe: ibv_create_cq/x, c: {44: SIGSEGV}}]}\n", "not of a function of mlx4"},
		{"bad signal", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, evidence: [{probe: mlx4dv_init_obj/x, c: {44: crash}}]}\n", "hang or returned"},
		{"no releases", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, evidence: [{probe: mlx4dv_init_obj/x}]}\n", "on each release"},
		{"release not run", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, evidence: [{probe: mlx4dv_init_obj/x, c: {33: SIGSEGV}}]}\n", "release 33"},
		{"probe twice", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, evidence: [{probe: mlx4dv_init_obj/x, c: {44: SIGSEGV}}, {probe: mlx4dv_init_obj/x, c: {65: SIGSEGV}}]}\n", "named twice"},
		{"no reason", "library: mlx4\nprovider: {driver: RDMA_DRIVER_MLX4}\nguards: []\n", "needs a reason"},
		{"no provider", "library: mlx4\nreason: r\nguards: []\n", "one of them"},
		{"two providers", "library: mlx4\nreason: r\nprovider: {driver: RDMA_DRIVER_MLX4, supported: mlx4dv_is_supported}\nguards: []\n", "one of them"},
		{"bad driver", "library: mlx4\nreason: r\nprovider: {driver: MLX4}\nguards: []\n", "RDMA_DRIVER_"},
		{"supported not a value", "library: mlx4\nreason: r\nprovider: {supported: mlx4dv_query_device}\nguards: []\n", "want a value function"},
		{"no guards", "library: mlx4\nreason: r\nprovider: {supported: mlx4dv_is_supported}\nguards: []\n", "no guards"},
		{"guard's provider twice", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, " + ev + ", provider: {listed: mlx4dv_query_device, driver: RDMA_DRIVER_MLX4}}\n", "one of them"},
		{"listed elsewhere", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, " + ev + ", provider: {listed: ibv_get_device_list}}\n", "want a function of mlx4"},
		{"unknown field", head + "  - {function: mlx4dv_init_obj, objects: [{path: a}], why: w, " + ev + ", roots: [host]}\n", "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib, "mlx4.yaml": guardLib, "guards/mlx4.yaml": tc.body})
			_, err := Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "guards/mlx4.yaml:")
		})
	}
}

// A guard may check its own provider in place of the file's: the VFIO calls of mlx5dv.h
// take mlx5's VFIO devices, which mlx5dv_get_vfio_device_list lists and no kernel driver has.
func TestGuardProvider(t *testing.T) {
	body := goodGuards + `  - function: mlx4dv_query_device
    objects: [{path: ctx_in}]
    why: reads the context
    evidence: [{probe: mlx4dv_query_device/other, c: {44: SIGSEGV}}]
    provider: {listed: mlx4dv_is_supported, name: mlx4 listed}
`
	dir := writeSpec(t, map[string]string{"libibverbs.yaml": goodLib, "mlx4.yaml": guardLib, "guards/mlx4.yaml": body})
	s, err := Load(dir)
	require.NoError(t, err)
	f := s.GuardFile("mlx4")
	own, file := f.ProviderOf(s.Guard("mlx4dv_query_device")), f.ProviderOf(s.Guard("mlx4dv_init_obj"))
	assert.Equal(t, GuardProvider{Listed: "mlx4dv_is_supported", Name: "mlx4 listed"}, own)
	assert.Equal(t, f.Provider, file)
	assert.Equal(t, []string{"listed", "driver", "supported"}, []string{own.Kind(), file.Kind(), GuardProvider{Supported: "x"}.Kind()})
	assert.Equal(t, []string{"mlx4 listed", "mlx4"}, []string{own.Who("mlx4"), file.Who("mlx4")})
	assert.Equal(t, "the kernel's driver id of the device is RDMA_DRIVER_MLX4", file.How())
	assert.Equal(t, "x accepts the device", GuardProvider{Supported: "x"}.How())
	assert.Equal(t, "the device is one that mlx4dv_is_supported lists: it has no name, as no kernel driver has it", own.How())
}
