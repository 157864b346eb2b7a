//go:build linux

package rxebed

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/cavaliergopher/cpio"
)

// checkStatic refuses an init binary that needs a dynamic loader: the initramfs has none.
func checkStatic(exe string) error {
	f, err := elf.Open(exe)
	if err != nil {
		return fmt.Errorf("reading %s: %w", exe, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0 (make bin/rxe)", exe)
		}
	}
	return nil
}

// writeInitramfs writes a newc cpio archive holding the init binary, the guest config and
// the boot modules (taken from modDir, stored under /modules).
func writeInitramfs(dst, initBin string, cfg *GuestConfig, modDir string) error {
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	w := cpio.NewWriter(bw)
	dirs := map[string]bool{}
	mkdir := func(p string) error {
		var chain []string
		for d := p; d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			chain = append([]string{d}, chain...)
		}
		for _, d := range chain {
			dirs[d] = true
			if err := w.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755}); err != nil {
				return err
			}
		}
		return nil
	}
	addFile := func(name string, mode cpio.FileMode, src io.Reader, size int64) error {
		if err := mkdir(path.Dir(name)); err != nil {
			return err
		}
		if err := w.WriteHeader(&cpio.Header{Name: name, Mode: cpio.TypeReg | mode, Size: size}); err != nil {
			return err
		}
		_, err := io.Copy(w, src)
		return err
	}
	addPath := func(name string, mode cpio.FileMode, src string) error {
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		return addFile(name, mode, f, st.Size())
	}
	for _, d := range []string{"dev", "proc", "sys", "host", "newroot", "ovl"} {
		if err := mkdir(d); err != nil {
			return err
		}
	}
	if err := addPath("init", 0o755, initBin); err != nil {
		return err
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := addFile(guestConfigPath[1:], 0o644, bytes.NewReader(js), int64(len(js))); err != nil {
		return err
	}
	for _, m := range cfg.BootModules {
		if err := addPath(path.Join(guestModulesDir[1:], m), 0o644, filepath.Join(modDir, m)); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return out.Close()
}
