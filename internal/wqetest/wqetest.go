// Package wqetest compares the Go forms of the direct verbs' static inline
// helpers (mlx5dv.SetCtrlSeg, mlx4dv.SetDataSeg, ...) with the C inlines
// they mirror, byte for byte. A test describes each helper once (Op): the C
// call, compiled by gcc against a pinned header, and the Go call. Both run on
// the same input buffer and arguments; the buffers they leave and the values
// they return must be equal.
//
// The C side is one program per header version, started once and fed one
// call per line, so that a fuzz target can run thousands of inputs: a table
// and a fuzz target of the package share Check. As internal/layouttest, it
// needs gcc ($CC) and the pinned inputs (`make inputs`: a missing input fails
// the test), and runs the program through $GOVERBS_LAYOUT_EXEC when that is
// set (qemu-user for the arm64 run of tools/layout/arm64.sh).
package wqetest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/pinned"
)

// Size is the buffer every call works on: the segment at offset 0 and, from
// In on, the arrays a helper copies from (a MAC, a GID, inline headers).
const (
	Size = 512
	In   = 256
)

// MaxArgs is the number of integer arguments a call can take.
const MaxArgs = 12

// Op is one helper.
type Op struct {
	Name string
	// C is the C statement, with b the buffer (unsigned char *, 64-byte
	// aligned), a the arguments (uint64_t a[MaxArgs]) and r (uint64_t) the
	// value to report: "mlx5dv_set_data_seg((void *)b, a[0], a[1], a[2]);".
	C string
	// Guard is a preprocessor condition the C side needs
	// ("defined(__SSE3__)"); empty for none.
	Guard string
	// Prep normalises the input before both calls, to the domain on which C
	// defines the helper (a shift below 64, a field within one word); nil
	// for none.
	Prep func(buf []byte, a []uint64)
	// Go is the Go call on the same buffer and arguments, returning r.
	Go func(buf []byte, a []uint64) uint64
}

// Buffer returns a zeroed buffer of Size bytes, 64-byte aligned like the C
// side's, so that a segment can be viewed as the generated Go type.
func Buffer() []byte {
	w := make([]uint64, Size/8+8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
	off := (64 - int(uintptr(unsafe.Pointer(&b[0]))%64)) % 64
	return b[off : off+Size]
}

// Program is the C source calling ops; includes are the headers.
func Program(includes []string, ops []Op) string {
	var b strings.Builder
	b.WriteString("#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n")
	for _, h := range includes {
		fmt.Fprintf(&b, "#include <%s>\n", h)
	}
	b.WriteString(`
static unsigned char b[` + strconv.Itoa(Size) + `] __attribute__((aligned(64)));
static char line[65536];

static int hexval(int c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

int main(void)
{
	printf("caps");
`)
	for _, op := range ops {
		if op.Guard != "" {
			fmt.Fprintf(&b, "#if %s\n\tprintf(\" %s\");\n#endif\n", op.Guard, op.Name)
		}
	}
	b.WriteString(`	printf("\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t a[` + strconv.Itoa(MaxArgs) + `] = {0}, r = 0;
		char *op = strtok(line, " \n"), *hx = strtok(NULL, " \n"), *t;
		size_t i, n;
		int na = 0;
		if (!op || !hx)
			return 2;
		n = strlen(hx) / 2;
		if (n > sizeof(b))
			return 3;
		memset(b, 0, sizeof(b));
		for (i = 0; i < n; i++)
			b[i] = hexval(hx[2 * i]) << 4 | hexval(hx[2 * i + 1]);
		while ((t = strtok(NULL, " \n")) && na < ` + strconv.Itoa(MaxArgs) + `)
			a[na++] = strtoull(t, NULL, 16);
		if (0) {
		}
`)
	for _, op := range ops {
		if op.Guard != "" {
			fmt.Fprintf(&b, "#if %s\n", op.Guard)
		}
		fmt.Fprintf(&b, "\t\telse if (!strcmp(op, %q)) {\n\t\t\t%s\n\t\t}\n", op.Name, op.C)
		if op.Guard != "" {
			b.WriteString("#endif\n")
		}
	}
	b.WriteString(`		else {
			printf("unknown %s\n", op);
			fflush(stdout);
			continue;
		}
		printf("ok %llx ", (unsigned long long)r);
		for (i = 0; i < n; i++)
			printf("%02x", b[i]);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}
`)
	return b.String()
}

// Proc is the running C program of one header version.
type Proc struct {
	Version string
	// Caps are the guarded ops the program has (Op.Guard held).
	Caps map[string]bool
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
}

// start compiles the program of ops against the pinned headers of rdma-core
// version v and starts it. On amd64 it compiles with -mssse3 (the SSE3 versions use the SSSE3
// _mm_shuffle_epi8: -msse3 alone fails to compile the header), so that the
// SSE3 versions of the helpers exist (a Guard of "defined(__SSE3__)"). The
// source and the binary are removed once the program runs.
func start(v string, includes []string, ops []Op) (*Proc, error) {
	repo, err := pinned.RepoRoot(".")
	if err != nil {
		return nil, err
	}
	root, err := pinned.FindRoot(repo, v)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "wqetest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "wqe"+v+".c")
	bin := filepath.Join(dir, "wqe"+v)
	if err := os.WriteFile(src, []byte(Program(includes, ops)), 0o644); err != nil {
		return nil, err
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	args := []string{"-std=gnu11", "-O2", "-Wall", "-Werror", "-Wno-unused-function", "-o", bin, src}
	if runtime.GOARCH == "amd64" {
		args = append(args, "-mssse3")
	}
	for _, d := range root.Include {
		args = append(args, "-I", d)
	}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", cc, err, out)
	}
	argv := append(strings.Fields(os.Getenv("GOVERBS_LAYOUT_EXEC")), bin)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Version: v, Caps: map[string]bool{}, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 4*Size)}
	caps, err := p.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(caps, "caps") {
		p.Close()
		return nil, fmt.Errorf("%s: no caps line (%q): %v", bin, caps, err)
	}
	for _, c := range strings.Fields(caps)[1:] {
		p.Caps[c] = true
	}
	return p, nil
}

