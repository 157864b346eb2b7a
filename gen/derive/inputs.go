package derive

import (
	"path/filepath"

	"github.com/goverbs/goverbs/gen/spec"
)

// Inputs locates the pinned inputs, relative to the repository root.
type Inputs struct {
	// Root is the directory holding the unpacked packages, normally
	// ".cache/inputs".
	Root string
}

// Source is one library's share of the inputs.
type Source struct {
	Library string
	// Include is the include directory the headers are relative to.
	Include string
	// ExtraIncludes are searched after Include for the headers the
	// in-scope headers include (librpma.h includes infiniband/verbs.h,
	// which must come from the pinned rdma-core, not the host).
	ExtraIncludes []string
	// Headers are the in-scope headers, relative to Include.
	Headers []string
	// ManDir is the man3 directory holding the library's pages.
	ManDir string
	// Prefixes select the library's pages in ManDir by file name.
	Prefixes []string
	// GoPrefix is the C prefix dropped from Go names ("ibv_").
	GoPrefix string
}

// Sources returns the in-scope libraries in a fixed order.
func (in Inputs) Sources() []Source {
	rc := filepath.Join(in.Root, "rdma-core-65", "usr")
	rpma := filepath.Join(in.Root, "librpma", "usr")
	rcInc, rcMan := filepath.Join(rc, "include"), filepath.Join(rc, "share", "man", "man3")
	return []Source{
		{Library: spec.LibIBVerbs, Include: rcInc, Headers: []string{"infiniband/verbs.h"}, ManDir: rcMan,
			Prefixes: []string{"ibv_", "mbps_to_ibv_rate", "mult_to_ibv_rate"}, GoPrefix: "ibv_"},
		{Library: spec.LibIonic, Include: rcInc, Headers: []string{"infiniband/ionic_dv.h"}, ManDir: rcMan,
			Prefixes: []string{"ionic_dv_"}, GoPrefix: "ionic_dv_"},
		{Library: spec.LibEFA, Include: rcInc, Headers: []string{"infiniband/efadv.h"}, ManDir: rcMan,
			Prefixes: []string{"efadv_"}, GoPrefix: "efadv_"},
		{Library: spec.LibMana, Include: rcInc, Headers: []string{"infiniband/manadv.h"}, ManDir: rcMan,
			Prefixes: []string{"manadv_"}, GoPrefix: "manadv_"},
		{Library: spec.LibHNS, Include: rcInc, Headers: []string{"infiniband/hnsdv.h"}, ManDir: rcMan,
			Prefixes: []string{"hnsdv_"}, GoPrefix: "hnsdv_"},
		{Library: spec.LibMlx4, Include: rcInc, Headers: []string{"infiniband/mlx4dv.h"}, ManDir: rcMan,
			Prefixes: []string{"mlx4dv_"}, GoPrefix: "mlx4dv_"},
		{Library: spec.LibMlx5, Include: rcInc, Headers: []string{"infiniband/mlx5dv.h"}, ManDir: rcMan,
			Prefixes: []string{"mlx5dv_"}, GoPrefix: "mlx5dv_"},
		{Library: spec.LibRDMACM, Include: rcInc, Headers: []string{"rdma/rdma_cma.h", "rdma/rdma_verbs.h"}, ManDir: rcMan,
			Prefixes: []string{"rdma_"}, GoPrefix: "rdma_"},
		{Library: spec.LibRPMA, Include: filepath.Join(rpma, "include"), ExtraIncludes: []string{rcInc}, Headers: []string{"librpma.h"},
			ManDir: filepath.Join(rpma, "share", "man", "man3"), Prefixes: []string{"rpma_"}, GoPrefix: "rpma_"},
	}
}
