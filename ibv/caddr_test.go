package ibv

import (
	"testing"
	"unsafe"

	"github.com/goverbs/goverbs/internal/testkit/require"

	"github.com/goverbs/goverbs/internal/dl"
)

// GetCQEventAddr and AckCQEventsAddr resolve the same symbols the
// generated wrappers call (libibverbs1 is a host dependency:
// tools/host-deps.txt).
func TestCAddrs(t *testing.T) {
	for name, c := range map[string]struct {
		got func() (unsafe.Pointer, error)
		sym *dl.Symbol
	}{
		"ibv_get_cq_event":  {GetCQEventAddr, sym_ibv_get_cq_event},
		"ibv_ack_cq_events": {AckCQEventsAddr, sym_ibv_ack_cq_events},
	} {
		p, err := c.got()
		require.NoError(t, err, name)
		require.NotNil(t, p, name)
		q, err := c.sym.Addr()
		require.NoError(t, err, name)
		require.Equal(t, q, p, name)
	}
}
