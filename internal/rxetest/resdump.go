//go:build linux

package rxetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// The kernel's resource tracker, read over RDMA netlink as `rdma resource show <kind>`
// reads it: one dump (RDMA_NLDEV_CMD_RES_<KIND>_GET) per device and kind, whose messages
// each hold the device's name and a table of entries, one per object. Read directly rather
// than through the rdma tool: the tool of an older root (iproute2 5.10 in bullseye) knows
// no ctx or srq, while the kernel the guest runs (6.1) reports every kind on every root;
// and a netlink request costs far less than starting a process under TCG. The numbers are
// those of <rdma/rdma_netlink.h> (kernel ABI).

// resKind is one kind of object: its dump command, table and entry attributes, and the
// attribute holding the object's number.
type resKind struct {
	name                   string
	cmd, table, entry, num uint16
}

// resKinds, in Kinds order.
var resKinds = []resKind{
	{"ctx", 22, 86, 87, 64},   // RDMA_NLDEV_CMD_RES_CTX_GET, ATTR_RES_CTX, _CTX_ENTRY, _CTXN
	{"pd", 14, 46, 47, 60},    // RES_PD_GET, RES_PD, RES_PD_ENTRY, RES_PDN
	{"mr", 13, 40, 41, 62},    // RES_MR_GET, RES_MR, RES_MR_ENTRY, RES_MRN
	{"cq", 12, 35, 36, 61},    // RES_CQ_GET, RES_CQ, RES_CQ_ENTRY, RES_CQN
	{"srq", 23, 88, 89, 90},   // RES_SRQ_GET, RES_SRQ, RES_SRQ_ENTRY, RES_SRQN
	{"qp", 10, 19, 20, 21},    // RES_QP_GET, RES_QP, RES_QP_ENTRY, RES_LQPN
	{"cm_id", 11, 30, 31, 63}, // RES_CM_ID_GET, RES_CM_ID, RES_CM_ID_ENTRY, RES_CM_IDN
}

const (
	nlNLDev       = 5  // RDMA_NL_NLDEV, the client of the device commands
	attrDevIndex  = 1  // RDMA_NLDEV_ATTR_DEV_INDEX, u32
	attrDevName   = 2  // RDMA_NLDEV_ATTR_DEV_NAME, string
	attrResPID    = 28 // RDMA_NLDEV_ATTR_RES_PID, u32: the creating thread (user objects)
	attrResKernel = 29 // RDMA_NLDEV_ATTR_RES_KERN_NAME, string (the kernel's objects)
	nlaTypeMask   = 0x3fff
)

func kindByName(name string) (resKind, bool) {
	for _, k := range resKinds {
		if k.name == name {
			return k, true
		}
	}
	return resKind{}, false
}

// listKindOn returns every object of one kind on the RDMA devices devs, the kernel's
// included (AllResources lists the devices once for every kind).
func listKindOn(k resKind, devs []rdmaDev) ([]Resource, error) {
	var out []Resource
	for _, d := range devs {
		msgs, err := dump(k, d.index)
		if err != nil {
			return nil, fmt.Errorf("netlink dump of %s on %s: %w", k.name, d.name, err)
		}
		rs, err := parseDump(k, msgs)
		if err != nil {
			return nil, fmt.Errorf("netlink dump of %s on %s: %w", k.name, d.name, err)
		}
		for i := range rs {
			if rs[i].Comm == "" && rs[i].PID > 0 {
				rs[i].Comm = comm(rs[i].PID)
			}
		}
		out = append(out, rs...)
	}
	return out, nil
}

// dump runs one dump of kind k on device dev (RDMA_NLDEV_ATTR_DEV_INDEX), again when the
// kernel says it was interrupted (the table changed while it was read).
func dump(k resKind, dev uint32) ([][]byte, error) {
	return nlDumpRetry(rdmaNLType(nlNLDev, k.cmd), appendAttr(nil, attrDevIndex, binary.NativeEndian.AppendUint32(nil, dev)))
}

