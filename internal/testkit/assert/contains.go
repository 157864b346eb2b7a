package assert

import (
	"fmt"
	"reflect"
	"strings"
)

// includes reports whether list (a string, array, slice or map) holds
// element: a substring of a string, an element (ObjectsAreEqual) of an
// array or slice, a key of a map. ok is false when list is none of those,
// or is a string and element is not.
func includes(list, element any) (ok, found bool) {
	lv := reflect.ValueOf(list)
	switch lv.Kind() {
	case reflect.String:
		ev := reflect.ValueOf(element)
		if ev.Kind() != reflect.String {
			return false, false
		}
		return true, strings.Contains(lv.String(), ev.String())
	case reflect.Map:
		for _, k := range lv.MapKeys() {
			if ObjectsAreEqual(k.Interface(), element) {
				return true, true
			}
		}
		return true, false
	case reflect.Array, reflect.Slice:
		for i := range lv.Len() {
			if ObjectsAreEqual(lv.Index(i).Interface(), element) {
				return true, true
			}
		}
		return true, false
	}
	return false, false
}

// Contains asserts that s (a string, array, slice or map) contains the
// substring, element or key contains.
func Contains(t TestingT, s, contains any, msgAndArgs ...any) bool {
	helper(t)
	ok, found := includes(s, contains)
	if !ok {
		return Fail(t, fmt.Sprintf("%#v could not be searched for %#v", s, contains), msgAndArgs...)
	}
	if !found {
		return Fail(t, fmt.Sprintf("%#v does not contain %#v", s, contains), msgAndArgs...)
	}
	return true
}

// NotContains asserts that s (a string, array, slice or map) does not
// contain the substring, element or key contains.
func NotContains(t TestingT, s, contains any, msgAndArgs ...any) bool {
	helper(t)
	ok, found := includes(s, contains)
	if !ok {
		return Fail(t, fmt.Sprintf("%#v could not be searched for %#v", s, contains), msgAndArgs...)
	}
	if found {
		return Fail(t, fmt.Sprintf("%#v should not contain %#v", s, contains), msgAndArgs...)
	}
	return true
}

func isCollection(k reflect.Kind) bool {
	return k == reflect.Array || k == reflect.Slice || k == reflect.Map
}

// Subset asserts that list (array, slice or map) contains every element of
// subset (array, slice or map). Map against map compares key and value;
// otherwise a map stands for its keys. A nil subset is a subset of anything.
func Subset(t TestingT, list, subset any, msgAndArgs ...any) bool {
	helper(t)
	if subset == nil {
		return true
	}
	lv, sv := reflect.ValueOf(list), reflect.ValueOf(subset)
	if !isCollection(lv.Kind()) {
		return Fail(t, fmt.Sprintf("%#v has an unsupported type %s", list, lv.Kind()), msgAndArgs...)
	}
	if !isCollection(sv.Kind()) {
		return Fail(t, fmt.Sprintf("%#v has an unsupported type %s", subset, sv.Kind()), msgAndArgs...)
	}
	if lv.Kind() == reflect.Map && sv.Kind() == reflect.Map {
		for _, k := range sv.MapKeys() {
			av := lv.MapIndex(k)
			if !av.IsValid() || !ObjectsAreEqual(sv.MapIndex(k).Interface(), av.Interface()) {
				return Fail(t, fmt.Sprintf("%#v does not contain %#v", list, subset), msgAndArgs...)
			}
		}
		return true
	}
	var elems []any
	if sv.Kind() == reflect.Map {
		for _, k := range sv.MapKeys() {
			elems = append(elems, k.Interface())
		}
	} else {
		for i := range sv.Len() {
			elems = append(elems, sv.Index(i).Interface())
		}
	}
	for _, e := range elems {
		if _, found := includes(list, e); !found {
			return Fail(t, fmt.Sprintf("%#v does not contain %#v", list, e), msgAndArgs...)
		}
	}
	return true
}

// ElementsMatch asserts that listA and listB (arrays or slices) hold the
// same elements, each as many times, in any order. Two empty lists match.
func ElementsMatch(t TestingT, listA, listB any, msgAndArgs ...any) bool {
	helper(t)
	if isEmpty(listA) && isEmpty(listB) {
		return true
	}
	for _, l := range []any{listA, listB} {
		if k := reflect.ValueOf(l).Kind(); k != reflect.Array && k != reflect.Slice {
			return Fail(t, fmt.Sprintf("%#v has an unsupported type %s, expecting array or slice", l, k), msgAndArgs...)
		}
	}
	av, bv := reflect.ValueOf(listA), reflect.ValueOf(listB)
	used := make([]bool, bv.Len())
	var extraA, extraB []any
	for i := range av.Len() {
		e := av.Index(i).Interface()
		found := false
		for j := range bv.Len() {
			if !used[j] && ObjectsAreEqual(bv.Index(j).Interface(), e) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			extraA = append(extraA, e)
		}
	}
	for j := range bv.Len() {
		if !used[j] {
			extraB = append(extraB, bv.Index(j).Interface())
		}
	}
	if len(extraA) == 0 && len(extraB) == 0 {
		return true
	}
	return Fail(t, fmt.Sprintf("elements differ\nlistA: %#v\nlistB: %#v\nextra in listA: %#v\nextra in listB: %#v",
		listA, listB, extraA, extraB), msgAndArgs...)
}
