//go:build linux && !rxe

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

func TestClassifyGo(t *testing.T) {
	fn := func(name string, c spec.Convention) *spec.Function {
		return &spec.Function{Name: name, Library: "libibverbs", Convention: c}
	}
	rpmaFn := &spec.Function{Name: "rpma_peer_new", Library: "librpma", Convention: spec.ZeroOrNegCode}
	intRes := func(v int64, errno int) Raw { return Raw{Status: "ok", Kind: "int", Value: v, Errno: errno} }
	ptrRes := func(null bool, errno int) Raw { return Raw{Status: "ok", Kind: "ptr", Null: null, Errno: errno} }
	goErr := func(msg, fn string, is ...string) GoRaw { return GoRaw{Status: "ok", Err: msg, Func: fn, Is: is} }
	ok := GoRaw{Status: "ok"}
	for _, tc := range []struct {
		name    string
		f       *spec.Function
		probe   Probe
		c       Raw
		g       GoRaw
		verdict string
	}{
		{"no snippet", fn("ibv_alloc_pd", spec.PointerOrNullErrno), Probe{Expect: "success"}, ptrRes(false, 0), GoRaw{}, GoNotExpressed},
		{"success, nil", fn("ibv_alloc_pd", spec.PointerOrNullErrno), Probe{Expect: "success", Go: "x"}, ptrRes(false, 0), ok, GoHolds},
		{"success, error", fn("ibv_alloc_pd", spec.PointerOrNullErrno), Probe{Expect: "success", Go: "x"}, ptrRes(false, 0),
			goErr("ibv_alloc_pd: invalid argument", "ibv_alloc_pd", "EINVAL"), GoWrong},
		{"EINVAL matched", fn("ibv_create_cq", spec.PointerOrNullErrno), Probe{Expect: "error", Go: "x"}, ptrRes(true, 22),
			goErr("ibv_create_cq: invalid argument", "ibv_create_cq", "EINVAL"), GoHolds},
		{"another errno", fn("ibv_create_cq", spec.PointerOrNullErrno), Probe{Expect: "error", Go: "x"}, ptrRes(true, 22),
			goErr("ibv_create_cq: no memory", "ibv_create_cq", "ENOMEM"), GoWrong},
		{"no errno to match", fn("ibv_create_cq", spec.PointerOrNullErrno), Probe{Expect: "error", Go: "x"}, ptrRes(true, 22),
			goErr("ibv_create_cq: failed", "ibv_create_cq"), GoWrong},
		{"nil where C failed", fn("ibv_create_cq", spec.PointerOrNullErrno), Probe{Expect: "error", Go: "x"}, ptrRes(true, 22), ok, GoWrong},
		{"names another function", fn("ibv_query_port", spec.ZeroOrErrno), Probe{Expect: "error", Go: "x"}, intRes(22, 0),
			goErr("___ibv_query_port: invalid argument", "___ibv_query_port", "EINVAL"), GoWrong},
		{"message without the function", fn("ibv_query_port", spec.ZeroOrErrno), Probe{Expect: "error", Go: "x"}, intRes(22, 0),
			goErr("invalid argument", "", "EINVAL"), GoWrong},
		{"EOPNOTSUPP is ENOTSUP", fn("ibv_query_ece", spec.ZeroOrErrno), Probe{Expect: "EOPNOTSUPP", Go: "x"}, intRes(95, 0),
			goErr("ibv_query_ece: operation not supported", "ibv_query_ece", "ENOTSUP"), GoHolds},
		{"rpma sentinel", rpmaFn, Probe{Expect: "RPMA_E_INVAL", Go: "x"}, intRes(-100004, 0),
			goErr("rpma_peer_new: failed (-100004)", "rpma_peer_new", "RPMA_E_INVAL"), GoHolds},
		{"rpma wrong sentinel", rpmaFn, Probe{Expect: "RPMA_E_INVAL", Go: "x"}, intRes(-100004, 0),
			goErr("rpma_peer_new: failed (-100004)", "rpma_peer_new", "RPMA_E_PROVIDER"), GoWrong},
		{"errno-less convention", fn("ibv_query_gid", spec.ZeroOrMinusOne), Probe{Expect: "error", Go: "x"}, intRes(-1, 22),
			goErr("ibv_query_gid: failed", "ibv_query_gid"), GoHolds},
		{"negative count carried", fn("ibv_poll_cq", spec.CountOrNegative), Probe{Expect: "error", Go: "x"}, intRes(-2, 0),
			goErr("ibv_poll_cq: failed (-2)", "ibv_poll_cq"), GoHolds},
		{"negative count lost", fn("ibv_poll_cq", spec.CountOrNegative), Probe{Expect: "error", Go: "x"}, intRes(-2, 0),
			goErr("ibv_poll_cq: failed", "ibv_poll_cq"), GoWrong},
		{"same value", fn("ibv_poll_cq", spec.CountOrNegative), Probe{Expect: "success", Go: "x"}, intRes(1, 0),
			GoRaw{Status: "ok", Value: 1, HasValue: true}, GoHolds},
		{"other value", fn("ibv_poll_cq", spec.CountOrNegative), Probe{Expect: "success", Go: "x"}, intRes(1, 0),
			GoRaw{Status: "ok", Value: 0, HasValue: true}, GoWrong},
		{"value of a pointer", fn("ibv_alloc_pd", spec.PointerOrNullErrno), Probe{Expect: "success", Go: "x"}, ptrRes(false, 0),
			GoRaw{Status: "ok", Value: 1, HasValue: true}, GoBroken},
		{"Go probe panicked", fn("ibv_alloc_pd", spec.PointerOrNullErrno), Probe{Expect: "success", Go: "x"}, ptrRes(false, 0),
			GoRaw{Status: "panicked: boom"}, GoBroken},
		{"C probe crashed", fn("ibv_alloc_pd", spec.PointerOrNullErrno), Probe{Expect: "success", Go: "x"}, Raw{Status: "crashed: signal 11"}, ok, GoNotCompared},
		{"C violated, Go fails", fn("rdma_getaddrinfo", spec.ZeroOrMinusOneErrno), Probe{Expect: "error", Go: "x"}, intRes(-8, 0),
			goErr("rdma_getaddrinfo: failed (-8)", "rdma_getaddrinfo"), GoHolds},
		{"C violated, Go succeeds", fn("rdma_getaddrinfo", spec.ZeroOrMinusOneErrno), Probe{Expect: "error", Go: "x"}, intRes(-8, 0), ok, GoWrong},
		{"undocumented failure mirrored", fn("ibv_query_gid_ex", spec.ZeroOrErrno), Probe{Expect: "ENODATA", Go: "x"}, intRes(22, 0),
			goErr("ibv_query_gid_ex: invalid argument", "ibv_query_gid_ex", "EINVAL"), GoHolds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ClassifyGo(tc.f, &tc.probe, tc.c, tc.g)
			require.Equal(t, tc.verdict, o.Verdict, o.Detail)
		})
	}
}

