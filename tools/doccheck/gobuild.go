//go:build linux

package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"text/template"
)

//go:embed goprobes.go.tmpl
var goprobesTemplate string

var goprobesTmpl = template.Must(template.New("goprobes").Parse(goprobesTemplate))

// goProbe is a probe with a Go side, as the template sees it.
type goProbe struct {
	*Probe
	ID int
}

// buildGoProbes generates the `go:` snippets into the goprobe command (as zprobes.go,
// placed with go build -overlay: nothing is written into the repository) and builds it with
// the repository's module. The binary runs every root's probes; -ids picks a root's. A
// non-empty cc is the C compiler (CC) of a root whose glibc is older than the host's
// (bin/cc-bullseye); the binary is then named for it.
func buildGoProbes(repo, dir string, probes []*Probe, cc string) (string, error) {
	var gp []goProbe
	for _, p := range probes {
		if p.Go != "" {
			gp = append(gp, goProbe{Probe: p, ID: p.id})
		}
	}
	src := filepath.Join(dir, "zprobes.go")
	f, err := os.Create(src)
	if err != nil {
		return "", err
	}
	if err := goprobesTmpl.Execute(f, struct {
		Probes []goProbe
		DV     []dvLib // their packages are imported (all: a binary runs on every root)
	}{gp, dvLibs}); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{
		"Replace": {filepath.Join(repo, "tools/doccheck/goprobe/zprobes.go"): src},
	})
	if err != nil {
		return "", err
	}
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, overlay, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "goprobe")
	if cc != "" {
		bin += "-" + filepath.Base(cc)
	}
	cmd := exec.Command("go", "build", "-overlay", ovPath, "-o", bin, "./tools/doccheck/goprobe")
	if cc != "" {
		cmd.Env = append(os.Environ(), "CC="+cc)
	}
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the Go probes (errors name probes[function/case]:line of the snippet): %w\n%s", err, out)
	}
	return bin, nil
}
