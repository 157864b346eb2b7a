//go:build linux && cgo

package hnsdv_test

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/goverbs/goverbs/hnsdv"
	"github.com/goverbs/goverbs/internal/testkit/assert"
	"github.com/goverbs/goverbs/internal/testkit/require"
)

// TestMissingLibrary: where libhns.so.1 is not installed (the hosts and guest roots of the
// test bed have no hns provider), every binding returns the *MissingError naming the
// library, which unwraps to EOPNOTSUPP, and calls nothing: the nil arguments are never
// dereferenced.
func TestMissingLibrary(t *testing.T) {
	if hnsdv.Load() == nil {
		t.Skip("libhns.so.1 is installed here: the missing-library path cannot be taken")
	}
	check := func(name string, err error) {
		t.Helper()
		var me *hnsdv.MissingError
		require.True(t, errors.As(err, &me), "%s: %v is not a *MissingError", name, err)
		assert.True(t, errors.Is(err, unix.EOPNOTSUPP), "%s: %v does not unwrap to EOPNOTSUPP", name, err)
		assert.Contains(t, err.Error(), "libhns.so.1", name)
	}
	ok, err := hnsdv.IsSupported(nil)
	assert.False(t, ok)
	check("IsSupported", err)
	_, err = hnsdv.QueryDevice(nil)
	check("QueryDevice", err)
	qp, err := hnsdv.CreateQP(nil, nil, nil)
	assert.True(t, qp == nil)
	check("CreateQP", err)
	_, err = hnsdv.Release()
	check("Release", err)
}
