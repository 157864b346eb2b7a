//go:build linux

// Command doccheck verifies the return contracts in spec/ on a real rxe device: it runs the
// probes of tools/doccheck/probes in the rxe guest on both rdma-core roots (44 on the
// host root, 65 on the sid root), records each call's raw C return value and errno,
// classifies them against the function's convention, writes the contract report
// (docs/contracts.md) and prints its summary. With them, on the host and sid roots, it runs
// the crash map of tools/doccheck/crashmap.yaml (argument classes out of range, C and Go:
// which crash the process). It exits non-zero when a probe breaks or a contract fails that
// tools/doccheck/known.yaml does not record as a known mismatch, or when the crash map and
// the claims of spec/crashes disagree.
//
// With -device NAME[,NAME2] it runs the probes on this machine's own devices and installed
// rdma-core instead (the own-device mode, owndevice.go), skipping and listing those that
// need node B when only one device is named.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

func main() {
	repo := flag.String("repo", "", "repository root (default: found from the working directory)")
	report := flag.String("report", "docs/contracts.md", "where to write the report, relative to the repository (or absolute); with -device or -only only when given")
	rootsFlag := flag.String("roots", "host,sid", "guest roots to run on")
	leaktest := flag.String("leaktest", "", "only build the synthetic leak probes of TestLeakCheckFails (leak_rxe_test.go) into this directory, for the host and sid roots (make bin/doccheck-leaktest)")
	only := flag.String("only", "", "run only the probes whose function/case matches this regular expression (for development: the report is written only where -report says)")
	var own ownOptions
	flag.StringVar(&own.Devices, "device", "", "the own-device mode: run the probes here, on this machine's device NAME (or NAME,NAME2: two connected devices, node A and B) and its installed rdma-core, not in the bed's guest; probes needing node B skip with one device")
	flag.StringVar(&own.Build, "build", "", "with -device: only build the harness and goprobe into this directory (for -prebuilt)")
	flag.StringVar(&own.Prebuilt, "prebuilt", "", "with -device: run the binaries -build left in this directory instead of building")
	flag.StringVar(&own.BuildRoot, "build-root", "", "with -device -build: build with this bed root's pinned headers and libraries instead of the installed ones (make doccheck-own)")
	flag.Parse()
	own.Sysfs, own.Include = "/sys/class/infiniband", "/usr/include"
	if err := checkFlags(own, flagSet("roots"), flagSet("report")); err != nil {
		fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
		os.Exit(2)
	}
	if *leaktest != "" {
		if err := leakTestBuild(*repo, *leaktest); err != nil {
			fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if (*only != "" || own.Devices != "") && !flagSet("report") {
		*report = ""
	}
	var err error
	if own.Devices != "" {
		err = runOwn(*repo, *report, *only, own)
	} else {
		err = run(*repo, *report, strings.Split(*rootsFlag, ","), *only)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "doccheck: %v\n", err)
		os.Exit(1)
	}
}

// leakTestBuild is doccheck -leaktest DIR: DIR relative to the working directory.
func leakTestBuild(repo, dir string) error {
	if repo == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if repo, err = rxebed.FindRepo(wd); err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return buildLeakTest(repo, abs)
}

// checkFlags refuses combinations that mean nothing: the own-device mode's flags without
// -device, -build with -prebuilt or -report, -build-root without -build, -roots with
// -device.
func checkFlags(o ownOptions, roots, report bool) error {
	switch {
	case o.Devices == "" && (o.Build != "" || o.Prebuilt != "" || o.BuildRoot != ""):
		return fmt.Errorf("-build, -prebuilt and -build-root belong to the own-device mode (-device)")
	case o.Devices != "" && roots:
		return fmt.Errorf("-roots names the bed's guest roots; -device runs on this machine's installed rdma-core")
	case o.Build != "" && o.Prebuilt != "":
		return fmt.Errorf("-build and -prebuilt exclude each other")
	case o.Build != "" && report:
		return fmt.Errorf("-build only builds: it writes no report")
	case o.BuildRoot != "" && o.Build == "":
		return fmt.Errorf("-build-root builds binaries for a bed root's guest: use it with -build")
	}
	return nil
}

// load reads spec/, the probes, the known mismatches and the crash map, keeping the probes
// and crash classes only matches.
func load(repo *string, only string) (*spec.Set, *Probes, []Known, *CrashMap, error) {
	if *repo == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if *repo, err = rxebed.FindRepo(wd); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	set, err := spec.Load(filepath.Join(*repo, "spec"))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	probes, err := LoadProbes(filepath.Join(*repo, "tools/doccheck/probes"), set)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	known, err := LoadKnown(filepath.Join(*repo, "tools/doccheck/known.yaml"), probes)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	crash, err := LoadCrashMap(filepath.Join(*repo, "tools/doccheck/crashmap.yaml"), set)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if only != "" {
		if err := selectOnly(probes, crash, only); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	return set, probes, known, crash, nil
}

// run runs the probes on the roots in want and writes the report to reportPath (relative to
// repo; not written when empty). A non-empty only keeps the probes whose function/case it
// matches.
func run(repo, reportPath string, want []string, only string) error {
	set, probes, known, crash, err := load(&repo, only)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "doccheck-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	goBins := map[string]string{} // by compiler ("" for the host's)
	results := &Results{Set: set, Probes: probes, Known: known, Crash: crash, Raw: map[string]map[int]Raw{},
		Go: map[string]map[int]GoRaw{}, Leftovers: map[string]Leftovers{}}
	for _, r := range roots(repo) {
		if !slices.Contains(want, r.Name) {
			continue
		}
		// The probes, the proofs of the claims' reasons, and on the crash roots the crash map.
		run := append(slices.Clone(probes.Probes), probes.proofs()...)
		if slices.Contains(crashRoots, r.Name) {
			run = append(run, crash.probes()...)
		}
		bin, kept, err := buildHarness(repo, tmp, r, run)
		if err != nil {
			return err
		}
		cc, err := goCompiler(repo, r.Name)
		if err != nil {
			return err
		}
		if goBins[cc] == "" {
			if goBins[cc], err = buildGoProbes(repo, tmp, append(slices.Clone(probes.Probes), crash.probes()...), cc); err != nil {
				return err
			}
		}
		goBin := goBins[cc]
		out, err := runGuest(repo, r, goBin, bin, kept)
		if err != nil {
			return err
		}
		collect(results, r, out, kept)
	}
	return finish(repo, reportPath, results)
}

// collect adds one root's output to results: a probe of kept without a line is a "no
// result" observation.
func collect(results *Results, r root, out *GuestOutput, kept []*Probe) {
	for _, l := range out.Printed {
		fmt.Printf("doccheck: on the %s root (rdma-core %s) a library printed: %s\n", r.Name, r.Version, l)
	}
	for _, p := range kept {
		if _, ok := out.C[p.id]; !ok {
			out.C[p.id] = Raw{ID: p.id, Status: "no result (the harness stopped early)"}
		}
		if _, ok := out.Go[p.id]; !ok && p.Go != "" {
			out.Go[p.id] = GoRaw{ID: p.id, Status: "no result (goprobe stopped early)"}
		}
	}
	results.Roots = append(results.Roots, r)
	results.Raw[r.Name] = out.C
	results.Go[r.Name] = out.Go
	results.Leftovers[r.Name] = out.Left
}

// finish writes the report to reportPath (when not empty), prints the summary and fails on
// a result that neither holds nor is known.
func finish(repo, reportPath string, results *Results) error {
	if reportPath != "" {
		out := reportPath
		if !filepath.IsAbs(out) {
			out = filepath.Join(repo, out)
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, []byte(results.Markdown()), 0o644); err != nil {
			return err
		}
	}
	fmt.Print(results.Summary())
	fmt.Print(results.leakCost())
	if reportPath != "" {
		fmt.Printf("doccheck: report written to %s\n", reportPath)
	}
	bad := results.Unexpected()
	fmt.Printf("doccheck: %d passed, %d failed\n", results.Observations()-len(bad), len(bad))
	if len(bad) > 0 {
		return fmt.Errorf("%d result(s) neither hold nor are recorded in tools/doccheck/known.yaml:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	return nil
}

// runGuest runs, in one rxe guest, goprobe: the C harness, then the Go probes, then the
// check that no verbs objects are left; it decodes their JSON lines.
func runGuest(repo string, r root, goBin, cBin string, kept []*Probe) (*GuestOutput, error) {
	var ids []string
	for _, p := range kept {
		ids = append(ids, fmt.Sprint(p.id))
	}
	rxe := filepath.Join(repo, "bin/rxe")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(rxe, "run", "-root="+r.Name, "-topology=two", goBin, "-c", cBin, "-ids", strings.Join(ids, ","))
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("running the harnesses on the %s root (rdma-core %s): %w\n%s%s", r.Name, r.Version, err, stdout.String(), stderr.String())
	}
	out, err := ParseGuestOutput(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("harness output on %s: %w", r.Name, err)
	}
	return out, nil
}

// goCompiler is the C compiler the Go probes for root are built with: "" (the host's) where
// a host build runs there, else the root's bin/cc-<root> (a root whose glibc is older than
// the host's; make doccheck builds it).
func goCompiler(repo, root string) (string, error) {
	cc, err := rxebed.CCArgs(repo, root)
	if err != nil || len(cc) == 1 {
		return "", err
	}
	bin := filepath.Join(repo, "bin", "cc-"+root)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("the %s root needs its compiler %s (make bin/cc-%s): %w", root, bin, root, err)
	}
	return bin, nil
}

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
