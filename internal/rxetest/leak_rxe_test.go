//go:build linux && rxe

package rxetest

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"
)

// A test that starts and ends other processes, and closes what it opens, leaks nothing.
func TestNoLeaksClean(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	a, b := e.Pair(t)
	srv := start(t, "ibv_rc_pingpong", "-d", b.Dev, "-g", strconv.Itoa(e.GIDIndex), "-n", "5")
	waitFor(t, "ibv_rc_pingpong to listen", func() bool { return TCPListening(18515) })
	_, err := run(t, 30e9, "ibv_rc_pingpong", "-d", a.Dev, "-g", strconv.Itoa(e.GIDIndex), "-n", "5", b.IP)
	require.NoError(t, err)
	_, err = srv.wait(30e9)
	require.NoError(t, err)
}

// The objects of a child process are the child's: listed under its pid, never the test's.
func TestResourcesOfAnotherProcess(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	_, b := e.Pair(t)
	pp := start(t, "ibv_rc_pingpong", "-d", b.Dev, "-g", strconv.Itoa(e.GIDIndex))
	waitFor(t, "ibv_rc_pingpong to listen", func() bool { return TCPListening(18515) })
	rp := start(t, "rping", "-s", "-a", b.IP)
	waitFor(t, "rping to listen", func() bool { return cmListening(t) })

	mine, err := Resources(os.Getpid())
	require.NoError(t, err)
	require.Empty(t, mine)

	theirs, err := Resources(pp.cmd.Process.Pid)
	require.NoError(t, err)
	require.Equal(t, []string{"ctx", "pd", "mr", "cq", "qp"}, kinds(theirs), "%v", theirs)
	for _, r := range theirs {
		require.Equal(t, b.Dev, r.Dev, "%s", r)
		require.Equal(t, "ibv_rc_pingpong", r.Comm, "%s", r)
	}
	theirs, err = Resources(rp.cmd.Process.Pid)
	require.NoError(t, err)
	require.Equal(t, []string{"ctx", "pd", "cm_id"}, kinds(theirs), "%v", theirs)
	pp.kill()
	rp.kill()
	_, _ = pp.wait(10e9)
	_, _ = rp.wait(10e9)
}

// The netlink reader lists what the rdma tool lists, object for object, for every kind the
// root's tool knows (iproute2 5.10 knows no ctx or srq: it says "Unknown parameter"; the
// kernel reports them all the same, and the other tests here see them).
func TestResourcesMatchRdmaTool(t *testing.T) {
	NoLeaks(t)
	e := Guest(t)
	_, b := e.Pair(t)
	pp := start(t, "ibv_rc_pingpong", "-d", b.Dev, "-g", strconv.Itoa(e.GIDIndex))
	waitFor(t, "ibv_rc_pingpong to listen", func() bool { return TCPListening(18515) })
	rp := start(t, "rping", "-s", "-a", b.IP)
	waitFor(t, "rping to listen", func() bool { return cmListening(t) })

	compared := 0
	for _, k := range resKinds {
		out, err := exec.Command("rdma", "-j", "resource", "show", k.name).CombinedOutput()
		require.NoError(t, err, "%s", out)
		if strings.HasPrefix(string(out), "Unknown parameter") {
			require.Contains(t, []string{"ctx", "srq"}, k.name, "the tool lacks %s", k.name)
			continue
		}
		var tool []map[string]any
		require.NoError(t, json.Unmarshal(out, &tool), "%s", out)
		var want []string
		for _, m := range tool {
			pid, _ := m["pid"].(float64)
			want = append(want, Resource{Kind: k.name, Dev: m["ifname"].(string), ID: int64(m[jsonID[k.name]].(float64)), PID: int(pid), Comm: m["comm"].(string)}.String())
		}
		rs, err := listKind(k)
		require.NoError(t, err)
		var got []string
		for _, r := range rs {
			got = append(got, r.String())
		}
		require.ElementsMatch(t, want, got, k.name)
		compared++
	}
	require.GreaterOrEqual(t, compared, 5, "pd, mr, cq, qp and cm_id are compared on every root")
	pp.kill()
	rp.kill()
	_, _ = pp.wait(10e9)
	_, _ = rp.wait(10e9)
}

