package rxetest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFromEnv(t *testing.T) {
	t.Setenv("RXE_GUEST", "")
	_, ok := FromEnv()
	require.False(t, ok, "outside the guest")

	t.Setenv("RXE_GUEST", "1")
	t.Setenv("RXE_ROOT", "sid")
	t.Setenv("RXE_TOPOLOGY", "two")
	t.Setenv("RXE_GID_INDEX", "1")
	t.Setenv("RXE_A_DEV", "rxe_a")
	t.Setenv("RXE_A_IP", "192.0.2.1")
	t.Setenv("RXE_A_NETDEV", "veth-a")
	t.Setenv("RXE_B_DEV", "rxe_b")
	t.Setenv("RXE_B_IP", "192.0.2.2")
	t.Setenv("RXE_B_NETDEV", "veth-b")
	e, ok := FromEnv()
	require.True(t, ok)
	require.Equal(t, &Env{Root: "sid", Topology: "two", GIDIndex: 1, Nodes: []Node{
		{Dev: "rxe_a", IP: "192.0.2.1", Netdev: "veth-a"},
		{Dev: "rxe_b", IP: "192.0.2.2", Netdev: "veth-b"},
	}}, e)
	a, b := e.Pair(t)
	require.Equal(t, "rxe_a", a.Dev)
	require.Equal(t, "rxe_b", b.Dev)
}
