package require

import "github.com/goverbs/goverbs/internal/testkit/assert"

// Equal is assert.Equal, then t.FailNow on failure.
func Equal(t TestingT, expected, actual any, msgAndArgs ...any) {
	helper(t)
	if !assert.Equal(t, expected, actual, msgAndArgs...) {
		t.FailNow()
	}
}

// NotEqual is assert.NotEqual, then t.FailNow on failure.
func NotEqual(t TestingT, expected, actual any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotEqual(t, expected, actual, msgAndArgs...) {
		t.FailNow()
	}
}

// EqualValues is assert.EqualValues, then t.FailNow on failure.
func EqualValues(t TestingT, expected, actual any, msgAndArgs ...any) {
	helper(t)
	if !assert.EqualValues(t, expected, actual, msgAndArgs...) {
		t.FailNow()
	}
}

// Same is assert.Same, then t.FailNow on failure.
func Same(t TestingT, expected, actual any, msgAndArgs ...any) {
	helper(t)
	if !assert.Same(t, expected, actual, msgAndArgs...) {
		t.FailNow()
	}
}

// NotSame is assert.NotSame, then t.FailNow on failure.
func NotSame(t TestingT, expected, actual any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotSame(t, expected, actual, msgAndArgs...) {
		t.FailNow()
	}
}

// IsType is assert.IsType, then t.FailNow on failure.
func IsType(t TestingT, expectedType, object any, msgAndArgs ...any) {
	helper(t)
	if !assert.IsType(t, expectedType, object, msgAndArgs...) {
		t.FailNow()
	}
}

// Nil is assert.Nil, then t.FailNow on failure.
func Nil(t TestingT, object any, msgAndArgs ...any) {
	helper(t)
	if !assert.Nil(t, object, msgAndArgs...) {
		t.FailNow()
	}
}

// NotNil is assert.NotNil, then t.FailNow on failure.
func NotNil(t TestingT, object any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotNil(t, object, msgAndArgs...) {
		t.FailNow()
	}
}

// Empty is assert.Empty, then t.FailNow on failure.
func Empty(t TestingT, object any, msgAndArgs ...any) {
	helper(t)
	if !assert.Empty(t, object, msgAndArgs...) {
		t.FailNow()
	}
}

// NotEmpty is assert.NotEmpty, then t.FailNow on failure.
func NotEmpty(t TestingT, object any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotEmpty(t, object, msgAndArgs...) {
		t.FailNow()
	}
}

// Zero is assert.Zero, then t.FailNow on failure.
func Zero(t TestingT, i any, msgAndArgs ...any) {
	helper(t)
	if !assert.Zero(t, i, msgAndArgs...) {
		t.FailNow()
	}
}

// NotZero is assert.NotZero, then t.FailNow on failure.
func NotZero(t TestingT, i any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotZero(t, i, msgAndArgs...) {
		t.FailNow()
	}
}

// Len is assert.Len, then t.FailNow on failure.
func Len(t TestingT, object any, n int, msgAndArgs ...any) {
	helper(t)
	if !assert.Len(t, object, n, msgAndArgs...) {
		t.FailNow()
	}
}

// Contains is assert.Contains, then t.FailNow on failure.
func Contains(t TestingT, s, contains any, msgAndArgs ...any) {
	helper(t)
	if !assert.Contains(t, s, contains, msgAndArgs...) {
		t.FailNow()
	}
}

// NotContains is assert.NotContains, then t.FailNow on failure.
func NotContains(t TestingT, s, contains any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotContains(t, s, contains, msgAndArgs...) {
		t.FailNow()
	}
}

// Subset is assert.Subset, then t.FailNow on failure.
func Subset(t TestingT, list, subset any, msgAndArgs ...any) {
	helper(t)
	if !assert.Subset(t, list, subset, msgAndArgs...) {
		t.FailNow()
	}
}

// ElementsMatch is assert.ElementsMatch, then t.FailNow on failure.
func ElementsMatch(t TestingT, listA, listB any, msgAndArgs ...any) {
	helper(t)
	if !assert.ElementsMatch(t, listA, listB, msgAndArgs...) {
		t.FailNow()
	}
}

// NoError is assert.NoError, then t.FailNow on failure.
func NoError(t TestingT, err error, msgAndArgs ...any) {
	helper(t)
	if !assert.NoError(t, err, msgAndArgs...) {
		t.FailNow()
	}
}

