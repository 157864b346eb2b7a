// Command goverbs-gen generates one goverbs package from the pinned rdma-core
// headers. Each package runs it from its doc.go:
//
//	//go:generate go run ../gen/cmd/goverbs-gen -pkg ibv
//
// It finds the repository root above the working directory, parses the
// package's headers of every input version under .cache/inputs (run `make
// inputs` first), and rewrites the package's z*.go files.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/goverbs/goverbs/gen/generate"
)

func main() {
	pkg := flag.String("pkg", "", "package to generate: ibv, rdmacm, ionicdv, rpma, efadv, manadv, hnsdv, mlx4dv, mlx5dv (gen/input.Specs)")
	out := flag.String("out", "", "output directory (default: <repo>/<pkg>)")
	shapes := flag.Bool("shapes", false, "print the int32/uint32 parameters of the bindings that stay integers, with their reasons, and their count; write nothing")
	flag.Parse()
	if *shapes {
		kept, err := generate.KeptInts(".", *pkg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "goverbs-gen:", err)
			os.Exit(1)
		}
		for _, k := range kept {
			fmt.Println(k)
		}
		fmt.Printf("%s: %d int32/uint32 parameters kept as integers\n", *pkg, len(kept))
		return
	}
	if err := generate.Run(".", *pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "goverbs-gen:", err)
		os.Exit(1)
	}
}
