//go:build cgo

package ibv

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/dl"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"golang.org/x/sys/unix"
)

// TestCallInstalled calls the installed libibverbs through the generated
// trampolines, whatever its version, and checks that a function it lacks
// reports EOPNOTSUPP naming the release that introduced it.
func TestCallInstalled(t *testing.T) {
	var n int32
	list, errno, err := c_ibv_get_device_list(&n)
	if err != nil {
		assert.True(t, errors.Is(err, unix.EOPNOTSUPP), "missing library: %v", err)
		t.Skipf("libibverbs.so.1 not installed: %v", err)
	}
	t.Logf("ibv_get_device_list: %d devices, errno %v", n, errno)
	if list != nil {
		devs := unsafe.Slice(list, n)
		for _, d := range devs {
			name, _, err := c_ibv_get_device_name(d)
			assert.NoError(t, err)
			t.Logf("device %s", unix.BytePtrToString(name))
		}
		_, err = c_ibv_free_device_list(list)
		assert.NoError(t, err)
	}
	// ibv_query_port_speed is new in rdma-core 62 (spec/since); it is
	// resolved, and called only where it is missing.
	if _, err := sym_ibv_query_port_speed.Addr(); err == nil {
		t.Log("installed libibverbs has ibv_query_port_speed (rdma-core 62 or later); not called")
		return
	}
	_, _, err = c_ibv_query_port_speed(nil, 1, nil)
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP))
	assert.Contains(t, err.Error(), "ibv_query_port_speed")
	assert.Contains(t, err.Error(), "rdma-core 62")
}

// TestShimThroughLayout calls a static inline shim: c_ibv_wc_read_opcode
// reads cq.ReadOpcode through the generated ibv_cq_ex layout and calls it
// with a trampoline. libc's getpid stands in for the provider's op.
func TestShimThroughLayout(t *testing.T) {
	var cq CQEx
	_, _, err := c_ibv_wc_read_opcode(&cq)
	assert.True(t, errors.Is(err, unix.EOPNOTSUPP), "NULL op: %v", err)
	assert.Contains(t, err.Error(), "ibv_wc_read_opcode: the provider does not implement read_opcode")

	getpid, err := (&dl.Symbol{Lib: dl.NewLib("libc.so.6"), Name: "getpid"}).Addr()
	if !assert.NoError(t, err) {
		return
	}
	cq.ReadOpcode = getpid
	op, _, err := c_ibv_wc_read_opcode(&cq)
	assert.NoError(t, err)
	assert.Equal(t, WCOpcode(unix.Getpid()), op)
}

// TestDeviceListClose: the list GetDeviceList returns is released once, by
// its first Close; All and Len are empty after it, and a nil list is fine.
func TestDeviceListClose(t *testing.T) {
	var none *DeviceList
	assert.NoError(t, none.Close())
	assert.Zero(t, none.Len())
	assert.Nil(t, none.All())
	list, err := GetDeviceList()
	if err != nil {
		// A kernel without RDMA (the host of make test-host): libibverbs finds no
		// uverbs class and fails with ENOSYS, as ibv_get_device_list(3) documents; the
		// device tests run in the guest.
		assert.ErrorIs(t, err, unix.ENOSYS)
		assert.Nil(t, list)
		return
	}
	n := list.Len()
	assert.Len(t, list.All(), n)
	assert.NoError(t, list.Close())
	assert.NoError(t, list.Close(), "a second Close does nothing")
	assert.Zero(t, list.Len())
	assert.Nil(t, list.All())
}
