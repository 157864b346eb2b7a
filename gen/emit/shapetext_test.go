package emit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/goverbs/goverbs/gen/spec"
)

func TestWindows(t *testing.T) {
	d := spec.Doc{Description: strings.Join([]string{
		"f() modifies qp with attr according to the mask attr_mask. The argument attr is a struct.",
		"",
		"The argument attr_mask specifies the attributes to modify. The argument is either 0 or the bitwise OR of the following flags:",
		"",
		"  - IBV_QP_STATE Modify qp_state",
		"  - IBV_QP_PORT Set port_num",
		"",
		"The dma-buf is identified by fd. The argument access describes the protection; only IBV_ACCESS_LOCAL_WRITE is supported.",
		"",
		"\tstruct s {",
		"\tint attr_mask; /* IBV_X */",
	}, "\n")}
	us := units(d)
	params := []string{"qp", "attr", "attr_mask", "fd", "access"}
	ws := windows(us, "attr_mask", params)
	if assert.Len(t, ws, 2) {
		assert.False(t, ws[0].strong, "the first sentence names attr too")
		assert.True(t, ws[1].strong)
		assert.Equal(t, []string{
			"The argument attr_mask specifies the attributes to modify",
			"The argument is either 0 or the bitwise OR of the following flags:",
			"IBV_QP_STATE Modify qp_state", "IBV_QP_PORT Set port_num",
		}, ws[1].text, "the sentences of its paragraph and the list it introduces, not code lines")
	}
	fd := windows(us, "fd", params)
	if assert.Len(t, fd, 1) {
		assert.Equal(t, []string{"The dma-buf is identified by fd"}, fd[0].text, "the next sentence names access")
	}
	assert.True(t, names("with fd.", "fd"))
	assert.False(t, names("qp->fd", "fd"))
	assert.False(t, names("fd_offset", "fd"))
	assert.False(t, names("fd()", "fd"))
}

func TestStripReceiver(t *testing.T) {
	for _, c := range [][3]string{
		{"DestroyQP", "QP", "Destroy"},
		{"PostSRQRecv", "SRQ", "PostRecv"},
		{"ConnCfgGetCQSize", "ConnCfg", "GetCQSize"},
		{"MRGetPtr", "MRLocal", "GetPtr"},
		{"QPToQPEx", "QP", "ToQPEx"},
		{"CreateCQ", "Context", "CreateCQ"},
		{"QP", "QP", "QP"},
	} {
		assert.Equal(t, c[2], stripReceiver(c[0], c[1]), c[0])
	}
}
