package ibv

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
)

func TestEnumString(t *testing.T) {
	assert.Equal(t, "IBV_QPT_RC", QPTypeRC.String())
	assert.Equal(t, "IBV_QPS_RTS", QPStateRTS.String())
	assert.Equal(t, "QPType(77)", QPType(77).String())
	assert.Equal(t, "IBV_NODE_UNKNOWN", NodeTypeUnknown.String(), "a negative enumerator")
}

func TestFlagsString(t *testing.T) {
	f := AccessFlagsLocalWrite | AccessFlagsRemoteRead
	assert.Equal(t, "IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_READ", f.String())
	assert.True(t, f.Has(AccessFlagsRemoteRead))
	assert.False(t, f.Has(AccessFlagsRemoteWrite))
	assert.Equal(t, "IBV_ACCESS_LOCAL_WRITE|0x80000000", (AccessFlagsLocalWrite | 1<<31).String())
	assert.Equal(t, "0", AccessFlags(0).String())
}
