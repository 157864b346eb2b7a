//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/goverbs/goverbs/gen/spec"
	"github.com/goverbs/goverbs/tools/internal/rxebed"
)

// leakProbesYAML are synthetic probes that prove the leak check and the teardown's checks can
// fail a run: doccheck -leaktest builds them into a C harness per root and a goprobe, which
// TestLeakCheckFails (leak_rxe_test.go) runs in the guest on each root. Each case's name says
// what must come of it.
const leakProbesYAML = `probes:
  - function: ibv_reg_mr
    case: clean
    why: the control, a region registered on the fixture PD and deregistered by the probe
    needs: [pd]
    call: ({ static char b[4096]; ibv_reg_mr(pd, b, sizeof b, IBV_ACCESS_LOCAL_WRITE); })
    cleanup: if (ret) ibv_dereg_mr(ret);
    expect: success
    go: |
      return keep(pd().RegMR(cmem(4096), ibv.AccessFlagsLocalWrite))
  - function: rdma_create_id
    case: rdmacm-cache
    why: the control, an id bound to node A's address (librdmacm opens the device and keeps its context until exit) and destroyed by the probe
    needs: [ech]
    call: ({ struct rdma_cm_id *id; struct sockaddr_in a; int rc = rdma_create_id(ech, &id, NULL, RDMA_PS_TCP); ip_of("RXE_A_IP", &a); if (!rc && (rdma_bind_addr(id, (struct sockaddr *)&a) || rdma_destroy_id(id))) fail("bind"); rc; })
    expect: success
    go: |
      id, err := ech().CreateID(nil, rdmacm.PortSpaceTCP)
      if err != nil {
      	return err
      }
      must("bind", id.BindAddr(sockaddr("RXE_A_IP", 0)))
      return id.DestroyID()
  - function: ibv_open_device
    case: leaks-a-context
    why: a context of its own with a PD and a region on it, never released, so the kernel keeps them until the process exits
    needs: [dev]
    call: |-
      ({ static char b[4096]; struct ibv_context *c = ibv_open_device(dev); struct ibv_pd *p = c ? ibv_alloc_pd(c) : NULL; if (!p || !ibv_reg_mr(p, b, sizeof b, IBV_ACCESS_LOCAL_WRITE)) fail("leak"); c; })
    expect: success
    go: |
      c, err := dev().Open()
      if err != nil {
      	return err
      }
      p, err := c.AllocPD()
      must("pd", err)
      _, err = p.RegMR(cmem(4096), ibv.AccessFlagsLocalWrite)
      must("mr", err)
      return nil
  - function: ibv_reg_mr
    case: busy-teardown
    why: a region on the fixture PD that the probe does not deregister, so the teardown's ibv_dealloc_pd fails with EBUSY
    needs: [pd]
    call: ({ static char b[4096]; ibv_reg_mr(pd, b, sizeof b, IBV_ACCESS_LOCAL_WRITE); })
    expect: success
    go: |
      _, err := pd().RegMR(cmem(4096), ibv.AccessFlagsLocalWrite)
      return err
`

// leakProbes parses leakProbesYAML.
func leakProbes(set *spec.Set) (*Probes, error) {
	return parseProbes("leakprobes.yaml", []byte(leakProbesYAML), set)
}

// leakTestRoots are the roots TestLeakCheckFails runs on (doccheck's own rxe tests: host and
// sid), by rdma-core release.
var leakTestRoots = []string{rxebed.RootHost, rxebed.RootSid}

// buildLeakTest builds the synthetic leak probes into dir: harness-<release> for each root of
// leakTestRoots and goprobe (doccheck -leaktest; make bin/doccheck-leaktest).
func buildLeakTest(repo, dir string) error {
	set, err := spec.Load(filepath.Join(repo, "spec"))
	if err != nil {
		return err
	}
	p, err := leakProbes(set)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "doccheck-leaktest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, r := range roots(repo) {
		if !slices.Contains(leakTestRoots, r.Name) {
			continue
		}
		bin, kept, err := buildHarness(repo, tmp, r, p.Probes)
		if err != nil {
			return err
		}
		if len(kept) != len(p.Probes) {
			return fmt.Errorf("the %s root's harness holds %d of the %d leak probes", r.Name, len(kept), len(p.Probes))
		}
		if err := os.Rename(bin, filepath.Join(dir, "harness-"+r.Version)); err != nil {
			return err
		}
	}
	bin, err := buildGoProbes(repo, tmp, p.Probes, "")
	if err != nil {
		return err
	}
	return os.Rename(bin, filepath.Join(dir, "goprobe"))
}
