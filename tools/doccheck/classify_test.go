//go:build linux && !rxe

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

func TestClassify(t *testing.T) {
	fn := func(c spec.Convention, errs ...string) *spec.Function {
		f := &spec.Function{Name: "f", Convention: c}
		for _, e := range errs {
			f.Errors = append(f.Errors, spec.Error{Name: e})
		}
		return f
	}
	rpma := func(c spec.Convention, errs ...string) *spec.Function {
		f := fn(c, errs...)
		f.Library = "librpma"
		return f
	}
	intRes := func(v int64, errno int) Raw { return Raw{Status: "ok", Kind: "int", Value: v, Errno: errno} }
	ptrRes := func(null bool, errno int) Raw { return Raw{Status: "ok", Kind: "ptr", Null: null, Errno: errno} }
	for _, tc := range []struct {
		name    string
		f       *spec.Function
		expect  string
		raw     Raw
		verdict string
		err     string
	}{
		{"errno value", fn(spec.ZeroOrErrno), "error", intRes(16, 0), Holds, "EBUSY"},
		{"errno value, -1 instead", fn(spec.ZeroOrErrno), "error", intRes(-1, 22), Violated, ""},
		{"documented error named", fn(spec.ZeroOrErrno, "EINVAL", "EPERM"), "EPERM", intRes(1, 0), Holds, "EPERM"},
		{"another error than expected", fn(spec.ZeroOrErrno, "EINVAL", "EPERM"), "EINVAL", intRes(1, 0), Undocumented, "EPERM"},
		{"error outside the page's list", fn(spec.ZeroOrErrno, "EINVAL"), "error", intRes(16, 0), Undocumented, "EBUSY"},
		{"success expected, failed", fn(spec.ZeroOrErrno), "success", intRes(22, 0), Undocumented, "EINVAL"},
		{"failure expected, succeeded", fn(spec.ZeroOrErrno), "error", intRes(0, 0), Undocumented, ""},
		{"NULL with errno", fn(spec.PointerOrNullErrno), "error", ptrRes(true, 22), Holds, "EINVAL"},
		{"NULL without errno", fn(spec.PointerOrNullErrno), "error", ptrRes(true, 0), Violated, ""},
		{"pointer where int documented", fn(spec.ZeroOrErrno), "success", ptrRes(false, 0), Violated, ""},
		{"-1 and errno", fn(spec.ZeroOrMinusOneErrno), "error", intRes(-1, 99), Holds, "EADDRNOTAVAIL"},
		{"-1 without errno", fn(spec.ZeroOrMinusOneErrno), "error", intRes(-1, 0), Violated, ""},
		{"-2 for a -1 convention", fn(spec.CountOrMinusOneErrno), "error", intRes(-2, 5), Violated, ""},
		{"count", fn(spec.CountOrMinusOneErrno), "success", intRes(3, 0), Holds, ""},
		{"-errno", fn(spec.CountOrNegErrno), "error", intRes(-22, 22), Holds, "EINVAL"},
		{"unnamed library code", fn(spec.ZeroOrNegCode, "RPMA_E_INVAL"), "error", intRes(-2, 0), Undocumented, "-2"},
		{"rpma code named", rpma(spec.ZeroOrNegCode, "RPMA_E_INVAL"), "RPMA_E_INVAL", intRes(-100004, 0), Holds, "RPMA_E_INVAL"},
		{"rpma code, another", rpma(spec.ZeroOrNegCode, "RPMA_E_INVAL", "RPMA_E_SHARED_CHANNEL"), "RPMA_E_INVAL", intRes(-100008, 0), Undocumented, "RPMA_E_SHARED_CHANNEL"},
		{"rereg code named", &spec.Function{Name: "ibv_rereg_mr", Library: "libibverbs", Convention: spec.ZeroOrNegCode, Errors: []spec.Error{{Name: "IBV_REREG_MR_ERR_CMD"}}}, "IBV_REREG_MR_ERR_CMD", intRes(-4, 0), Holds, "IBV_REREG_MR_ERR_CMD"},
		{"EOPNOTSUPP is ENOTSUP", fn(spec.ZeroOrErrno, "EOPNOTSUPP"), "EOPNOTSUPP", intRes(95, 0), Holds, "ENOTSUP"},
		{"ENOTSUP among the page's EOPNOTSUPP", fn(spec.ZeroOrErrno, "EOPNOTSUPP"), "error", intRes(95, 0), Holds, "ENOTSUP"},
		{"crash", fn(spec.ZeroOrErrno), "success", Raw{Status: "crashed: signal 11"}, Broken, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Classify(tc.f, &Probe{Expect: tc.expect}, tc.raw)
			require.Equal(t, tc.verdict, o.Verdict, o.Detail)
			require.Equal(t, tc.err, o.Error)
		})
	}
}

func TestRawString(t *testing.T) {
	for raw, want := range map[Raw]string{
		{Status: "ok", Kind: "int", Value: 0}:                  "0, errno 0",
		{Status: "ok", Kind: "int", Value: -1, Errno: 22}:      "-1, errno EINVAL",
		{Status: "ok", Kind: "int", Value: -1, Errno: -1}:      "-1, errno -1",
		{Status: "ok", Kind: "ptr", Null: true, Errno: 12}:     "NULL, errno ENOMEM",
		{Status: "crashed (signal 11)", Kind: "int", Value: 0}: "crashed (signal 11)",
	} {
		require.Equal(t, want, raw.String())
	}
}