// jsonID is the field of `rdma -j resource show <kind>` holding the object's number.
var jsonID = map[string]string{"ctx": "ctxn", "pd": "pdn", "mr": "mrn", "cq": "cqn", "srq": "srqn", "qp": "lqpn", "cm_id": "cm-idn"}

// Objects the test process itself creates are found, and NoLeaks reports them. Without the
// generated API (and with no cgo in tests) the test talks to the kernel's uverbs write ABI
// directly: GET_CONTEXT, then ALLOC_PD, on the device's /dev/infiniband/uverbsN.
func TestNoLeaksFindsOwnObjects(t *testing.T) {
	e := Guest(t)
	dev := e.Nodes[0].Dev
	// NoLeaks reports what appears after it is called.
	rec := &recTB{TB: t}
	NoLeaks(rec)
	fd, asyncFD := uverbsPD(t, dev)

	mine, err := Resources(os.Getpid())
	require.NoError(t, err)
	require.Equal(t, []string{"ctx", "pd"}, kinds(mine), "%v", mine)
	rec.runCleanups()
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], "2 verbs object(s) leaked")
	// The kernel names the creating thread, not necessarily the process's main thread.
	require.Regexp(t, `\n  ctx \d+ on `+dev+` \(pid \d+ `, rec.errs[0])
	require.Regexp(t, `\n  pd \d+ on `+dev+` \(pid \d+ `, rec.errs[0])

	// Closing the files destroys the objects.
	require.NoError(t, unix.Close(asyncFD))
	require.NoError(t, unix.Close(fd))
	mine, err = Resources(os.Getpid())
	require.NoError(t, err)
	require.Empty(t, mine)
}

func kinds(rs []Resource) []string {
	var out []string
	for _, r := range rs {
		if len(out) == 0 || out[len(out)-1] != r.Kind {
			out = append(out, r.Kind)
		}
	}
	return out
}

// uverbsPD opens dev's uverbs file, creates a user context and a PD, and returns the
// uverbs and async event file descriptors (closing both destroys them).
func uverbsPD(t *testing.T, dev string) (fd, asyncFD int) {
	t.Helper()
	matches, err := filepath.Glob("/sys/class/infiniband_verbs/uverbs*/ibdev")
	require.NoError(t, err)
	path := ""
	for _, m := range matches {
		b, err := os.ReadFile(m)
		require.NoError(t, err)
		if strings.TrimSpace(string(b)) == dev {
			path = "/dev/infiniband/" + filepath.Base(filepath.Dir(m))
		}
	}
	require.NotEmpty(t, path, "no uverbs device for %s", dev)
	fd, err = unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	require.NoError(t, err)

	const cmdGetContext, cmdAllocPD = 0, 3
	resp := make([]byte, 64)
	uverbsWrite(t, fd, cmdGetContext, resp, 2) // ib_uverbs_get_context_resp: async_fd, num_comp_vectors
	asyncFD = int(binary.LittleEndian.Uint32(resp))
	uverbsWrite(t, fd, cmdAllocPD, resp, 1) // ib_uverbs_alloc_pd_resp: pd_handle
	return fd, asyncFD
}

// uverbsWrite sends one legacy write-ABI command whose body is only the response pointer.
func uverbsWrite(t *testing.T, fd int, cmd uint32, resp []byte, outWords uint16) {
	t.Helper()
	buf := make([]byte, 16)
	binary.LittleEndian.PutUint32(buf[0:], cmd)
	binary.LittleEndian.PutUint16(buf[4:], uint16(len(buf)/4)) // in_words count the header
	binary.LittleEndian.PutUint16(buf[6:], outWords)
	binary.LittleEndian.PutUint64(buf[8:], uint64(uintptr(unsafe.Pointer(&resp[0]))))
	n, err := unix.Write(fd, buf)
	require.NoError(t, err, "uverbs command %d", cmd)
	require.Equal(t, len(buf), n)
}

// listKind returns every object of one kind on every RDMA device, the kernel's included.
func listKind(k resKind) ([]Resource, error) {
	devs, err := rdmaDevices()
	if err != nil {
		return nil, err
	}
	return listKindOn(k, devs)
}
