//go:build linux

package rxetest

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The DRM ioctls DMABuf makes (drm.h, drm_mode.h): create a dumb buffer, export a GEM
// handle as a DMA-BUF fd.
const (
	drmIoctlModeCreateDumb  = 0xc02064b2 // DRM_IOWR(0xB2, struct drm_mode_create_dumb)
	drmIoctlPrimeHandleToFD = 0xc00c642d // DRM_IOWR(0x2d, struct drm_prime_handle)
)

type drmModeCreateDumb struct {
	height, width, bpp, flags uint32
	handle, pitch             uint32
	size                      uint64
}

type drmPrimeHandle struct {
	handle, flags uint32
	fd            int32
}

// DMABuf returns a real DMA-BUF fd of at least size bytes, closed when the test ends: a dumb
// buffer of the guest's vgem device (a DRM driver without hardware, loaded by the bed)
// exported through PRIME. It fails the test when the guest has no vgem card.
func DMABuf(t testing.TB, size int) int {
	t.Helper()
	// /sys/class/drm/cardN -> ../../devices/platform/vgem/drm/cardN
	cards, _ := filepath.Glob("/sys/class/drm/card[0-9]*")
	dev := ""
	for _, c := range cards {
		if target, err := os.Readlink(c); err == nil && filepath.Base(filepath.Dir(filepath.Dir(target))) == "vgem" {
			dev = "/dev/dri/" + filepath.Base(c)
		}
	}
	if dev == "" {
		t.Fatalf("DMABuf: no vgem DRM card in /sys/class/drm (the bed loads vgem): %v", cards)
	}
	card, err := unix.Open(dev, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("DMABuf: open %s: %v", dev, err)
	}
	defer unix.Close(card)
	// A buffer of width×1 pixels of 32 bits.
	dumb := drmModeCreateDumb{height: 1, width: uint32((size + 3) / 4), bpp: 32}
	if err := ioctl(card, drmIoctlModeCreateDumb, unsafe.Pointer(&dumb)); err != nil {
		t.Fatalf("DMABuf: DRM_IOCTL_MODE_CREATE_DUMB: %v", err)
	}
	prime := drmPrimeHandle{handle: dumb.handle, flags: unix.O_CLOEXEC | unix.O_RDWR}
	if err := ioctl(card, drmIoctlPrimeHandleToFD, unsafe.Pointer(&prime)); err != nil {
		t.Fatalf("DMABuf: DRM_IOCTL_PRIME_HANDLE_TO_FD: %v", err)
	}
	fd := int(prime.fd)
	t.Cleanup(func() { unix.Close(fd) })
	if dumb.size < uint64(size) {
		t.Fatalf("DMABuf: vgem made %d bytes, %d asked", dumb.size, size)
	}
	return fd
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
