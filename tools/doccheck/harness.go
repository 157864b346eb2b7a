//go:build linux

package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

//go:embed harness.c.tmpl
var harnessTemplate string

var harnessTmpl = template.Must(template.New("harness").Parse(harnessTemplate))

// root is a guest root and the pinned headers and libraries its harness is built with.
type root struct {
	Name     string // rxe run -root value
	Version  string // rdma-core version
	Include  string // pinned include dir, relative to the repository
	LinkArgs []string
	// DV are the direct-verbs libraries of dvLibs the root has (header and library):
	// their probes run there.
	DV []dvLib
	// Rpma is the pinned librpma include dir when the root has librpma (only sid: the host
	// root has none), relative to the repository; empty otherwise.
	Rpma string
	// Full is the full version ("65.0") where known (the own-device mode's installed
	// rdma-core); Like is, for that root, the bed root of the same release, if any.
	Full string
	Like string
}

// dir is the root's directory d (Include, Rpma): relative to the repository, or absolute
// (the installed headers of the own-device mode).
func (r root) dir(repo, d string) string {
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(repo, d)
}

// runs reports whether p runs on r: on the roots p names, or, for the own-device mode's
// installed rdma-core, on the bed root of its release.
func (r root) runs(p *Probe) bool {
	return p.runsOn(r.Name) || (r.Like != "" && p.runsOn(r.Like))
}

// cc is the compiler command the harness of r is built with.
func (r root) cc(repo string) ([]string, error) {
	if r.Name == ownRootName {
		return []string{"cc"}, nil
	}
	return rxebed.CCArgs(repo, r.Name)
}

func roots(repo string) []root {
	rs := []root{
		{Name: rxebed.RootHost, Version: "44", Include: ".cache/inputs/rdma-core-44/usr/include", LinkArgs: []string{"-libverbs", "-lrdmacm"}},
		{Name: rxebed.RootSid, Version: "65", Include: ".cache/inputs/rdma-core-65/usr/include", Rpma: ".cache/inputs/librpma/usr/include",
			LinkArgs: rootLibs(repo, rxebed.RootSid, "libibverbs.so.1", "librdmacm.so.1", "librpma.so.0")},
		// The subset roots of make test-rxe (libibverbs and librdmacm): no direct verbs
		// (their probes run on the main roots), no librpma in these roots.
		{Name: rxebed.RootTrixie, Version: "56", Include: ".cache/inputs/rdma-core-56/usr/include",
			LinkArgs: rootLibs(repo, rxebed.RootTrixie, "libibverbs.so.1", "librdmacm.so.1")},
		{Name: rxebed.RootBullseye, Version: "33", Include: ".cache/inputs/rdma-core-33/usr/include",
			LinkArgs: rootLibs(repo, rxebed.RootBullseye, "libibverbs.so.1", "librdmacm.so.1")},
	}
	for i := range rs[:2] {
		rs[i].DV = dvFor(repo, rs[i].Name, rs[i].Include)
		rs[i].LinkArgs = append(rs[i].LinkArgs, dvLinkArgs(repo, rs[i].Name, rs[i].DV)...)
	}
	return rs
}

// rootLibs links against the root's own libraries (the harness runs there): where the
// root's glibc is newer than the host's, they need symbols the host's glibc lacks, hence
// --allow-shlib-undefined; where it is older (bullseye), the compiler of rxebed.CCArgs
// links against the root's glibc.
func rootLibs(repo, name string, libs ...string) []string {
	dir := filepath.Join(repo, rxebed.RootDir(name), "usr/lib/x86_64-linux-gnu")
	var args []string
	for _, l := range libs {
		args = append(args, filepath.Join(dir, l))
	}
	// -lpthread: glibc before 2.34 (bullseye's 2.31) keeps pthread_create there.
	return append(args, "-lpthread", "-Wl,--allow-shlib-undefined", "-Wl,-rpath-link="+dir)
}

// release is the root's rdma-core release as a number (56 for "56").
func (r root) release() int {
	n, _ := strconv.Atoi(r.Version)
	return n
}

type harnessProbe struct {
	*Probe
	ID int
}

// declared lists which of the functions the root's headers declare.
func declared(repo string, r root, names []string) (map[string]bool, error) {
	var text strings.Builder
	dirs := []string{r.Include}
	if r.Rpma != "" {
		dirs = append(dirs, r.Rpma)
	}
	for _, dir := range dirs {
		err := filepath.Walk(r.dir(repo, dir), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(p, ".h") {
				return err
			}
			b, err := os.ReadFile(p)
			text.Write(b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("reading the pinned headers of the %s root (run make inputs): %w", r.Name, err)
		}
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = regexp.MustCompile(`\b` + regexp.QuoteMeta(n) + `\s*\(`).MatchString(text.String())
	}
	return out, nil
}

// buildHarness writes and compiles the C harness for one root; it returns the binary and
// the probes it holds.
func buildHarness(repo, dir string, r root, probes []*Probe) (string, []*Probe, error) {
	var names []string
	for _, p := range probes {
		names = append(names, p.Function)
	}
	have, err := declared(repo, r, names)
	if err != nil {
		return "", nil, err
	}
	var hp []harnessProbe
	var kept []*Probe
	for _, p := range probes {
		l, isDV := dvLibOf(p.Function)
		if r.runs(p) && have[p.Function] && (!isDV || r.hasDV(l)) && (r.Rpma != "" || !strings.HasPrefix(p.Function, "rpma_")) {
			hp = append(hp, harnessProbe{Probe: p, ID: p.id})
			kept = append(kept, p)
		}
	}
	src := filepath.Join(dir, "harness-"+r.Name+".c")
	f, err := os.Create(src)
	if err != nil {
		return "", nil, err
	}
	if err := harnessTmpl.Execute(f, struct {
		Probes []harnessProbe
		DV     []dvLib
		Rpma   bool
	}{hp, r.DV, r.Rpma != ""}); err != nil {
		f.Close()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "harness-"+r.Name)
	args := append([]string{"-std=gnu11", "-O0", "-Wall", "-Werror", "-Wno-unused-variable", "-Wno-unused-function",
		"-I", r.dir(repo, r.Include), "-o", bin, src}, r.LinkArgs...)
	if r.Rpma != "" {
		args = append(args, "-I", r.dir(repo, r.Rpma))
	}
	cc, err := r.cc(repo)
	if err != nil {
		return "", nil, err
	}
	if out, err := exec.Command(cc[0], append(cc[1:], args...)...).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("compiling the doccheck harness for rdma-core %s: %w\n%s", r.Version, err, out)
	}
	return bin, kept, nil
}