// comm is the name of process pid, as the rdma tool shows it ("" once it has exited).
func comm(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parseDump decodes the messages (payloads, past the netlink header) of one dump of kind k.
// Every message must carry the device's name and the kind's table: a message that has
// neither is not what was asked for, and reading it as "no objects" would hide leaks.
func parseDump(k resKind, msgs [][]byte) ([]Resource, error) {
	var out []Resource
	for i, m := range msgs {
		attrs, err := parseAttrs(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		dev, table := "", []byte(nil)
		haveTable := false
		for _, a := range attrs {
			switch a.typ {
			case attrDevName:
				if dev, err = nlString(a.val); err != nil {
					return nil, fmt.Errorf("message %d: device name: %w", i, err)
				}
			case k.table:
				table, haveTable = a.val, true
			}
		}
		if dev == "" {
			return nil, fmt.Errorf("message %d: no device name", i)
		}
		if !haveTable {
			return nil, fmt.Errorf("message %d: no %s table", i, k.name)
		}
		entries, err := parseAttrs(table)
		if err != nil {
			return nil, fmt.Errorf("message %d: %s table: %w", i, k.name, err)
		}
		for j, e := range entries {
			if e.typ != k.entry {
				return nil, fmt.Errorf("message %d: %s table: entry %d has attribute type %d", i, k.name, j, e.typ)
			}
			r, err := parseEntry(k, dev, e.val)
			if err != nil {
				return nil, fmt.Errorf("message %d: %s entry %d: %w", i, k.name, j, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func parseEntry(k resKind, dev string, b []byte) (Resource, error) {
	attrs, err := parseAttrs(b)
	if err != nil {
		return Resource{}, err
	}
	r := Resource{Kind: k.name, Dev: dev, ID: -1}
	for _, a := range attrs {
		switch a.typ {
		case k.num:
			n, err := nlU32(a.val)
			if err != nil {
				return Resource{}, fmt.Errorf("number: %w", err)
			}
			r.ID = int64(n)
		case attrResPID:
			n, err := nlU32(a.val)
			if err != nil {
				return Resource{}, fmt.Errorf("pid: %w", err)
			}
			r.PID = int(n)
		case attrResKernel:
			if r.Comm, err = nlString(a.val); err != nil {
				return Resource{}, fmt.Errorf("kernel name: %w", err)
			}
		}
	}
	if r.ID < 0 {
		return Resource{}, errors.New("no object number")
	}
	return r, nil
}

// nlAttr is one netlink attribute: its type (flags masked off) and payload.
type nlAttr struct {
	typ uint16
	val []byte
}

// parseAttrs splits b into attributes (struct nlattr, each padded to 4 bytes).
func parseAttrs(b []byte) ([]nlAttr, error) {
	var out []nlAttr
	for len(b) > 0 {
		if len(b) < unix.SizeofNlAttr {
			return nil, fmt.Errorf("%d trailing bytes", len(b))
		}
		n := int(binary.NativeEndian.Uint16(b))
		if n < unix.SizeofNlAttr || n > len(b) {
			return nil, fmt.Errorf("attribute length %d of %d bytes left", n, len(b))
		}
		out = append(out, nlAttr{typ: binary.NativeEndian.Uint16(b[2:]) & nlaTypeMask, val: b[unix.SizeofNlAttr:n]})
		n = (n + unix.NLA_ALIGNTO - 1) &^ (unix.NLA_ALIGNTO - 1)
		if n > len(b) {
			n = len(b) // the last attribute's padding may be left out
		}
		b = b[n:]
	}
	return out, nil
}

func nlU32(b []byte) (uint32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%d bytes, want 4", len(b))
	}
	return binary.NativeEndian.Uint32(b), nil
}

// nlString reads a NUL-terminated netlink string.
func nlString(b []byte) (string, error) {
	s, ok := strings.CutSuffix(string(b), "\x00")
	if !ok || strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("%q is not one NUL-terminated string", b)
	}
	return s, nil
}
