package assert

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// NoError asserts that err is nil.
func NoError(t TestingT, err error, msgAndArgs ...any) bool {
	helper(t)
	if err != nil {
		return Fail(t, fmt.Sprintf("Received unexpected error:\n%+v", err), msgAndArgs...)
	}
	return true
}

// Error asserts that err is not nil.
func Error(t TestingT, err error, msgAndArgs ...any) bool {
	helper(t)
	if err == nil {
		return Fail(t, "An error is expected but got nil.", msgAndArgs...)
	}
	return true
}

// EqualError asserts that err is not nil and that err.Error() == errString.
func EqualError(t TestingT, err error, errString string, msgAndArgs ...any) bool {
	helper(t)
	if !Error(t, err, msgAndArgs...) {
		return false
	}
	if got := err.Error(); got != errString {
		return Fail(t, fmt.Sprintf("Error message not equal:\nexpected: %q\nactual  : %q", errString, got), msgAndArgs...)
	}
	return true
}

// ErrorContains asserts that err is not nil and that err.Error() contains substr.
func ErrorContains(t TestingT, err error, substr string, msgAndArgs ...any) bool {
	helper(t)
	if !Error(t, err, msgAndArgs...) {
		return false
	}
	if got := err.Error(); !strings.Contains(got, substr) {
		return Fail(t, fmt.Sprintf("Error %q does not contain %q", got, substr), msgAndArgs...)
	}
	return true
}

// chain lists the messages of err and of everything it wraps.
func chain(err error) string {
	var parts []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		parts = append(parts, fmt.Sprintf("%q (%T)", e.Error(), e))
		switch x := e.(type) {
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		case interface{ Unwrap() []error }:
			for _, w := range x.Unwrap() {
				walk(w)
			}
		}
	}
	walk(err)
	return strings.Join(parts, "\n\t")
}

// ErrorIs asserts errors.Is(err, target).
func ErrorIs(t TestingT, err, target error, msgAndArgs ...any) bool {
	helper(t)
	if errors.Is(err, target) {
		return true
	}
	want := "<nil>"
	if target != nil {
		want = fmt.Sprintf("%q", target.Error())
	}
	if err == nil {
		return Fail(t, fmt.Sprintf("Expected error with %s in chain but got nil.", want), msgAndArgs...)
	}
	return Fail(t, fmt.Sprintf("Target error should be in err chain:\nexpected: %s\nin chain: %s", want, chain(err)), msgAndArgs...)
}

// NotErrorIs asserts !errors.Is(err, target).
func NotErrorIs(t TestingT, err, target error, msgAndArgs ...any) bool {
	helper(t)
	if !errors.Is(err, target) {
		return true
	}
	return Fail(t, fmt.Sprintf("Target error should not be in err chain:\nfound: %v\nin chain: %s", target, chain(err)), msgAndArgs...)
}

// ErrorAs asserts errors.As(err, target), which sets *target when it holds.
// target must be a non-nil pointer, as errors.As requires.
func ErrorAs(t TestingT, err error, target any, msgAndArgs ...any) bool {
	helper(t)
	if errors.As(err, target) {
		return true
	}
	want := reflect.TypeOf(target).Elem().String()
	if err == nil {
		return Fail(t, fmt.Sprintf("An error is expected but got nil.\nexpected: %s", want), msgAndArgs...)
	}
	return Fail(t, fmt.Sprintf("Should be in error chain:\nexpected: %s\nin chain: %s", want, chain(err)), msgAndArgs...)
}
