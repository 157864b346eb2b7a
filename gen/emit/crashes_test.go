package emit

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/goverbs/goverbs/gen/spec"
)

func TestCrashSentence(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    spec.Crash
		want string
	}{
		{"both sides, both releases", spec.Crash{Class: "num-sge-huge", Signal: "SIGSEGV", C: []int{44, 65}, Go: []int{44, 65}, When: "num_sge is\n  huge", Check: "keep it small"},
			"Crashes the process (SIGSEGV) on rdma-core 44 and 65 when num_sge is huge; keep it small first (doccheck's crash map, class num-sge-huge)."},
		{"hang", spec.Crash{Class: "n", Signal: "hang", C: []int{65}, Go: []int{65}, When: "n is big"},
			"Hangs the process on rdma-core 65 when n is big (doccheck's crash map, class n)."},
		{"Go differs", spec.Crash{Class: "x", Signal: "SIGSEGV", GoSignal: "panic", C: []int{44, 65}, Go: []int{44}, When: "x"},
			"Panics on rdma-core 44 when x (ibv_f itself: crashes the process (SIGSEGV) on rdma-core 44 and 65) (doccheck's crash map, class x)."},
		{"C only", spec.Crash{Class: "x", Signal: "SIGABRT", C: []int{44}, When: "x"},
			"ibv_f itself crashes the process (SIGABRT) on rdma-core 44 when x; this wrapper cannot pass that (doccheck's crash map, class x)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, crashSentence("ibv_f", tc.c))
		})
	}
}
