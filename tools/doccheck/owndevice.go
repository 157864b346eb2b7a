//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// The own-device mode (doccheck -device NAME[,NAME2]): the probes run on this machine's own
// RDMA devices and its installed rdma-core, not in the bed's guest. The harness and goprobe
// are built against the installed headers and libraries (or, for make doccheck-own, a bed
// root's pinned ones: -build-root) and run here, with the environment they read
// (RXE_A_DEV, RXE_A_IP, ...) set from sysfs. Probes needing node B skip unless NAME2 is
// given; each skip is listed, with its reason, in the summary and the report.

// ownRootName is the root name of the own-device mode in Results (Raw, Go, Leftovers).
const ownRootName = "own"

// twoNodeFixtures are the fixtures that reach node B (harness.c.tmpl, goprobe): rdmacm
// connections and listeners on B's address, ids resolved towards B, UD endpoints towards
// B, librpma peers and connections on B.
var twoNodeFixtures = []string{"conn", "rcmid", "qpless", "udep", "rpeers", "rreq", "rsreq", "rconn", "rconnsh"}

// twoNodeMarks are what a probe's C or Go text uses when it reaches node B without a
// two-node fixture: B's address, and the connection helpers of harness.c.tmpl and goprobe.
var twoNodeMarks = []string{"RXE_B_", "conn_setup(", "conn_run(", "req_call(", "connSetup(", "connRun(", "reqCall(", "connected(", "resolveToB("}

// needsNodeB says why p needs the bed's second node, or "" when it does not.
func needsNodeB(p *Probe) string {
	for _, n := range p.Needs {
		if slices.Contains(twoNodeFixtures, n) {
			return fmt.Sprintf("needs node B (fixture %s)", n)
		}
	}
	text := p.Call + "\n" + p.Cleanup + "\n" + p.Go
	for _, m := range twoNodeMarks {
		if strings.Contains(text, m) {
			return fmt.Sprintf("needs node B (uses %s)", strings.TrimSuffix(m, "("))
		}
	}
	return ""
}

// Skipped is a probe the own-device mode does not run, and why.
type Skipped struct {
	Probe  *Probe `json:"-"`
	ID     int    `json:"id"`
	Reason string `json:"reason"`
}

// ownDevice is the own-device mode's run: the devices and what the probes skipped.
type ownDevice struct {
	Devices []rxetest.Node
	GID     int
	Skipped []Skipped
}

// selectOwn splits probes into those the own-device mode runs with devices devices and
// those it skips: with one device, every probe that needs node B.
func selectOwn(probes []*Probe, devices int) (run []*Probe, skipped []Skipped) {
	for _, p := range probes {
		if why := needsNodeB(p); why != "" && devices < 2 {
			skipped = append(skipped, Skipped{Probe: p, ID: p.id, Reason: why + "; name a second, connected device (-device NAME,NAME2)"})
			continue
		}
		run = append(run, p)
	}
	return run, skipped
}