// Error is assert.Error, then t.FailNow on failure.
func Error(t TestingT, err error, msgAndArgs ...any) {
	helper(t)
	if !assert.Error(t, err, msgAndArgs...) {
		t.FailNow()
	}
}

// EqualError is assert.EqualError, then t.FailNow on failure.
func EqualError(t TestingT, err error, errString string, msgAndArgs ...any) {
	helper(t)
	if !assert.EqualError(t, err, errString, msgAndArgs...) {
		t.FailNow()
	}
}

// ErrorContains is assert.ErrorContains, then t.FailNow on failure.
func ErrorContains(t TestingT, err error, substr string, msgAndArgs ...any) {
	helper(t)
	if !assert.ErrorContains(t, err, substr, msgAndArgs...) {
		t.FailNow()
	}
}

// ErrorIs is assert.ErrorIs, then t.FailNow on failure.
func ErrorIs(t TestingT, err, target error, msgAndArgs ...any) {
	helper(t)
	if !assert.ErrorIs(t, err, target, msgAndArgs...) {
		t.FailNow()
	}
}

// NotErrorIs is assert.NotErrorIs, then t.FailNow on failure.
func NotErrorIs(t TestingT, err, target error, msgAndArgs ...any) {
	helper(t)
	if !assert.NotErrorIs(t, err, target, msgAndArgs...) {
		t.FailNow()
	}
}

// ErrorAs is assert.ErrorAs, then t.FailNow on failure.
func ErrorAs(t TestingT, err error, target any, msgAndArgs ...any) {
	helper(t)
	if !assert.ErrorAs(t, err, target, msgAndArgs...) {
		t.FailNow()
	}
}

// Greater is assert.Greater, then t.FailNow on failure.
func Greater(t TestingT, e1, e2 any, msgAndArgs ...any) {
	helper(t)
	if !assert.Greater(t, e1, e2, msgAndArgs...) {
		t.FailNow()
	}
}

// GreaterOrEqual is assert.GreaterOrEqual, then t.FailNow on failure.
func GreaterOrEqual(t TestingT, e1, e2 any, msgAndArgs ...any) {
	helper(t)
	if !assert.GreaterOrEqual(t, e1, e2, msgAndArgs...) {
		t.FailNow()
	}
}

// Less is assert.Less, then t.FailNow on failure.
func Less(t TestingT, e1, e2 any, msgAndArgs ...any) {
	helper(t)
	if !assert.Less(t, e1, e2, msgAndArgs...) {
		t.FailNow()
	}
}

// LessOrEqual is assert.LessOrEqual, then t.FailNow on failure.
func LessOrEqual(t TestingT, e1, e2 any, msgAndArgs ...any) {
	helper(t)
	if !assert.LessOrEqual(t, e1, e2, msgAndArgs...) {
		t.FailNow()
	}
}

// Positive is assert.Positive, then t.FailNow on failure.
func Positive(t TestingT, e any, msgAndArgs ...any) {
	helper(t)
	if !assert.Positive(t, e, msgAndArgs...) {
		t.FailNow()
	}
}

// InDelta is assert.InDelta, then t.FailNow on failure.
func InDelta(t TestingT, expected, actual any, delta float64, msgAndArgs ...any) {
	helper(t)
	if !assert.InDelta(t, expected, actual, delta, msgAndArgs...) {
		t.FailNow()
	}
}

// True is assert.True, then t.FailNow on failure.
func True(t TestingT, value bool, msgAndArgs ...any) {
	helper(t)
	if !assert.True(t, value, msgAndArgs...) {
		t.FailNow()
	}
}

// False is assert.False, then t.FailNow on failure.
func False(t TestingT, value bool, msgAndArgs ...any) {
	helper(t)
	if !assert.False(t, value, msgAndArgs...) {
		t.FailNow()
	}
}

// Regexp is assert.Regexp, then t.FailNow on failure.
func Regexp(t TestingT, rx, str any, msgAndArgs ...any) {
	helper(t)
	if !assert.Regexp(t, rx, str, msgAndArgs...) {
		t.FailNow()
	}
}

// NotRegexp is assert.NotRegexp, then t.FailNow on failure.
func NotRegexp(t TestingT, rx, str any, msgAndArgs ...any) {
	helper(t)
	if !assert.NotRegexp(t, rx, str, msgAndArgs...) {
		t.FailNow()
	}
}

// FileExists is assert.FileExists, then t.FailNow on failure.
func FileExists(t TestingT, path string, msgAndArgs ...any) {
	helper(t)
	if !assert.FileExists(t, path, msgAndArgs...) {
		t.FailNow()
	}
}
