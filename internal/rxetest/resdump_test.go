//go:build linux

package rxetest

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

// recorded reads the dump of kind recorded in testdata/rdma-netlink: the messages the
// guest's kernel (Linux 6.1) sent for both devices while an ibv_rc_pingpong server (pid
// 112) and an rping server (pid 114) waited for clients, each with its netlink header.
func recorded(t testing.TB, kind string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/rdma-netlink", kind+".bin"))
	require.NoError(t, err)
	msgs, err := syscall.ParseNetlinkMessage(data)
	require.NoError(t, err)
	var out [][]byte
	for _, m := range msgs {
		out = append(out, m.Data)
	}
	return out
}

func TestParseRecordedDumps(t *testing.T) {
	const pp, rp = 112, 114
	byPID := map[int][]string{}
	for _, k := range resKinds {
		rs, err := parseDump(k, recorded(t, k.name))
		require.NoError(t, err, k.name)
		for _, r := range rs {
			require.Equal(t, k.name, r.Kind)
			require.Contains(t, []string{"rxe_a", "rxe_b"}, r.Dev)
			if r.PID == 0 {
				require.Equal(t, "ib_core", r.Comm, "only the kernel's objects have no pid: %s", r)
				continue
			}
			require.Empty(t, r.Comm, "a user object's name comes from /proc: %s", r)
			byPID[r.PID] = append(byPID[r.PID], r.String())
		}
	}
	require.Len(t, byPID, 2)
	require.Equal(t, []string{"ctx", "pd", "mr", "cq", "qp"}, kindsOf(byPID[pp]))
	require.Equal(t, []string{"ctx", "pd", "cm_id"}, kindsOf(byPID[rp]))
	require.Contains(t, byPID[pp], "qp 17 on rxe_b (pid "+strconv.Itoa(pp)+" )")
	require.Contains(t, byPID[rp], "cm_id 0 on rxe_b (pid "+strconv.Itoa(rp)+" )")
	require.Contains(t, byPID[rp], "pd 2 on rxe_b (pid "+strconv.Itoa(rp)+" )")
}

// userOwned keeps exactly the objects of user processes: in the recorded dumps, those of
// the two servers, and none of ib_core's.
func TestUserOwned(t *testing.T) {
	k, _ := kindByName("qp")
	rs, err := parseDump(k, recorded(t, "qp"))
	require.NoError(t, err)
	kernel := 0
	for _, r := range rs {
		if r.PID == 0 {
			kernel++
		}
	}
	require.Positive(t, kernel, "the dump holds the kernel's GSI QPs")
	kept := userOwned(rs)
	require.Len(t, kept, len(rs)-kernel)
	for _, r := range kept {
		require.Equal(t, 112, r.PID, r.String())
	}
}

// nlattr encodes one attribute, padded.
func nlattr(typ uint16, val []byte) []byte {
	b := make([]byte, unix.SizeofNlAttr, unix.SizeofNlAttr+len(val)+3)
	binary.NativeEndian.PutUint16(b, uint16(unix.SizeofNlAttr+len(val)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	b = append(b, val...)
	for len(b)%unix.NLA_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

func u32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }
func str(s string) []byte { return append([]byte(s), 0) }
func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// encodeDump writes resources of kind k as the kernel does: one message per run of the
// same device, its entries in a table.
func encodeDump(k resKind, rs []Resource) [][]byte {
	var msgs [][]byte
	for i := 0; i < len(rs); {
		j := i
		var entries []byte
		for ; j < len(rs) && rs[j].Dev == rs[i].Dev; j++ {
			e := nlattr(k.num, u32(uint32(rs[j].ID)))
			if rs[j].PID != 0 {
				e = append(e, nlattr(attrResPID, u32(uint32(rs[j].PID)))...)
			}
			if rs[j].Comm != "" {
				e = append(e, nlattr(attrResKernel, str(rs[j].Comm))...)
			}
			entries = append(entries, nlattr(k.entry, e)...)
		}
		msgs = append(msgs, cat(nlattr(attrDevIndex, u32(uint32(len(msgs)))), nlattr(attrDevName, str(rs[i].Dev)), nlattr(k.table|0x8000, entries)))
		i = j
	}
	return msgs
}

func TestEncodeDumpRoundTrip(t *testing.T) {
	k, _ := kindByName("srq")
	rs := []Resource{{Kind: "srq", Dev: "rxe_a", ID: 3, PID: 9}, {Kind: "srq", Dev: "rxe_a", ID: 4, PID: 9}, {Kind: "srq", Dev: "rxe_b", ID: 0, Comm: "ib_core"}}
	got, err := parseDump(k, encodeDump(k, rs))
	require.NoError(t, err)
	require.Equal(t, rs, got)
}

// A dump that is not what was asked for fails the listing: read as "no objects" it would
// hide a leak.
func TestParseDumpErrors(t *testing.T) {
	pd, _ := kindByName("pd")
	dev := nlattr(attrDevName, str("rxe_a"))
	entry := func(attrs ...[]byte) []byte { return nlattr(pd.entry, cat(attrs...)) }
	for _, c := range []struct {
		name, want string
		msg        []byte
	}{
		{"short", "3 trailing bytes", []byte{1, 2, 3}},
		{"length past the end", "attribute length 64", cat(dev, []byte{64, 0, 1, 0})},
		{"length below the header", "attribute length 2", []byte{2, 0, 1, 0}},
		{"no device", "no device name", nlattr(pd.table, nil)},
		{"device name not terminated", "device name", cat(nlattr(attrDevName, []byte("rxe_a")), nlattr(pd.table, nil))},
		{"another kind's table", "no pd table", cat(dev, nlattr(46+40, nil))},
		{"foreign entry", "entry 0 has attribute type 36", cat(dev, nlattr(pd.table, nlattr(36, nil)))},
		{"entry without number", "no object number", cat(dev, nlattr(pd.table, entry(nlattr(attrResPID, u32(7)))))},
		{"short number", "number: 2 bytes", cat(dev, nlattr(pd.table, entry(nlattr(pd.num, []byte{1, 0}))))},
		{"short pid", "pid: 1 bytes", cat(dev, nlattr(pd.table, entry(nlattr(pd.num, u32(1)), nlattr(attrResPID, []byte{7}))))},
		{"kernel name with a NUL inside", "kernel name", cat(dev, nlattr(pd.table, entry(nlattr(pd.num, u32(1)), nlattr(attrResKernel, []byte("ib\x00core\x00")))))},
	} {
		_, err := parseDump(pd, [][]byte{c.msg})
		require.ErrorContains(t, err, c.want, c.name)
	}
	// An empty table, and no message at all, are no objects.
	rs, err := parseDump(pd, [][]byte{cat(dev, nlattr(pd.table, nil))})
	require.NoError(t, err)
	require.Empty(t, rs)
	rs, err = parseDump(pd, nil)
	require.NoError(t, err)
	require.Empty(t, rs)
}