// parseDevices splits -device's list; it fails on an empty one or more than two.
func parseDevices(list string) ([]string, error) {
	var devs []string
	for _, d := range strings.Split(list, ",") {
		if d = strings.TrimSpace(d); d != "" {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 || len(devs) > 2 {
		return nil, fmt.Errorf("-device %q: name one device, or two connected ones (NAME,NAME2)", list)
	}
	if len(devs) == 2 && devs[0] == devs[1] {
		return nil, fmt.Errorf("-device %q: the two devices must differ", list)
	}
	return devs, nil
}

// deviceEnv is the environment the harness and goprobe read (the bed's names), for the
// devices nodes with the RoCE v2 GID at index gid: node A is the first, node B the
// second if any.
func deviceEnv(nodes []rxetest.Node, gid int) []string {
	topo := "one"
	if len(nodes) > 1 {
		topo = "two"
	}
	env := []string{"RXE_TOPOLOGY=" + topo, "RXE_GID_INDEX=" + strconv.Itoa(gid)}
	for i, n := range nodes {
		p := "RXE_" + string(rune('A'+i)) + "_"
		env = append(env, p+"DEV="+n.Dev, p+"IP="+n.IP, p+"NETDEV="+n.Netdev)
	}
	return env
}

// withEnv is base without any RXE_* variable (the bed's), plus add.
func withEnv(base, add []string) []string {
	var out []string
	for _, kv := range base {
		if !strings.HasPrefix(kv, "RXE_") {
			out = append(out, kv)
		}
	}
	return append(out, add...)
}

// installedRoot is the root of the machine's own rdma-core: its headers in include (the
// system's /usr/include), its libraries found by the linker, its release detected from
// libibverbs' file name (rxetest.InstalledRelease). Like is the bed root of the same release,
// if any: its probes' roots and known.yaml's root entries apply.
func installedRoot(repo, include string) (root, error) {
	full, major, err := rxetest.InstalledRelease("/")
	if err != nil {
		return root{}, fmt.Errorf("the installed rdma-core: %w", err)
	}
	for _, h := range []string{"infiniband/verbs.h", "rdma/rdma_cma.h"} {
		if _, err := os.Stat(filepath.Join(include, h)); err != nil {
			return root{}, fmt.Errorf("rdma-core %s is installed without its headers (libibverbs-dev and librdmacm-dev, or rdma-core-devel): %w", full, err)
		}
	}
	r := root{Name: ownRootName, Version: strconv.Itoa(major), Full: full, Include: include, LinkArgs: []string{"-libverbs", "-lrdmacm"}}
	for _, l := range dvLibs {
		if _, err := os.Stat(filepath.Join(include, l.Header)); err == nil && libInstalled(l.SO) {
			r.DV = append(r.DV, l)
		}
	}
	r.LinkArgs = append(r.LinkArgs, dvLinkArgs(repo, r.Name, r.DV)...)
	if _, err := os.Stat(filepath.Join(include, "librpma.h")); err == nil {
		r.Rpma = include
		r.LinkArgs = append(r.LinkArgs, "-lrpma")
	}
	r.Like = likeRoot(repo, r.Version)
	return r, nil
}

// likeRoot is the bed root whose rdma-core release is version, or "".
func likeRoot(repo, version string) string {
	for _, b := range roots(repo) {
		if b.Version == version {
			return b.Name
		}
	}
	return ""
}

// manifest is what -build writes next to the binaries and -prebuilt reads: the probes each
// binary holds, the root they were built for.
type manifest struct {
	BuiltFor string   `json:"built_for"` // "installed" or a bed root's name
	DV       []string `json:"dv"`        // the direct-verbs libraries built in (dvLib.Library)
	Rpma     bool     `json:"rpma"`
	Kept     []int    `json:"kept"`
	Harness  string   `json:"harness"` // file names in the directory
	GoProbe  string   `json:"goprobe"`
}

// buildOwn builds the harness and goprobe for r into dir and writes the manifest.
func buildOwn(repo, dir string, r root, builtFor string, probes []*Probe) (*manifest, error) {
	bin, kept, err := buildHarness(repo, dir, r, probes)
	if err != nil {
		return nil, err
	}
	cc := ""
	if builtFor != "installed" {
		if cc, err = goCompiler(repo, builtFor); err != nil {
			return nil, err
		}
	}
	goBin, err := buildGoProbes(repo, dir, probes, cc)
	if err != nil {
		return nil, err
	}
	m := &manifest{BuiltFor: builtFor, Rpma: r.Rpma != "", Harness: filepath.Base(bin), GoProbe: filepath.Base(goBin)}
	for _, l := range r.DV {
		m.DV = append(m.DV, l.Library)
	}
	for _, p := range kept {
		m.Kept = append(m.Kept, p.id)
	}
	b, err := json.MarshalIndent(m, "", "\t")
	if err != nil {
		return nil, err
	}
	return m, os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644)
}

// readManifest reads dir's manifest.
func readManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("-prebuilt: %w (build with -build DIR first)", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("-prebuilt %s: %w", dir, err)
	}
	return &m, nil
}

// ownOptions are the own-device mode's flags.
type ownOptions struct {
	Devices   string // -device
	Build     string // -build: build into this directory and stop
	Prebuilt  string // -prebuilt: run the binaries -build left here
	BuildRoot string // -build-root: build with a bed root's pinned headers and libraries
	Sysfs     string // where the RDMA devices are listed
	Include   string // the installed headers
}

