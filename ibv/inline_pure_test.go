package ibv

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"
)

func TestIncRKey(t *testing.T) {
	assert.Equal(t, uint32(0x12345601), IncRKey(0x12345600))
	assert.Equal(t, uint32(0x12345600), IncRKey(0x123456ff), "the tag wraps without carrying into the index")
}

func TestFlowLabelToUDPSport(t *testing.T) {
	assert.Equal(t, uint16(0xc000), FlowLabelToUDPSport(0))
	assert.Equal(t, uint16(0xc000|0x3fff), FlowLabelToUDPSport(0x3fff))
	assert.Equal(t, uint16(0xc000|0x1), FlowLabelToUDPSport(0x4000), "bit 14 folds into bit 0")
	assert.Equal(t, uint16(0xc000|0x3f), FlowLabelToUDPSport(0xfc000))
}

func TestIsQPTSupported(t *testing.T) {
	caps := uint32(1)<<uint32(QPTypeRC) | uint32(1)<<uint32(QPTypeUD)
	assert.True(t, IsQPTSupported(caps, QPTypeRC))
	assert.True(t, IsQPTSupported(caps, QPTypeUD))
	assert.False(t, IsQPTSupported(caps, QPTypeUC))
	assert.False(t, IsQPTSupported(caps, QPType(40)))
}
