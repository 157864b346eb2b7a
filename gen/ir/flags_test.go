package ir

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func enumOf(tag string, vals ...int64) *Enum {
	e := &Enum{Key: "enum " + tag, Tag: tag}
	for i, v := range vals {
		e.Values = append(e.Values, &EnumValue{Name: string(rune('A' + i)), Value: v})
	}
	return e
}

func TestClassifyFlags(t *testing.T) {
	for _, c := range []struct {
		e    *Enum
		want bool
	}{
		{enumOf("ibv_access_flags", 1, 2, 4, 8, 1<<20, 0x3ff00000), true},
		{enumOf("ibv_atomic_cap", 0, 1, 2), false},
		{enumOf("ibv_mig_state", 0, 1, 2), false},
		{enumOf("ibv_qp_state", 0, 1, 2, 3, 4, 5, 6), false},
		{enumOf("ibv_send_flags", 1, 2, 4, 8, 16), true},
		{enumOf("ibv_wc_opcode", 0, 1, 2, 3, 4, 5, 128, 129), false},
		{enumOf("ibv_port_state", 0, 1, 2, 4, 8), true},
		{enumOf("ibv_node_type", -1, 1, 2, 4), false},
		{enumOf("ibv_tm_cap_flags", 1), true},
	} {
		p := &Package{Enums: []*Enum{c.e}}
		p.ClassifyFlags()
		assert.Equal(t, c.want, c.e.Flags, c.e.Tag)
	}
	anon := enumOf("", 1, 2, 4, 8)
	p := &Package{Enums: []*Enum{anon}}
	p.ClassifyFlags()
	assert.False(t, anon.Flags, "anonymous enums are plain constants")
}