// runOwn is the own-device mode: it builds (unless o.Prebuilt) and runs the probes on the
// machine's devices, then reports as run does.
func runOwn(repo, reportPath, only string, o ownOptions) error {
	devs, err := parseDevices(o.Devices)
	if err != nil {
		return err
	}
	set, probes, known, _, err := load(&repo, only) // the crash map runs on the bed roots only
	if err != nil {
		return err
	}
	if o.Build != "" {
		r, builtFor, err := ownBuildRoot(repo, o)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(o.Build, 0o755); err != nil {
			return err
		}
		run, skipped := selectOwn(probes.Probes, len(devs))
		m, err := buildOwn(repo, o.Build, r, builtFor, run)
		if err != nil {
			return err
		}
		fmt.Printf("doccheck: built %d probes for %s in %s (%d skipped for -device %s)\n", len(m.Kept), builtFor, o.Build, len(skipped), o.Devices)
		return nil
	}
	nodes, gid, err := rxetest.OwnDevices(o.Sysfs, strings.Join(devs, ","))
	if err != nil {
		return fmt.Errorf("-device: %w", err)
	}
	full, major, err := rxetest.InstalledRelease("/")
	if err != nil {
		return fmt.Errorf("the installed rdma-core: %w", err)
	}
	run, skipped := selectOwn(probes.Probes, len(devs))
	dir, m := o.Prebuilt, (*manifest)(nil)
	if dir != "" {
		if m, err = readManifest(dir); err != nil {
			return err
		}
	} else {
		if dir, err = os.MkdirTemp("", "doccheck-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		r, builtFor, err := ownBuildRoot(repo, o)
		if err != nil {
			return err
		}
		if m, err = buildOwn(repo, dir, r, builtFor, run); err != nil {
			return err
		}
	}
	r := root{Name: ownRootName, Version: strconv.Itoa(major), Full: full, Like: likeRoot(repo, strconv.Itoa(major))}
	for _, l := range dvLibs {
		if slices.Contains(m.DV, l.Library) {
			r.DV = append(r.DV, l)
		}
	}
	var kept []*Probe
	for _, p := range run {
		if slices.Contains(m.Kept, p.id) {
			kept = append(kept, p)
		} else if why := notBuiltReason(p, r, m); why != "" {
			skipped = append(skipped, Skipped{Probe: p, ID: p.id, Reason: why})
		} else {
			return fmt.Errorf("%s/%s: not in the binaries of %s (built for another probe set: rebuild with -build)", p.Function, p.Case, dir)
		}
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return a.ID - b.ID })
	env := withEnv(os.Environ(), deviceEnv(nodes, gid))
	out, err := runLocal(filepath.Join(dir, m.GoProbe), filepath.Join(dir, m.Harness), kept, env)
	if err != nil {
		return fmt.Errorf("running the harnesses on %s (rdma-core %s): %w", o.Devices, full, err)
	}
	results := &Results{Set: set, Probes: probes, Known: known, Raw: map[string]map[int]Raw{},
		Go: map[string]map[int]GoRaw{}, Leftovers: map[string]Leftovers{},
		Own: &ownDevice{Devices: nodes, GID: gid, Skipped: skipped}}
	collect(results, r, out, kept)
	return finish(repo, reportPath, results)
}

// notBuiltReason says why a probe the mode would run is not in the binaries: the headers
// lack its function, the root lacks the library, the probe is for other roots. "" when
// none of these holds (the binaries were built for another probe set).
func notBuiltReason(p *Probe, r root, m *manifest) string {
	switch {
	case strings.HasPrefix(p.Function, "rpma_") && !m.Rpma:
		return "librpma is not installed"
	case isDVWithout(p.Function, m.DV):
		l, _ := dvLibOf(p.Function)
		return fmt.Sprintf("this rdma-core has no %s (%s)", l.SO, l.Header)
	case !r.runs(p):
		return fmt.Sprintf("limited to the bed roots %v", p.Roots)
	}
	return fmt.Sprintf("the installed headers (built for %s) do not declare %s", m.BuiltFor, p.Function)
}

// ownBuildRoot is the root the binaries are built for: the installed rdma-core, or the bed
// root -build-root names (make doccheck-own: the binaries then run in that root's guest).
func ownBuildRoot(repo string, o ownOptions) (root, string, error) {
	if o.BuildRoot == "" {
		r, err := installedRoot(repo, o.Include)
		return r, "installed", err
	}
	for _, r := range roots(repo) {
		if r.Name == o.BuildRoot {
			return r, r.Name, nil
		}
	}
	return root{}, "", fmt.Errorf("-build-root %q: not a bed root (%v)", o.BuildRoot, rxebed.Roots)
}

// runLocal runs goprobe (and through it the C harness) here, with env, and decodes its
// lines.
func runLocal(goBin, cBin string, kept []*Probe, env []string) (*GuestOutput, error) {
	var ids []string
	for _, p := range kept {
		ids = append(ids, strconv.Itoa(p.id))
	}
	cmd := exec.Command(goBin, "-c", cBin, "-ids", strings.Join(ids, ","))
	cmd.Env = env
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, b)
	}
	return ParseGuestOutput(b)
}
