package input

// Spec describes one generated Go package: which headers it includes, which
// of the headers it owns (declarations there are emitted with full layout),
// how C names become Go names, and which generated packages it imports.
type Spec struct {
	Name string // Go package name and directory
	Doc  string // first sentence of the package doc
	// Headers are included in this order by the parser and the layout tests.
	Headers []string
	// Owns lists the include paths whose declarations belong to the package.
	// Records declared elsewhere are emitted as opaque sized types, or
	// referenced in a dependency that owns them.
	Owns []string
	// Prefixes are stripped from C names, first match wins, before CamelCase.
	Prefixes []string
	// Deps are generated packages whose owned types this one references.
	Deps []string
	// Lib is the shared object exporting the package's functions.
	Lib string
	// Release names the product release of every function when the
	// package's header is the same in all inputs (librpma); empty means
	// "rdma-core <the oldest input version declaring it>".
	Release string
	// Optional says the library need not be installed where libibverbs is
	// (a provider's direct verbs): every binding can then fail with a
	// *MissingError and says which library it needs.
	Optional bool
}

// provider is the spec of the direct verbs of an rdma-core provider: header
// infiniband/<hdr>.h, C names prefixed <prefix>_ and <PREFIX>_ (then
// those of extra), the provider library lib, after ibv.
func provider(name, doc, hdr, lib string, prefixes ...string) Spec {
	return Spec{
		Name:     name,
		Doc:      doc,
		Headers:  []string{"infiniband/" + hdr + ".h"},
		Owns:     []string{"infiniband/" + hdr + ".h"},
		Prefixes: prefixes,
		Deps:     []string{"ibv"},
		Lib:      lib,
		Optional: true,
	}
}

// withOwns returns s owning also the headers owns, which its header includes.
func withOwns(s Spec, owns ...string) Spec {
	s.Owns = append(s.Owns, owns...)
	return s
}

// Specs are the generated packages in dependency order.
var Specs = []Spec{
	{
		Name:     "ibv",
		Doc:      "Package ibv binds libibverbs, the RDMA verbs API of rdma-core (infiniband/verbs.h).",
		Headers:  []string{"infiniband/verbs.h"},
		Owns:     []string{"infiniband/verbs.h", "infiniband/verbs_api.h", "infiniband/ib_user_ioctl_verbs.h"},
		Prefixes: []string{"ibv_", "IBV_", "ib_", "IB_"},
		Lib:      "libibverbs.so.1",
	},
	{
		Name:     "rdmacm",
		Doc:      "Package rdmacm binds librdmacm, the RDMA connection manager of rdma-core (rdma/rdma_cma.h, rdma/rdma_verbs.h).",
		Headers:  []string{"rdma/rdma_cma.h", "rdma/rdma_verbs.h"},
		Owns:     []string{"rdma/rdma_cma.h", "rdma/rdma_verbs.h", "infiniband/sa.h", "infiniband/ib.h"},
		Prefixes: []string{"rdma_", "RDMA_", "ibv_", "IBV_"},
		Deps:     []string{"ibv"},
		Lib:      "librdmacm.so.1",
	},
	{
		Name:     "ionicdv",
		Doc:      "Package ionicdv binds the direct verbs of the AMD Pensando ionic provider (infiniband/ionic_dv.h).",
		Headers:  []string{"infiniband/ionic_dv.h"},
		Owns:     []string{"infiniband/ionic_dv.h"},
		Prefixes: []string{"ionic_dv_", "IONIC_DV_", "ionic_", "IONIC_"},
		Deps:     []string{"ibv"},
		Lib:      "libionic.so.1",
		Optional: true,
	},
	provider("efadv", "Package efadv binds the direct verbs of the AWS Elastic Fabric Adapter provider (infiniband/efadv.h).",
		"efadv", "libefa.so.1", "efadv_", "EFADV_"),
	provider("manadv", "Package manadv binds the direct verbs of the Microsoft Azure Network Adapter provider (infiniband/manadv.h).",
		"manadv", "libmana.so.1", "manadv_", "MANADV_"),
	provider("hnsdv", "Package hnsdv binds the direct verbs of the HiSilicon hns provider (infiniband/hnsdv.h).",
		"hnsdv", "libhns.so.1", "hnsdv_", "HNSDV_"),
	provider("mlx4dv", "Package mlx4dv binds the direct verbs of the NVIDIA (Mellanox) ConnectX-3 mlx4 provider (infiniband/mlx4dv.h).",
		"mlx4dv", "libmlx4.so.1", "mlx4dv_", "MLX4DV_", "mlx4_", "MLX4_"),
	withOwns(provider("mlx5dv", "Package mlx5dv binds the direct verbs of the NVIDIA (Mellanox) ConnectX-4 and later mlx5 provider (infiniband/mlx5dv.h).",
		"mlx5dv", "libmlx5.so.1", "mlx5dv_", "MLX5DV_", "mlx5_ib_uapi_", "MLX5_IB_UAPI_", "mlx5_", "MLX5_"),
		// mlx5dv.h's own types and the kernel ABI they alias (#define
		// mlx5dv_flow_table_type mlx5_ib_uapi_flow_table_type).
		"infiniband/mlx5_api.h", "infiniband/mlx5_user_ioctl_verbs.h"),
	{
		Name:     "rpma",
		Doc:      "Package rpma binds librpma, the remote persistent memory access library (librpma.h).",
		Headers:  []string{"librpma.h"},
		Owns:     []string{"librpma.h"},
		Prefixes: []string{"rpma_", "RPMA_"},
		Deps:     []string{"ibv"},
		Lib:      "librpma.so.0",
		Release:  "librpma 1.3.0", // inputs.lock: librpma-dev 1.3.0-2+b3
	},
}

// Lookup returns the spec of package name.
func Lookup(name string) (Spec, bool) {
	for _, s := range Specs {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}
