package layouttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/pinned"
)

// CSide is what the C program printed.
type CSide struct {
	Records map[string][2]uintptr            // size, align
	Fields  map[string]map[string][2]uintptr // record -> member -> offset, size
	Consts  map[string]uint64
}

// Run checks tb against the headers of every input version. Missing inputs
// fail the test: run `make inputs`.
func Run(t *testing.T, tb *Table) {
	repo, err := pinned.RepoRoot(".")
	require.NoError(t, err)
	newest := pinned.Versions[0]
	for _, v := range pinned.Versions {
		t.Run("rdma-core-"+v, func(t *testing.T) {
			root, err := pinned.FindRoot(repo, v)
			require.NoError(t, err, "run `make inputs`")
			c, err := Compile(t.TempDir(), tb, root)
			require.NoError(t, err)
			Compare(t, tb, c, v, v == newest)
		})
	}
}

// Compile builds and runs the C program of tb for root.
func Compile(dir string, tb *Table, root pinned.Root) (*CSide, error) {
	src := filepath.Join(dir, tb.Package+"_layout.c")
	bin := filepath.Join(dir, tb.Package+"_layout")
	if err := os.WriteFile(src, []byte(Program(tb, string(root.Version))), 0o644); err != nil {
		return nil, err
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	args := []string{"-std=gnu11", "-w", "-o", bin, src}
	for _, d := range root.Include {
		args = append(args, "-I", d)
	}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", cc, err, out)
	}
	// GOVERBS_LAYOUT_EXEC runs the program through an emulator when the
	// test itself runs under one, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu"
	// with CC=aarch64-linux-gnu-gcc (see docs/generator.md, "Layout proof", arm64).
	argv := append(strings.Fields(os.Getenv("GOVERBS_LAYOUT_EXEC")), bin)
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	return Parse(string(out))
}

// Compare checks the Go side against the C side of version v. On the newest
// version everything must be equal. On older versions every record, member
// and constant the version declares must be equal too, or differ by exactly
// the recorded difference (SizeDiff, OffsetDiff); a record that only grew
// must have every newer member past its older size: an extended struct
// (comp_mask style) whose older prefix is unchanged, or be a new alternative
// of a union (Field.InUnion).
func Compare(t *testing.T, tb *Table, c *CSide, v string, newest bool) {
	for _, r := range tb.Records {
		if !has(r.In, v) {
			continue
		}
		cr, ok := c.Records[r.C]
		if !assert.True(t, ok, "%s: missing in C output", r.C) {
			continue
		}
		assert.Equal(t, cr[1], r.Align, "%s: alignment", r.C)
		size, moved := r.Size, false
		if d, ok := r.SizeDiff[v]; ok && !newest {
			size = uintptr(int(size) + d)
		}
		for _, f := range r.Fields {
			if !has(f.In, v) {
				continue
			}
			off, fsize := f.Offset, f.Size
			if d, ok := f.OffsetDiff[v]; ok && !newest {
				off, moved = uintptr(int(off)+d), true
			}
			if d, ok := f.SizeDiff[v]; ok && !newest {
				fsize = uintptr(int(fsize) + d)
			}
			cf, ok := c.Fields[r.C][f.C]
			if assert.True(t, ok, "%s.%s: missing in C output", r.C, f.C) {
				assert.Equal(t, [2]uintptr{off, fsize}, cf, "%s.%s: offset, size", r.C, f.C)
			}
		}
		assert.Equal(t, size, cr[0], "%s: size", r.C)
		if size < r.Size && !moved {
			// An extended struct: what is new lies past the older size.
			for _, f := range r.Fields {
				if !has(f.In, v) && f.Offset < size && !f.InUnion {
					t.Errorf("%s: %s is new after rdma-core %s but lies inside its %d bytes", r.C, f.C, v, size)
				}
			}
		}
	}
	for _, k := range tb.Consts {
		if !has(k.In, v) {
			continue
		}
		cv, ok := c.Consts[k.C]
		if assert.True(t, ok, "%s: missing in C output", k.C) {
			assert.Equal(t, cv, k.Value, "%s: value (bits)", k.C)
		}
	}
}
