package rdmacm

import (
	"net/netip"
	"syscall"
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/assert"

	"github.com/goverbs/goverbs/internal/cerr"
	"golang.org/x/sys/unix"
)

func TestSockaddrRoundTrip(t *testing.T) {
	for _, s := range []string{"10.0.0.1:7471", "[fe80::1%2]:20079", "[::1]:1", "0.0.0.0:0"} {
		ap := netip.MustParseAddrPort(s)
		sa := NewSockaddr(ap)
		got, ok := sa.AddrPort()
		assert.True(t, ok, s)
		assert.Equal(t, ap, got, s)
		assert.Equal(t, s, sa.String())
	}
	assert.Equal(t, uint16(unix.AF_INET), NewSockaddr(netip.MustParseAddrPort("1.2.3.4:5")).Family())
	var zero SockaddrStorage
	_, ok := (*Sockaddr)(unsafePointer(&zero)).AddrPort()
	assert.False(t, ok)
	assert.Equal(t, "sockaddr(family 0)", (*Sockaddr)(unsafePointer(&zero)).String())
}

func unsafePointer(s *SockaddrStorage) unsafe.Pointer { return unsafe.Pointer(s) }

func TestEAISentinels(t *testing.T) {
	err := cerr.EAIOrMinusOneErrno("rdma_getaddrinfo", -1, syscall.Errno(uint32(0xfffffffe)))
	assert.ErrorIs(t, err, EAINoName)
	assert.NotErrorIs(t, err, EAIAgain)
	assert.Equal(t, "EAI_AGAIN", EAIAgain.Name)
	assert.Equal(t, "rdma_getaddrinfo: EAI_NONAME (-2)", err.Error())
}