func TestParseGuestOutput(t *testing.T) {
	out, err := ParseGuestOutput([]byte(`{"id":3,"status":"ok","kind":"int","value":0,"null":false,"errno":0}
{"id":3,"side":"go","status":"ok","err":"ibv_create_cq: invalid argument","is":["EINVAL"],"func":"ibv_create_cq"}
validate send failed
{"side":"resources","objects":["qp 7 on rxe_a (pid 90 harness)"]}
`))
	require.NoError(t, err)
	require.Equal(t, []string{"validate send failed"}, out.Printed)
	require.Equal(t, Raw{ID: 3, Status: "ok", Kind: "int"}, out.C[3])
	require.Equal(t, GoRaw{ID: 3, Status: "ok", Err: "ibv_create_cq: invalid argument", Is: []string{"EINVAL"}, Func: "ibv_create_cq"}, out.Go[3])
	require.Equal(t, Leftovers{Objects: []string{"qp 7 on rxe_a (pid 90 harness)"}, Seen: true}, out.Left)

	for _, bad := range []string{
		"{not json\n",
		`{"id":1,"side":"go","status":"ok","surprise":1}` + "\n",
		`{"side":"elsewhere"}` + "\n",
	} {
		_, err := ParseGuestOutput([]byte(bad))
		require.Error(t, err, bad)
	}
}

// Leftover objects, a failed listing or a missing list fail the run; Go mismatches do too
// unless known.yaml records them.
func TestUnexpectedGoAndLeftovers(t *testing.T) {
	set := loadSpec(t)
	p := &Probe{Function: "ibv_create_cq", Case: "too-large", Expect: "error", Go: "x", id: 0}
	rt := root{Name: "host", Version: "44"}
	res := func(g GoRaw, left Leftovers, known ...Known) *Results {
		return &Results{Set: set, Probes: &Probes{Probes: []*Probe{p}}, Known: known, Roots: []root{rt},
			Raw:       map[string]map[int]Raw{"host": {0: {Status: "ok", Kind: "ptr", Null: true, Errno: 22}}},
			Go:        map[string]map[int]GoRaw{"host": {0: g}},
			Leftovers: map[string]Leftovers{"host": left}}
	}
	good := GoRaw{Status: "ok", Err: "ibv_create_cq: invalid argument", Func: "ibv_create_cq", Is: []string{"EINVAL"}}
	wrong := GoRaw{Status: "ok", Err: "ibv_create_cq: failed", Func: "ibv_create_cq"}
	clean := Leftovers{Seen: true}

	require.Empty(t, res(good, clean).Unexpected())
	require.Len(t, res(wrong, clean).Unexpected(), 1)
	require.Empty(t, res(wrong, clean, Known{Function: "ibv_create_cq", Case: "too-large", Verdict: GoWrong, Note: "n"}).Unexpected())
	require.Len(t, res(good, Leftovers{Seen: true, Objects: []string{"pd 1 on rxe_a (pid 5 x)"}}).Unexpected(), 1)
	require.Len(t, res(good, Leftovers{Seen: true, ListError: "no rdma tool"}).Unexpected(), 1)
	require.Len(t, res(good, Leftovers{}).Unexpected(), 1)
	require.Contains(t, res(wrong, clean).Markdown(), "wrong error")
}
