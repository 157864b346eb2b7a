package extract

import (
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
)

// Load parses spec's headers against every input version under repo,
// extracts each and merges them into the IR of the newest version.
func Load(repo string, spec input.Spec) (*ir.Package, error) {
	var pkg *ir.Package
	for _, v := range input.Versions {
		root, err := input.FindRoot(repo, v)
		if err != nil {
			return nil, err
		}
		parsed, err := input.Parse(root, spec)
		if err != nil {
			return nil, err
		}
		p, err := Extract(parsed)
		if err != nil {
			return nil, err
		}
		if pkg == nil {
			pkg = p
		} else {
			pkg.Merge(p)
		}
	}
	pkg.ClassifyFlags()
	return pkg, nil
}
