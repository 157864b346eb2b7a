package rpma

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/goverbs/goverbs/internal/cerr"
)

// TestCodeSentinels checks that a zero_or_neg_code failure matches the
// exported sentinel of its RPMA_E_* code, and only that one.
func TestCodeSentinels(t *testing.T) {
	err := cerr.ZeroOrNegCode("rpma_conn_disconnect", int32(EInval))
	assert.ErrorIs(t, err, ErrInval)
	assert.False(t, errors.Is(err, ErrProvider))
	assert.Contains(t, err.Error(), "rpma_conn_disconnect")
	assert.Equal(t, "RPMA_E_PROVIDER (-100002)", ErrProvider.Error())
}
