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
		"IBV_QPT_RC":              "QPTRC",
		"IBV_RATE_2_5_GBPS":       "Rate2_5Gbps",
		"IBV_RATE_25_GBPS":        "Rate25Gbps",
		"IBV_MTU_256":             "MTU256",
		"pthread_mutex_t":         "PthreadMutex",
		"IBV_SYSFS_NAME_MAX":      "SysfsNameMax",
		"ibv_":                    "IBV",
		"sq_sig_all":              "SQSigAll",
		"lkey":                    "LKey",
		"remote_qkey":             "RemoteQKey",
		"IBV_GID_TYPE_ROCE_V2":    "GIDTypeRoCEV2",
		"IBV_WC_IP_CSUM_OK_SHIFT": "WCIPCsumOkShift",
	} {
		assert.Equal(t, want, Go(c, p), c)
	}
}

func TestCamelLeadingDigit(t *testing.T) {
	assert.Equal(t, "X4k", Camel("4k"))
}

func TestEnumerators(t *testing.T) {
	for _, c := range []struct {
		typ, tag string
		values   []string
		want     []string
	}{
		{"QPState", "ibv_qp_state", []string{"IBV_QPS_RESET", "IBV_QPS_RTS", "IBV_QPS_UNKNOWN"}, []string{"QPStateReset", "QPStateRTS", "QPStateUnknown"}},
		{"AccessFlags", "ibv_access_flags", []string{"IBV_ACCESS_LOCAL_WRITE", "IBV_ACCESS_REMOTE_WRITE"}, []string{"AccessFlagsLocalWrite", "AccessFlagsRemoteWrite"}},
		{"MTU", "ibv_mtu", []string{"IBV_MTU_256", "IBV_MTU_4096"}, []string{"MTU256", "MTU4096"}},
		{"Rate", "ibv_rate", []string{"IBV_RATE_MAX", "IBV_RATE_2_5_GBPS"}, []string{"RateMax", "Rate2_5Gbps"}},
		// One value: the words it shares with the tag go.
		{"FlowActionESPKeymatAesGcmIvAlgo", "ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo", []string{"IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ"}, []string{"FlowActionESPKeymatAesGcmIvAlgoSeq"}},
		// A value that is the common prefix keeps its last word; words repeating the type go.
		{"LogLevel", "rpma_log_level", []string{"RPMA_LOG_DISABLED", "RPMA_LOG_LEVEL_FATAL"}, []string{"LogLevelDisabled", "LogLevelFatal"}},
		{"LogThreshold", "rpma_log_threshold", []string{"RPMA_LOG_THRESHOLD", "RPMA_LOG_THRESHOLD_AUX"}, []string{"LogThresholdThreshold", "LogThresholdAux"}},
		{"PortCapFlags2", "ibv_port_cap_flags2", []string{"IBV_PORT_X_2", "IBV_PORT_X_3"}, []string{"PortCapFlags2_2", "PortCapFlags2_3"}},
	} {
		assert.Equal(t, c.want, Enumerators(c.typ, c.tag, c.values), c.typ)
	}
}

func TestGoWords(t *testing.T) {
	assert.Equal(t, []string{"CM", "Event"}, GoWords("CMEvent"))
	assert.Equal(t, []string{"QP", "Ex"}, GoWords("QPEx"))
	assert.Equal(t, []string{"Comp", "Channel"}, GoWords("CompChannel"))
	assert.Equal(t, []string{"CMID"}, GoWords("CMID"))
	assert.Equal(t, []string{"Get", "SRQ", "Num"}, GoWords("GetSRQNum"))
}

func TestReceiver(t *testing.T) {
	for typ, want := range map[string]string{
		"Context": "c", "CompChannel": "cc", "QP": "qp", "QPEx": "qp", "CQ": "cq",
		"PD": "pd", "CMID": "cmid", "MRLocal": "mr", "Device": "d", "ConnCfg": "cc",
	} {
		assert.Equal(t, want, Receiver(typ), typ)
	}
}
