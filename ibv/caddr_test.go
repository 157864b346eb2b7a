package ibv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// GetCQEventAddr resolves the same symbol the generated wrapper calls
// (libibverbs1 is a host dependency: tools/host-deps.txt).
func TestGetCQEventAddr(t *testing.T) {
	p, err := GetCQEventAddr()
	require.NoError(t, err)
	require.NotNil(t, p)
	q, err := sym_ibv_get_cq_event.Addr()
	require.NoError(t, err)
	require.Equal(t, q, p)
}
