package assert

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"reflect"
	"time"
)

// order compares a and b, which must have the same kind: signed or unsigned
// integers, floats, strings, []byte or time.Time. ok is false otherwise.
func order(a, b any) (c int, ok bool) {
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	if !av.IsValid() || !bv.IsValid() || av.Kind() != bv.Kind() {
		return 0, false
	}
	if at, isTime := a.(time.Time); isTime {
		bt, isTime := b.(time.Time)
		if !isTime {
			return 0, false
		}
		return at.Compare(bt), true
	}
	switch av.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(av.Int(), bv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(av.Uint(), bv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(av.Float(), bv.Float()), true
	case reflect.String:
		return cmp.Compare(av.String(), bv.String()), true
	case reflect.Slice:
		ab, aok := a.([]byte)
		bb, bok := b.([]byte)
		if aok && bok {
			return bytes.Compare(ab, bb), true
		}
	}
	return 0, false
}

// ordered fails unless order(e1, e2) is one of want; rel names the relation.
func ordered(t TestingT, e1, e2 any, rel string, want func(int) bool, msgAndArgs ...any) bool {
	helper(t)
	if reflect.ValueOf(e1).Kind() != reflect.ValueOf(e2).Kind() {
		return Fail(t, fmt.Sprintf("Elements should be the same type: %T, %T", e1, e2), msgAndArgs...)
	}
	c, ok := order(e1, e2)
	if !ok {
		return Fail(t, fmt.Sprintf("Can not compare type %T", e1), msgAndArgs...)
	}
	if !want(c) {
		return Fail(t, fmt.Sprintf("\"%v\" is not %s \"%v\"", e1, rel, e2), msgAndArgs...)
	}
	return true
}

// Greater asserts e1 > e2.
func Greater(t TestingT, e1, e2 any, msgAndArgs ...any) bool {
	helper(t)
	return ordered(t, e1, e2, "greater than", func(c int) bool { return c > 0 }, msgAndArgs...)
}

// GreaterOrEqual asserts e1 >= e2.
func GreaterOrEqual(t TestingT, e1, e2 any, msgAndArgs ...any) bool {
	helper(t)
	return ordered(t, e1, e2, "greater than or equal to", func(c int) bool { return c >= 0 }, msgAndArgs...)
}

// Less asserts e1 < e2.
func Less(t TestingT, e1, e2 any, msgAndArgs ...any) bool {
	helper(t)
	return ordered(t, e1, e2, "less than", func(c int) bool { return c < 0 }, msgAndArgs...)
}

// LessOrEqual asserts e1 <= e2.
func LessOrEqual(t TestingT, e1, e2 any, msgAndArgs ...any) bool {
	helper(t)
	return ordered(t, e1, e2, "less than or equal to", func(c int) bool { return c <= 0 }, msgAndArgs...)
}

// Positive asserts e > 0 (the zero value of e's type).
func Positive(t TestingT, e any, msgAndArgs ...any) bool {
	helper(t)
	if e == nil {
		return Fail(t, "Can not compare type <nil>", msgAndArgs...)
	}
	zero := reflect.Zero(reflect.TypeOf(e)).Interface()
	c, ok := order(e, zero)
	if !ok {
		return Fail(t, fmt.Sprintf("Can not compare type %T", e), msgAndArgs...)
	}
	if c <= 0 {
		return Fail(t, fmt.Sprintf("\"%v\" is not positive", e), msgAndArgs...)
	}
	return true
}

// float returns x as a float64 when it is an integer or a float (of any
// named type, time.Duration included).
func float(x any) (float64, bool) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

// InDelta asserts |expected - actual| <= delta. Two NaNs are within any delta.
func InDelta(t TestingT, expected, actual any, delta float64, msgAndArgs ...any) bool {
	helper(t)
	e, eok := float(expected)
	a, aok := float(actual)
	if !eok || !aok {
		return Fail(t, "Parameters must be numerical", msgAndArgs...)
	}
	switch {
	case math.IsNaN(e) && math.IsNaN(a):
		return true
	case math.IsNaN(e):
		return Fail(t, "Expected must not be NaN", msgAndArgs...)
	case math.IsNaN(a):
		return Fail(t, fmt.Sprintf("Expected %v with delta %v, but was NaN", expected, delta), msgAndArgs...)
	}
	if d := e - a; d < -delta || d > delta {
		return Fail(t, fmt.Sprintf("Max difference between %v and %v allowed is %v, but difference was %v", expected, actual, delta, d), msgAndArgs...)
	}
	return true
}
