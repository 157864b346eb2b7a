//go:build linux

// Command goprobe is the Go side of doccheck: it runs each probe's `go:` snippet from
// tools/doccheck/probes through the generated Go API, in the rxe guest, next to the C
// harness. doccheck generates the snippets into this package (zprobes.go, supplied with
// go build -overlay; the committed package holds none) and runs
//
//	goprobe -c harness
//
// in the guest: the C harness first (its JSON lines pass through unchanged), then each Go
// probe in a child process of its own (goprobe -probe N: a panic, crash or hang fails that
// probe, not the run), then one line listing the verbs objects any user process still owns
// (the kernel's resource tracker, rxetest.AllResources), which must be none.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// probes maps a probe's id (its index in the probe files, in LoadProbes' order) to its Go snippet; zprobes.go fills it.
var probes = map[int]func() error{}

func main() {
	harness := flag.String("c", "", "the C harness to run first (its output passes through)")
	probe := flag.Int("probe", -1, "run only this probe, in this process (the child mode)")
	idList := flag.String("ids", "", "comma-separated ids of the probes to run (default: every probe)")
	flag.Parse()
	if *probe >= 0 {
		os.Exit(child(*probe))
	}
	ids, err := selectIDs(*idList)
	if err == nil {
		err = drive(*harness, ids)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goprobe: %v\n", err)
		os.Exit(1)
	}
}

// selectIDs returns the probes named in list (all when empty) that have a Go side, in order.
func selectIDs(list string) ([]int, error) {
	var ids []int
	if list == "" {
		for id := range probes {
			ids = append(ids, id)
		}
	}
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
		id, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("-ids: %w", err)
		}
		if _, ok := probes[id]; ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