// Close ends the program.
func (p *Proc) Close() {
	p.in.Close()
	p.cmd.Wait()
}

// Call runs op in C on buf and a, and returns the buffer C left and r.
func (p *Proc) Call(op string, buf []byte, a []uint64) ([]byte, uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b bytes.Buffer
	b.WriteString(op + " " + hex.EncodeToString(buf))
	for _, x := range a {
		b.WriteString(" " + strconv.FormatUint(x, 16))
	}
	b.WriteString("\n")
	if _, err := p.in.Write(b.Bytes()); err != nil {
		return nil, 0, fmt.Errorf("rdma-core %s: %s: %w", p.Version, op, err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return nil, 0, fmt.Errorf("rdma-core %s: %s: the C program ended: %w", p.Version, op, err)
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ok" {
		return nil, 0, fmt.Errorf("rdma-core %s: %s: %q", p.Version, op, line)
	}
	r, err := strconv.ParseUint(f[1], 16, 64)
	if err != nil {
		return nil, 0, err
	}
	out, err := hex.DecodeString(f[2])
	return out, r, err
}

// Check runs op in C (on every proc) and in Go on a copy of in and the
// arguments a (after op.Prep), and fails t where the bytes or the results
// differ.
func Check(t testing.TB, procs []*Proc, op Op, in []byte, a []uint64) {
	t.Helper()
	buf := Buffer()
	copy(buf, in)
	args := make([]uint64, MaxArgs)
	copy(args, a)
	if op.Prep != nil {
		op.Prep(buf, args)
	}
	input := append([]byte(nil), buf...)
	r := op.Go(buf, args)
	for _, p := range procs {
		if op.Guard != "" && !p.Caps[op.Name] {
			continue
		}
		cbuf, cr, err := p.Call(op.Name, input, args)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cbuf, buf) || cr != r {
			t.Errorf("%s, rdma-core %s, arguments %#x:\ninput %x\nC     %x (r %#x)\nGo    %x (r %#x)", op.Name, p.Version, args, input, cbuf, cr, buf, r)
		}
	}
}

// Versions are the rdma-core releases whose inlines are compared: 44 and 65,
// the two main roots (a helper's body could differ between them).
var Versions = []string{"65", "44"}

// Start starts the C program of ops for every version of Versions. The
// programs run until the test binary exits (they end when their input
// closes), so one start serves a table test and every input of a fuzz
// target.
func Start(includes []string, ops []Op) ([]*Proc, error) {
	var ps []*Proc
	for _, v := range Versions {
		p, err := start(v, includes, ops)
		if err != nil {
			for _, q := range ps {
				q.Close()
			}
			return nil, fmt.Errorf("rdma-core %s: %w", v, err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Lazy starts the programs on first use and returns them, or fails t.
type Lazy struct {
	Includes []string
	Ops      []Op
	once     sync.Once
	procs    []*Proc
	err      error
}

// Procs returns the running programs, starting them on the first call.
func (l *Lazy) Procs(t testing.TB) []*Proc {
	t.Helper()
	l.once.Do(func() { l.procs, l.err = Start(l.Includes, l.Ops) })
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.procs
}
