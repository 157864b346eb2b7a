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
	},
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
