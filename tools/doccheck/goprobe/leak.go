//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdmacm"
)

// leftovers is a probe process's leak check, as the C harness's leak_check: after the probe's
// release and teardown, the kernel's resource tracker (rxetest.Resources, what `rdma resource
// show` lists) must hold no verbs object of this process but librdmacm's device contexts, one
// per device once rdma_get_devices has opened them all (librdmacm keeps them until exit). It
// returns what is left, or why it could not be listed; "" when nothing is.
func leftovers() string {
	if held, err := holdsRDMAFile(); err == nil && !held {
		return "" // no verbs object can outlive every file of the RDMA devices
	}
	rs, err := rxetest.Resources(os.Getpid())
	if err != nil {
		return "cannot list verbs objects: " + err.Error()
	}
	if len(rs) == 0 {
		return ""
	}
	ndev := -1
	if countKind(rs, "ctx") == len(rs) {
		// Only contexts: have librdmacm open every device, then one per device must be left.
		list, err := rdmacm.GetDevices()
		if err != nil {
			return "rdma_get_devices, to tell librdmacm's contexts: " + err.Error()
		}
		ndev = list.Len()
		if err := list.Close(); err != nil {
			return "rdma_free_devices: " + err.Error()
		}
		if rs, err = rxetest.Resources(os.Getpid()); err != nil {
			return "cannot list verbs objects: " + err.Error()
		}
		if countKind(rs, "ctx") == ndev && len(rs) == ndev {
			return ""
		}
	}
	var objs []string
	for _, r := range rs {
		objs = append(objs, r.String())
	}
	if ndev >= 0 {
		return fmt.Sprintf("%d verbs object(s) left after the teardown, where librdmacm keeps %d context(s): %s", len(rs), ndev, strings.Join(objs, "; "))
	}
	return fmt.Sprintf("%d verbs object(s) left after the teardown: %s", len(rs), strings.Join(objs, "; "))
}

// holdsRDMAFile reports whether the process still has a file of an RDMA device
// (/dev/infiniband/*: a context's uverbs file, librdmacm's rdma_cm) open or mapped. Every
// verbs object belongs to such a file, and the kernel destroys a file's objects when its last
// reference goes, so a process holding none owns no object: the leak check then needs no
// netlink dump (which costs about 0.1 s in the TCG guest).
func holdsRDMAFile() (bool, error) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return true, err
	}
	for _, fd := range fds {
		if t, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(t, "/dev/infiniband/") {
			return true, nil
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return true, err
	}
	return strings.Contains(string(maps), "/dev/infiniband/"), nil
}

func countKind(rs []rxetest.Resource, kind string) int {
	n := 0
	for _, r := range rs {
		if r.Kind == kind {
			n++
		}
	}
	return n
}
