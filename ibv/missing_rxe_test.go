//go:build rxe

package ibv

import (
	"errors"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/internal/rxetest"
)

// TestNewerThanInstalled calls ibv_query_port_speed, new in rdma-core 62 (spec/since):
// where the installed library is 65 or newer it has it and answers for the
// device (rxe reports no speed: EOPNOTSUPP from the C function, an *Error
// naming it); on an older one (44, 56, 33) the symbol is missing and the
// call fails with a *MissingError wrapping EOPNOTSUPP that names the
// release, instead of crashing.
func TestNewerThanInstalled(t *testing.T) {
	env := rxetest.Guest(t)
	ctx := openDevice(t, env.Nodes[0].Dev)
	defer func() { require.NoError(t, ctx.CloseDevice()) }()
	speed, err := ctx.QueryPortSpeed(1)
	if env.Release >= 62 {
		var m *MissingError
		require.False(t, errors.As(err, &m), "rdma-core %s has the symbol: %v", env.RdmaCore, err)
		if err == nil {
			assert.NotZero(t, speed)
			return
		}
		var e *Error
		require.True(t, errors.As(err, &e), "%T: %v", err, err)
		assert.Equal(t, "ibv_query_port_speed", e.Func)
		assert.ErrorIs(t, err, unix.EOPNOTSUPP)
		return
	}
	require.ErrorIs(t, err, unix.EOPNOTSUPP)
	var m *MissingError
	require.True(t, errors.As(err, &m), "%T: %v", err, err)
	assert.Equal(t, "ibv_query_port_speed", m.Symbol)
	assert.Equal(t, "rdma-core 62", m.Since)
	assert.Contains(t, err.Error(), "needs rdma-core 62")
}
