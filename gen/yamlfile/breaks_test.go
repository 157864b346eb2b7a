package yamlfile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

type doc struct {
	A int `yaml:"a"`
}

// Positions below a comment ended by CRLF are those of the line the reader sees (go-yaml
// alone reports line 3 here).
func TestCRLFPositions(t *testing.T) {
	var d doc
	_, err := Decode("f.yaml", []byte("# c\r\na: 1\r\nb: 2\r\n"), &d)
	require.ErrorContains(t, err, "f.yaml:3:1: ")
	_, err = Decode("f.yaml", []byte("# c\r\na: 1\r\n"), &d)
	require.NoError(t, err)
	require.Equal(t, 1, d.A)
}

func TestLoneCRRefused(t *testing.T) {
	var d doc
	_, err := Decode("f.yaml", []byte("a: 1\r\n# é\rb: 2\n"), &d)
	require.EqualError(t, err, `f.yaml:2:4: carriage return without a line feed (use LF or CRLF line breaks; write a CR inside a value as "\r")`)
}

// An escaped CR inside quotes is a value, not a line break.
func TestEscapedCR(t *testing.T) {
	var d struct {
		S string `yaml:"s"`
	}
	_, err := Decode("f.yaml", []byte(`s: "x\r"`+"\n"), &d)
	require.NoError(t, err)
	require.Equal(t, "x\r", d.S)
}
