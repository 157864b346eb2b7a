// Command irdump prints the IR of one package for one input version as JSON,
// for debugging the generator.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"

	"github.com/goverbs/goverbs/gen/extract"
	"github.com/goverbs/goverbs/gen/input"
	"github.com/goverbs/goverbs/gen/ir"
)

func main() {
	pkg := flag.String("pkg", "ibv", "package")
	ver := flag.String("v", "", "one rdma-core version; empty: all, merged")
	flag.Parse()
	repo, err := input.RepoRoot(".")
	if err != nil {
		log.Fatal(err)
	}
	spec, ok := input.Lookup(*pkg)
	if !ok {
		log.Fatalf("unknown package %q", *pkg)
	}
	var ip *ir.Package
	if *ver == "" {
		ip, err = extract.Load(repo, spec)
	} else {
		var root input.Root
		if root, err = input.FindRoot(repo, ir.Version(*ver)); err == nil {
			var p *input.Parsed
			if p, err = input.Parse(root, spec); err == nil {
				ip, err = extract.Extract(p)
			}
		}
	}
	if err != nil {
		log.Fatal(err)
	}
	e := json.NewEncoder(os.Stdout)
	e.SetIndent("", " ")
	if err := e.Encode(ip); err != nil {
		log.Fatal(err)
	}
}
