//go:build linux

package main

import (
	"fmt"
	"strings"
)

// describe names the devices and the rdma-core the own-device mode ran on.
func (o *ownDevice) describe(rs []root) string {
	var devs []string
	for i, n := range o.Devices {
		devs = append(devs, fmt.Sprintf("%s (node %c, %s on %s, GID index %d)", n.Dev, 'A'+i, n.IP, n.Netdev, o.GID))
	}
	full := ""
	if len(rs) > 0 {
		full = rs[0].Full
	}
	return fmt.Sprintf("this machine's %s, own-device mode, installed rdma-core %s", strings.Join(devs, " and "), full)
}

// skipSummary lists the skipped probes for the summary, one line each.
func (o *ownDevice) skipSummary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "own-device mode: %d probes skipped\n", len(o.Skipped))
	for _, s := range o.Skipped {
		fmt.Fprintf(&b, "  skipped %s/%s: %s\n", s.Probe.Function, s.Probe.Case, s.Reason)
	}
	return b.String()
}

// preamble says, at the report's top, where the probes ran.
func (o *ownDevice) preamble(rs []root) string {
	return "**Own-device mode** (`go run ./tools/doccheck -device ...`): the probes ran on " + o.describe(rs) +
		", not in the bed's guest. The expectations were written for rxe: on another device a result is what that device" +
		" measured, which may differ from rxe's. Probes needing what only the bed has (its second node) are listed under Skipped.\n\n"
}

// skipSection is the report's list of skipped probes.
func (o *ownDevice) skipSection() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Skipped\n\n%d probes did not run in the own-device mode:\n\n", len(o.Skipped))
	for _, s := range o.Skipped {
		fmt.Fprintf(&b, "- `%s` / %s: %s\n", s.Probe.Function, s.Probe.Case, s.Reason)
	}
	b.WriteString("\n")
	return b.String()
}
