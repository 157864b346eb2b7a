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
}

func roots(repo string) []root {
	sidLib := filepath.Join(repo, ".cache/sidroot/usr/lib/x86_64-linux-gnu")
	return []root{
		{Name: "host", Version: "44", Include: ".cache/inputs/rdma-core-44/usr/include", LinkArgs: []string{"-libverbs", "-lrdmacm"}},
		{Name: "sid", Version: "65", Include: ".cache/inputs/rdma-core-65/usr/include", Ionic: true, LinkArgs: []string{
			// Link against the sid root's own libraries (run there): their glibc is newer
			// than the host's, hence --allow-shlib-undefined.
			filepath.Join(sidLib, "libibverbs.so.1"), filepath.Join(sidLib, "librdmacm.so.1"),
			filepath.Join(sidLib, "libionic.so.1"), "-Wl,--allow-shlib-undefined", "-Wl,-rpath-link=" + sidLib,
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
	err := filepath.Walk(filepath.Join(repo, r.Include), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".h") {
			return err
		}
		b, err := os.ReadFile(p)
		text.Write(b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the pinned headers of rdma-core %s (run make inputs): %w", r.Version, err)
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
		if p.runsOn(r.Name) && have[p.Function] && (r.Ionic || !strings.HasPrefix(p.Function, "ionic_")) {
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
	}{hp, r.Ionic}); err != nil {
		f.Close()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "harness-"+r.Name)
	args := append([]string{"-std=gnu11", "-O0", "-Wall", "-Werror", "-Wno-unused-variable", "-Wno-unused-function",
		"-I", filepath.Join(repo, r.Include), "-o", bin, src}, r.LinkArgs...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("compiling the doccheck harness for rdma-core %s: %w\n%s", r.Version, err, out)
	}
	return bin, kept, nil
}
