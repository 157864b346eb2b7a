package naming

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGo(t *testing.T) {
	p := []string{"ibv_", "IBV_"}
	for c, want := range map[string]string{
		"ibv_qp":                  "QP",
		"ibv_qp_init_attr_ex":     "QPInitAttrEx",
		"IBV_QPT_RC":              "QptRC",
		"IBV_RATE_2_5_GBPS":       "Rate2_5Gbps",
		"IBV_RATE_25_GBPS":        "Rate25Gbps",
		"IBV_MTU_256":             "MTU256",
		"pthread_mutex_t":         "PthreadMutex",
		"IBV_SYSFS_NAME_MAX":      "SysfsNameMax",
		"ibv_":                    "Ibv",
		"sq_sig_all":              "SqSigAll",
		"IBV_WC_IP_CSUM_OK_SHIFT": "WCIPCsumOkShift",
	} {
		assert.Equal(t, want, Go(c, p), c)
	}
}

func TestCamelLeadingDigit(t *testing.T) {
	assert.Equal(t, "X4k", Camel("4k"))
}
