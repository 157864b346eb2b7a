package rpma

import (
	"errors"
	"testing"

	"github.com/goverbs/goverbs/internal/testkit/assert"

	"github.com/goverbs/goverbs/internal/cerr"
)

// TestCodeSentinels checks that a zero_or_neg_code failure matches the
// exported sentinel of its RPMA_E_* code, and only that one.
func TestCodeSentinels(t *testing.T) {
	err := cerr.ZeroOrNegCode("rpma_conn_disconnect", int32(EInval))
	assert.ErrorIs(t, err, ErrInval)
	assert.False(t, errors.Is(err, ErrProvider))
	assert.Equal(t, "rpma_conn_disconnect: RPMA_E_INVAL (-100004)", err.Error(), "a failure names its code")
	assert.Equal(t, "RPMA_E_PROVIDER (-100002)", ErrProvider.Error())
	// A code the package does not name keeps its number.
	assert.Equal(t, "rpma_conn_disconnect: failed (-7)", cerr.ZeroOrNegCode("rpma_conn_disconnect", -7).Error())
}
