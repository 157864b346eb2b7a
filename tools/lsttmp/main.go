package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
)

func main() {
	var fs []spec.File
	_ = fs
	set, err := spec.Load(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for _, f := range set.Functions() {
		var es []string
		for _, e := range f.Errors {
			es = append(es, e.Name)
		}
		fmt.Printf("%-10s %-40s %-24s %-30s %s %s\n", f.Library, f.Name, f.Convention, f.Page, f.GoName, strings.Join(es, ","))
	}
}
