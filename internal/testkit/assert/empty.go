package assert

import (
	"fmt"
	"reflect"
)

// isNil reports whether v is nil: an untyped nil, or a typed nil chan, func,
// interface, map, pointer, slice or unsafe.Pointer.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map,
		reflect.Pointer, reflect.Slice, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// isEmpty reports whether v is empty: nil, a zero value (an array whose
// elements are all zero), a chan, map or slice of length 0, or a pointer to
// an empty value.
func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	return isEmptyValue(reflect.ValueOf(v))
}

func isEmptyValue(v reflect.Value) bool {
	if v.IsZero() {
		return true
	}
	switch v.Kind() {
	case reflect.Chan, reflect.Map, reflect.Slice:
		return v.Len() == 0
	case reflect.Pointer:
		return isEmptyValue(v.Elem())
	}
	return false
}

// isZero reports whether v is nil or deeply equal to its type's zero value.
func isZero(v any) bool {
	return v == nil || reflect.DeepEqual(v, reflect.Zero(reflect.TypeOf(v)).Interface())
}

// Nil asserts that object is nil (a typed nil counts).
func Nil(t TestingT, object any, msgAndArgs ...any) bool {
	helper(t)
	if !isNil(object) {
		return Fail(t, fmt.Sprintf("Expected nil, but got: %#v", object), msgAndArgs...)
	}
	return true
}

// NotNil asserts that object is not nil (a typed nil counts as nil).
func NotNil(t TestingT, object any, msgAndArgs ...any) bool {
	helper(t)
	if isNil(object) {
		return Fail(t, "Expected value not to be nil.", msgAndArgs...)
	}
	return true
}

// Empty asserts that object is empty (see isEmpty).
func Empty(t TestingT, object any, msgAndArgs ...any) bool {
	helper(t)
	if !isEmpty(object) {
		return Fail(t, fmt.Sprintf("Should be empty, but was %v", object), msgAndArgs...)
	}
	return true
}

// NotEmpty asserts that object is not empty (see isEmpty).
func NotEmpty(t TestingT, object any, msgAndArgs ...any) bool {
	helper(t)
	if isEmpty(object) {
		return Fail(t, fmt.Sprintf("Should NOT be empty, but was %v", object), msgAndArgs...)
	}
	return true
}

// Zero asserts that i is nil or the zero value of its type.
func Zero(t TestingT, i any, msgAndArgs ...any) bool {
	helper(t)
	if !isZero(i) {
		return Fail(t, fmt.Sprintf("Should be zero, but was %v", i), msgAndArgs...)
	}
	return true
}

// NotZero asserts that i is neither nil nor the zero value of its type.
func NotZero(t TestingT, i any, msgAndArgs ...any) bool {
	helper(t)
	if isZero(i) {
		return Fail(t, fmt.Sprintf("Should not be zero, but was %v", i), msgAndArgs...)
	}
	return true
}

// length returns len(x) for what the builtin len accepts.
func length(x any) (int, bool) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		return v.Len(), true
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Array {
			return v.Type().Elem().Len(), true
		}
	}
	return 0, false
}

// Len asserts that len(object) == n.
func Len(t TestingT, object any, n int, msgAndArgs ...any) bool {
	helper(t)
	l, ok := length(object)
	if !ok {
		return Fail(t, fmt.Sprintf("\"%v\" could not be applied builtin len()", object), msgAndArgs...)
	}
	if l != n {
		return Fail(t, fmt.Sprintf("\"%v\" should have %d item(s), but has %d", object, n, l), msgAndArgs...)
	}
	return true
}
