package layouttest

import (
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/require"
)

func TestParse(t *testing.T) {
	c, err := Parse("R struct ibv_qp 160 8\nF struct ibv_qp qp_num 52 4\nC IBV_ACCESS_LOCAL_WRITE 1\n")
	require.NoError(t, err)
	require.Equal(t, [2]uintptr{160, 8}, c.Records["struct ibv_qp"])
	require.Equal(t, [2]uintptr{52, 4}, c.Fields["struct ibv_qp"]["qp_num"])
	require.Equal(t, uint64(1), c.Consts["IBV_ACCESS_LOCAL_WRITE"])
}

// A size the program did not print as a number is an error, not a size of 0.
func TestParseRefusesBadNumbers(t *testing.T) {
	for out, want := range map[string]string{
		"R struct ibv_qp 160 8\nR struct ibv_cq x 8\n": `line 2: "R struct ibv_cq x 8": not a number: "x"`,
		"F struct ibv_qp qp_num 52 -4\n":               `line 1: "F struct ibv_qp qp_num 52 -4": not a number: "-4"`,
		"C A 1\nC B 0x10\n":                            `line 2: "C B 0x10": not a number: "0x10"`,
		"R struct ibv_qp 160\n":                        `line 1: "R struct ibv_qp 160": not a number: "ibv_qp"`,
		"R ibv_qp 160\n":                               `line 1: unexpected line "R ibv_qp 160"`,
	} {
		_, err := Parse(out)
		require.EqualError(t, err, want)
	}
}
