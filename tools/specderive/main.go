// Command specderive derives spec/ from the pinned man pages and headers.
//
// Run it from the repository root:
//
//	go run ./tools/specderive          # rewrite spec/*.yaml
//	go run ./tools/specderive -check   # fail if spec/ is not up to date
//
// It reads .cache/inputs (see `make inputs`) through mandoc(1) and
// modernc.org/cc/v4, applies the curated spec/overrides/*.yaml, and exits
// non-zero when a documented function could not be classified and has no
// override, listing each such function.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goverbs/goverbs/gen/derive"
	"github.com/goverbs/goverbs/gen/spec"
)

func main() {
	inputs := flag.String("inputs", ".cache/inputs", "directory of the unpacked pinned packages")
	dir := flag.String("spec", "spec", "spec directory to write or check")
	check := flag.Bool("check", false, "compare with the spec directory instead of writing; exit 1 on any difference")
	verbose := flag.Bool("v", false, "also print functions per convention and library, overridden functions and orphan page names")
	flag.Parse()
	if err := run(os.Stdout, os.Stderr, *inputs, *dir, *check, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "specderive:", err)
		os.Exit(1)
	}
}

func run(stdout, stderr io.Writer, inputs, dir string, check, verbose bool) error {
	if _, err := os.Stat(inputs); err != nil {
		return fmt.Errorf("pinned inputs missing (%w); run `make inputs`", err)
	}
	ovs, err := spec.LoadOverrides(filepath.Join(dir, "overrides"))
	if err != nil {
		return err
	}
	files, rep, err := derive.Derive(derive.Inputs{Root: inputs}, ovs)
	if err != nil {
		return err
	}
	want := map[string][]byte{}
	for _, f := range files {
		b, err := spec.Marshal(f)
		if err != nil {
			return err
		}
		want[filepath.Join(dir, f.Library+".yaml")] = b
	}
	if verbose {
		printCounts(stdout, files)
		for _, n := range rep.Overridden {
			fmt.Fprintln(stdout, "overridden:", n)
		}
		for _, n := range rep.Orphans {
			fmt.Fprintln(stdout, "orphan page name:", n)
		}
	}
	if check {
		if diffs := compare(dir, want); len(diffs) > 0 {
			for _, d := range diffs {
				fmt.Fprintln(stderr, d)
			}
			return fmt.Errorf("%s is not up to date (%d file(s) differ); run go run ./tools/specderive", dir, len(diffs))
		}
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, path := range sortedKeys(want) {
			if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, want[path]) {
				continue
			}
			if err := os.WriteFile(path, want[path], 0o644); err != nil {
				return err
			}
			fmt.Fprintln(stdout, "wrote", path)
		}
	}
	for _, r := range rep.Redundant {
		fmt.Fprintf(stderr, "warning: %s: the page now says the same by itself; the override may go\n", r)
	}
	if len(rep.Unclassified) > 0 {
		fmt.Fprintf(stderr, "%d documented function(s) could not be classified; add an override to %s/overrides/<library>.yaml with a reason:\n", len(rep.Unclassified), dir)
		for _, p := range rep.Unclassified {
			fmt.Fprintln(stderr, "  "+p.String())
		}
		return fmt.Errorf("%d unclassified function(s)", len(rep.Unclassified))
	}
	return nil
}

// printCounts prints a table of functions per convention (rows) and
// library (columns).
func printCounts(w io.Writer, files []*spec.File) {
	counts := map[spec.Convention]map[string]int{}
	var libs []string
	for _, f := range files {
		libs = append(libs, f.Library)
		for _, fn := range f.Functions {
			if counts[fn.Convention] == nil {
				counts[fn.Convention] = map[string]int{}
			}
			counts[fn.Convention][f.Library]++
		}
	}
	fmt.Fprintf(w, "%-26s", "convention")
	for _, l := range libs {
		fmt.Fprintf(w, " %10s", l)
	}
	fmt.Fprintf(w, " %6s\n", "total")
	total := map[string]int{}
	for _, c := range spec.Conventions() {
		fmt.Fprintf(w, "%-26s", c)
		sum := 0
		for _, l := range libs {
			fmt.Fprintf(w, " %10d", counts[c][l])
			sum += counts[c][l]
			total[l] += counts[c][l]
		}
		fmt.Fprintf(w, " %6d\n", sum)
	}
	fmt.Fprintf(w, "%-26s", "total")
	sum := 0
	for _, l := range libs {
		fmt.Fprintf(w, " %10d", total[l])
		sum += total[l]
	}
	fmt.Fprintf(w, " %6d\n", sum)
}

// compare returns one line per file of dir that differs from want: missing,
// stale (a library file no longer derived) or changed, with the first
// differing line and the number of differing lines.
func compare(dir string, want map[string][]byte) []string {
	var out []string
	for _, path := range sortedKeys(want) {
		got, err := os.ReadFile(path)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: missing", path))
			continue
		}
		if !bytes.Equal(got, want[path]) {
			first, n := lineDiff(string(got), string(want[path]))
			out = append(out, fmt.Sprintf("%s:%d: differs (%d line(s) changed)", path, first, n))
		}
	}
	existing, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, path := range existing {
		if _, ok := want[path]; !ok {
			out = append(out, fmt.Sprintf("%s: stale (no such library is derived)", path))
		}
	}
	return out
}

// lineDiff returns the first differing line (1-based) of a and b and how
// many line positions differ.
func lineDiff(a, b string) (first, n int) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			if first == 0 {
				first = i + 1
			}
			n++
		}
	}
	return first, n
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
