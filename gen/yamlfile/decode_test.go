package yamlfile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// go-yaml panics on a bare tag; Decode returns an error naming the file.
func TestPanicBecomesError(t *testing.T) {
	var d struct {
		O []doc `yaml:"overrides"`
	}
	_, err := Decode("f.yaml", []byte("overrides: ! "), &d)
	require.ErrorContains(t, err, "f.yaml: malformed YAML")
}
