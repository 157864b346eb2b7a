package assert

import (
	"bytes"
	"fmt"
	"reflect"
)

// ObjectsAreEqual reports whether expected and actual are equal: two []byte
// by bytes.Equal (nil equals only nil), anything else by reflect.DeepEqual;
// an untyped nil equals only an untyped nil.
func ObjectsAreEqual(expected, actual any) bool {
	if expected == nil || actual == nil {
		return expected == actual
	}
	exp, ok := expected.([]byte)
	if !ok {
		return reflect.DeepEqual(expected, actual)
	}
	act, ok := actual.([]byte)
	if !ok {
		return false
	}
	if exp == nil || act == nil {
		return exp == nil && act == nil
	}
	return bytes.Equal(exp, act)
}

// ObjectsAreEqualValues reports whether expected and actual are equal, or
// equal once expected is converted to actual's type. Two numbers are
// compared in the wider of the two types, so that a conversion that wraps
// does not make them equal.
func ObjectsAreEqualValues(expected, actual any) bool {
	if ObjectsAreEqual(expected, actual) {
		return true
	}
	ev, av := reflect.ValueOf(expected), reflect.ValueOf(actual)
	if !ev.IsValid() || !av.IsValid() {
		return false
	}
	et, at := ev.Type(), av.Type()
	if !et.ConvertibleTo(at) {
		return false
	}
	if !isNumber(et) || !isNumber(at) {
		return reflect.DeepEqual(ev.Convert(at).Interface(), actual)
	}
	if et.Size() >= at.Size() {
		return av.Convert(et).Interface() == expected
	}
	return ev.Convert(at).Interface() == actual
}

func isNumber(t reflect.Type) bool {
	return t.Kind() >= reflect.Int && t.Kind() <= reflect.Complex128
}

func isFunc(v any) bool {
	return v != nil && reflect.TypeOf(v).Kind() == reflect.Func
}

// unequal formats two values for a failure message; when their types differ
// it names them, since %#v of 1 and int64(1) can look alike.
func unequal(expected, actual any) (string, string) {
	if reflect.TypeOf(expected) != reflect.TypeOf(actual) {
		return fmt.Sprintf("%T(%#v)", expected, expected), fmt.Sprintf("%T(%#v)", actual, actual)
	}
	return fmt.Sprintf("%#v", expected), fmt.Sprintf("%#v", actual)
}

// Equal asserts ObjectsAreEqual(expected, actual). Pointers are equal when
// what they point to is; funcs are never accepted.
func Equal(t TestingT, expected, actual any, msgAndArgs ...any) bool {
	helper(t)
	if isFunc(expected) || isFunc(actual) {
		return Fail(t, fmt.Sprintf("Invalid operation: %#v == %#v (cannot take func type as argument)", expected, actual), msgAndArgs...)
	}
	if !ObjectsAreEqual(expected, actual) {
		e, a := unequal(expected, actual)
		return Fail(t, fmt.Sprintf("Not equal:\nexpected: %s\nactual  : %s", e, a), msgAndArgs...)
	}
	return true
}

// NotEqual asserts !ObjectsAreEqual(expected, actual); funcs are never accepted.
func NotEqual(t TestingT, expected, actual any, msgAndArgs ...any) bool {
	helper(t)
	if isFunc(expected) || isFunc(actual) {
		return Fail(t, fmt.Sprintf("Invalid operation: %#v != %#v (cannot take func type as argument)", expected, actual), msgAndArgs...)
	}
	if ObjectsAreEqual(expected, actual) {
		return Fail(t, fmt.Sprintf("Should not be: %#v", actual), msgAndArgs...)
	}
	return true
}

// EqualValues asserts ObjectsAreEqualValues(expected, actual).
func EqualValues(t TestingT, expected, actual any, msgAndArgs ...any) bool {
	helper(t)
	if !ObjectsAreEqualValues(expected, actual) {
		e, a := unequal(expected, actual)
		return Fail(t, fmt.Sprintf("Not equal:\nexpected: %s\nactual  : %s", e, a), msgAndArgs...)
	}
	return true
}

// samePointers reports whether both are pointers (ok) and, if so, whether
// they have one type and one address (same).
func samePointers(a, b any) (same, ok bool) {
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	if av.Kind() != reflect.Pointer || bv.Kind() != reflect.Pointer {
		return false, false
	}
	if av.Type() != bv.Type() {
		return false, true
	}
	return a == b, true
}

// Same asserts that expected and actual are pointers of one type to the same object.
func Same(t TestingT, expected, actual any, msgAndArgs ...any) bool {
	helper(t)
	same, ok := samePointers(expected, actual)
	if !ok {
		return Fail(t, "Both arguments must be pointers", msgAndArgs...)
	}
	if !same {
		return Fail(t, fmt.Sprintf("Not same:\nexpected: %#v (%T)(%p)\nactual  : %#v (%T)(%p)",
			expected, expected, expected, actual, actual, actual), msgAndArgs...)
	}
	return true
}

// NotSame asserts that expected and actual are pointers that do not point to
// the same object (or are of different types).
func NotSame(t TestingT, expected, actual any, msgAndArgs ...any) bool {
	helper(t)
	same, ok := samePointers(expected, actual)
	if !ok {
		return Fail(t, "Both arguments must be pointers", msgAndArgs...)
	}
	if same {
		return Fail(t, fmt.Sprintf("Expected and actual point to the same object: %p %#v", expected, expected), msgAndArgs...)
	}
	return true
}

// IsType asserts that object has the dynamic type of expectedType.
func IsType(t TestingT, expectedType, object any, msgAndArgs ...any) bool {
	helper(t)
	if reflect.TypeOf(object) != reflect.TypeOf(expectedType) {
		return Fail(t, fmt.Sprintf("Object expected to be of type %T, but was %T", expectedType, object), msgAndArgs...)
	}
	return true
}
