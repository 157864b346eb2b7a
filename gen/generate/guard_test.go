package generate

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/emit"
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/spec"
)

// renderGuarded renders package name with the repository's spec plus the guard files
// extra (spec/guards/<library>.yaml -> content).
func renderGuarded(t *testing.T, repo, name string, extra map[string]string) (map[string][]byte, error) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(repo, "spec"))))
	for f, body := range extra {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "guards", f), []byte(body), 0o644))
	}
	r, err := Load(repo, name)
	require.NoError(t, err)
	set, err := spec.Load(dir)
	require.NoError(t, err)
	e := emit.New(r.Pkg, r.Names)
	e.Spec = set
	return e.Files()
}

// A guard by the library's own check (spec/guards with supported:, as mlx5dv_is_supported
// will be) calls the package's binding of it; the package builds with it (hnsdv, whose
// functions check their device themselves, guarded here for the test only).
func TestGuardSupported(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	files, err := renderGuarded(t, repo, "hnsdv", map[string]string{"hns.yaml": `library: hns
reason: test
provider:
  supported: hnsdv_is_supported
guards:
  - function: hnsdv_query_device
    objects:
      - path: ctx_in
    why: reads the context as hns's own
    evidence:
      - probe: hnsdv_query_device/non-hns
        c: {65: SIGSEGV}
`})
	require.NoError(t, err)
	api := string(files["zapi.go"])
	assert.Contains(t, api, `dvProvider.Check("hnsdv_query_device", ctxIn)`)
	assert.Contains(t, api, "Supported:     IsSupported,")
	assert.Contains(t, api, `SupportedName: "hnsdv_is_supported",`)
	assert.Contains(t, api, "// Guarded: hnsdv_query_device reads the context as hns's own (doccheck on rxe: probe hnsdv_query_device/non-hns crashed the process (SIGSEGV) on rdma-core 65). This wrapper first checks that the device of ctx_in is hns's (hnsdv_is_supported accepts the device)")
	assert.Contains(t, string(files["zerrors.go"]), "type DeviceError = dl.DeviceError")

	// The rendered package compiles in place of the committed one.
	ov := t.TempDir()
	repl := map[string]string{}
	for _, n := range []string{"zapi.go", "zerrors.go"} {
		p := filepath.Join(ov, n)
		require.NoError(t, os.WriteFile(p, files[n], 0o644))
		repl[filepath.Join(repo, "hnsdv", n)] = p
	}
	b, err := json.Marshal(map[string]any{"Replace": repl})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ov, "overlay.json"), b, 0o644))
	cmd := exec.Command("go", "vet", "-overlay", filepath.Join(ov, "overlay.json"), "./hnsdv")
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// A guard the generator cannot apply is an error naming it, never a wrapper without it.
func TestGuardErrors(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	const head = "library: hns\nreason: r\nprovider: {driver: RDMA_DRIVER_HNS}\nguards:\n"
	const tail = ", why: w, evidence: [{probe: hnsdv_query_device/non-hns, c: {65: SIGSEGV}}]}\n"
	for _, tc := range []struct{ name, guard, want string }{
		{"unknown parameter", "  - {function: hnsdv_query_device, objects: [{path: ctx}]" + tail, "has no parameter ctx"},
		{"not an object", "  - {function: hnsdv_create_qp, objects: [{path: hns_qp_attr}]" + tail, "not a pointer to a verbs object"},
		{"result", "  - {function: hnsdv_query_device, objects: [{path: attrs_out}]" + tail, "is not passed as it is"},
		{"no member", "  - {function: hnsdv_create_qp, objects: [{path: hns_qp_attr.nope}]" + tail, "has no member nope"},
		{"member of a foreign record", "  - {function: hnsdv_create_qp, objects: [{path: qp_attr.pd}]" + tail, "no struct of this package"},
		{"when on a pointer", "  - {function: hnsdv_query_device, objects: [{path: ctx_in, when: ctx_in & HNSDV_NOPE}]" + tail, "ctx_in is not an integer"},
		{"unknown driver", "  - {function: hnsdv_query_device, objects: [{path: ctx_in}]" + tail, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := head + tc.guard
			if tc.want == "" {
				g = strings.Replace(g, "RDMA_DRIVER_HNS", "RDMA_DRIVER_NOPE", 1)
				tc.want = "no constant RDMA_DRIVER_NOPE"
			}
			_, err := renderGuarded(t, repo, "hnsdv", map[string]string{"hns.yaml": g})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = renderGuarded(t, repo, "mlx4dv", map[string]string{"mlx4.yaml": `library: mlx4
reason: r
provider: {driver: RDMA_DRIVER_MLX4}
guards:
  - {function: mlx4dv_init_obj, objects: [{path: obj.qp.in, when: obj_type & MLX4DV_NOPE}], why: w, evidence: [{probe: mlx4dv_init_obj/x, c: {65: SIGSEGV}}]}
`})
	require.ErrorContains(t, err, "when: no constant MLX4DV_NOPE")
}

// The committed guards: every guarded wrapper checks before it calls C, and says so.
func TestGuardsApplied(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	set, err := spec.Load(filepath.Join(repo, "spec"))
	require.NoError(t, err)
	require.NotEmpty(t, set.AllGuards())
	for _, g := range set.AllGuards() {
		f, _ := set.Lookup(g.Function)
		var pkg string
		for p, lib := range emit.Libraries {
			if lib == f.Library {
				pkg = p
			}
		}
		b, err := os.ReadFile(filepath.Join(repo, pkg, "zapi.go"))
		require.NoError(t, err)
		api := string(b)
		check := strings.Index(api, `dvProvider.Check("`+g.Function+`"`)
		if g.Provider != nil {
			check = strings.Index(api, `dvProvider`+strings.ToUpper(g.Provider.Kind()[:1])+g.Provider.Kind()[1:]+`.Check("`+g.Function+`"`)
		}
		call := strings.Index(api, "c_"+g.Function+"(")
		assert.True(t, check > 0 && check < call, "%s: the guard comes before the C call", g.Function)
		assert.Contains(t, api, "// Guarded: "+g.Function+" ")
	}
}

// A guard with its own check (the VFIO calls of mlx5dv.h) gets a provider variable of its
// kind beside the file's; two guards of one kind share it, and must agree on it.
func TestGuardOwnProvider(t *testing.T) {
	repo, err := input.RepoRoot(".")
	require.NoError(t, err)
	const head = "library: mlx4\nreason: r\nprovider: {driver: RDMA_DRIVER_MLX4}\nguards:\n"
	const ev = ", why: w, evidence: [{probe: mlx4dv_init_obj/x, c: {65: SIGSEGV}}]"
	files, err := renderGuarded(t, repo, "mlx4dv", map[string]string{"mlx4.yaml": head +
		"  - {function: mlx4dv_query_device, objects: [{path: ctx_in}], provider: {listed: mlx4dv_init_obj, name: mlx4 listed}" + ev + "}\n" +
		"  - {function: mlx4dv_set_context_attr, objects: [{path: context}], provider: {listed: mlx4dv_init_obj, name: mlx4 listed}" + ev + "}\n" +
		"  - {function: mlx4dv_create_qp, objects: [{path: context}]" + ev + "}\n"})
	require.NoError(t, err)
	api := string(files["zapi.go"])
	assert.Contains(t, api, `dvProviderListed.Check("mlx4dv_query_device", ctxIn)`)
	assert.Contains(t, api, `dvProviderListed.Check("mlx4dv_set_context_attr", context)`)
	assert.Contains(t, api, `dvProvider.Check("mlx4dv_create_qp", context)`)
	assert.Equal(t, 1, strings.Count(api, "var dvProviderListed = "))
	assert.Contains(t, api, `Listed: "mlx4dv_init_obj",`)
	assert.Contains(t, api, `Name:   "mlx4 listed",`)
	assert.Contains(t, api, "is mlx4 listed's (the device is one that mlx4dv_init_obj lists: it has no name")

	_, err = renderGuarded(t, repo, "mlx4dv", map[string]string{"mlx4.yaml": head +
		"  - {function: mlx4dv_query_device, objects: [{path: ctx_in}], provider: {listed: mlx4dv_init_obj}" + ev + "}\n" +
		"  - {function: mlx4dv_set_context_attr, objects: [{path: context}], provider: {listed: mlx4dv_create_qp}" + ev + "}\n"})
	require.ErrorContains(t, err, "checks another listed provider than an earlier guard")
}
