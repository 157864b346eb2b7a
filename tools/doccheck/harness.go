package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/goverbs/goverbs/internal/rxebed"
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
	Ionic    bool // ionic_dv.h and libionic exist in this version
	// Rpma is the pinned librpma include dir when the root has librpma (only sid: the host
	// root has none), relative to the repository; empty otherwise.
	Rpma string
}

func roots(repo string) []root {
	sidLib := filepath.Join(repo, rxebed.RootDir(rxebed.RootSid), "usr/lib/x86_64-linux-gnu")
	return []root{
		{Name: "host", Version: "44", Include: ".cache/inputs/rdma-core-44/usr/include", LinkArgs: []string{"-libverbs", "-lrdmacm"}},
		{Name: "sid", Version: "65", Include: ".cache/inputs/rdma-core-65/usr/include", Ionic: true, Rpma: ".cache/inputs/librpma/usr/include", LinkArgs: []string{
			// Link against the sid root's own libraries (run there): their glibc is newer
			// than the host's, hence --allow-shlib-undefined.
			filepath.Join(sidLib, "libibverbs.so.1"), filepath.Join(sidLib, "librdmacm.so.1"),
			filepath.Join(sidLib, "libionic.so.1"), filepath.Join(sidLib, "librpma.so.0"), "-Wl,--allow-shlib-undefined", "-Wl,-rpath-link=" + sidLib,
		}},
	}
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
		err := filepath.Walk(filepath.Join(repo, dir), func(p string, info os.FileInfo, err error) error {
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
		if p.runsOn(r.Name) && have[p.Function] && (r.Ionic || !strings.HasPrefix(p.Function, "ionic_")) && (r.Rpma != "" || !strings.HasPrefix(p.Function, "rpma_")) {
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
		Ionic  bool
		Rpma   bool
	}{hp, r.Ionic, r.Rpma != ""}); err != nil {
		f.Close()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "harness-"+r.Name)
	args := append([]string{"-std=gnu11", "-O0", "-Wall", "-Werror", "-Wno-unused-variable", "-Wno-unused-function",
		"-I", filepath.Join(repo, r.Include), "-o", bin, src}, r.LinkArgs...)
	if r.Rpma != "" {
		args = append(args, "-I", filepath.Join(repo, r.Rpma))
	}
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("compiling the doccheck harness for rdma-core %s: %w\n%s", r.Version, err, out)
	}
	return bin, kept, nil
}
