package assert

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unsafe"
)

type point struct{ X, Y int }

type named int

type codeErr struct{ code int }

func (e *codeErr) Error() string { return fmt.Sprintf("code %d", e.code) }

// cases lists, for every assertion, calls that must pass and calls that
// must fail; each is checked on a fakeT.
func cases(t *testing.T) map[string]struct{ pass, fail []func(TestingT) bool } {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var nilPtr *point
	var nilMap map[string]int
	var nilSlice []int
	var nilChan chan int
	var nilFunc func()
	var nilErr error
	var nilUnsafe unsafe.Pointer
	p, q := &point{1, 2}, &point{1, 2}
	zero, one := 0, 1
	wrapped := fmt.Errorf("op: %w", fs.ErrNotExist)
	coded := fmt.Errorf("op: %w", &codeErr{5})
	joined := errors.Join(errors.New("a"), fs.ErrPermission)
	type fns = []func(TestingT) bool
	return map[string]struct{ pass, fail []func(TestingT) bool }{
		"Equal": {
			pass: fns{
				func(t TestingT) bool { return Equal(t, 1, 1) },
				func(t TestingT) bool { return Equal(t, []byte("ab"), []byte("ab")) },
				func(t TestingT) bool { return Equal(t, []byte{}, []byte{}) },
				func(t TestingT) bool { return Equal(t, p, q) },
				func(t TestingT) bool { return Equal(t, map[string][]int{"a": {1}}, map[string][]int{"a": {1}}) },
				func(t TestingT) bool { return Equal(t, nil, nil) },
				func(t TestingT) bool { return Equal(t, [2]uintptr{1, 2}, [2]uintptr{1, 2}) },
			},
			fail: fns{
				func(t TestingT) bool { return Equal(t, 1, 2) },
				func(t TestingT) bool { return Equal(t, 1, int64(1)) },
				func(t TestingT) bool { return Equal(t, []byte{}, []byte(nil)) },
				func(t TestingT) bool { return Equal(t, []byte("a"), "a") },
				func(t TestingT) bool { return Equal(t, nil, nilPtr) },
				func(t TestingT) bool { return Equal(t, p, &point{2, 1}) },
				func(t TestingT) bool { return Equal(t, nilFunc, nilFunc) },
				func(t TestingT) bool { return Equal(t, "a", "b") },
			},
		},
		"NotEqual": {
			pass: fns{
				func(t TestingT) bool { return NotEqual(t, 1, 2) },
				func(t TestingT) bool { return NotEqual(t, 1, uint(1)) },
				func(t TestingT) bool { return NotEqual(t, []byte{}, []byte(nil)) },
			},
			fail: fns{
				func(t TestingT) bool { return NotEqual(t, "a", "a") },
				func(t TestingT) bool { return NotEqual(t, p, q) },
				func(t TestingT) bool { return NotEqual(t, func() {}, 1) },
			},
		},
		"EqualValues": {
			pass: fns{
				func(t TestingT) bool { return EqualValues(t, 1, int64(1)) },
				func(t TestingT) bool { return EqualValues(t, uint32(7), named(7)) },
				func(t TestingT) bool { return EqualValues(t, "x", "x") },
			},
			fail: fns{
				func(t TestingT) bool { return EqualValues(t, 1, int64(2)) },
				// 256 as uint8 wraps to 0: compared in the wider type they differ.
				func(t TestingT) bool { return EqualValues(t, 256, uint8(0)) },
				func(t TestingT) bool { return EqualValues(t, 1, "1") },
				func(t TestingT) bool { return EqualValues(t, nil, 0) },
			},
		},
		"Same": {
			pass: fns{func(t TestingT) bool { return Same(t, p, p) }},
			fail: fns{
				func(t TestingT) bool { return Same(t, p, q) },
				func(t TestingT) bool { return Same(t, *p, *p) },
				func(t TestingT) bool { return Same(t, p, unsafe.Pointer(p)) },
			},
		},
		"NotSame": {
			pass: fns{func(t TestingT) bool { return NotSame(t, p, q) }},
			fail: fns{
				func(t TestingT) bool { return NotSame(t, p, p) },
				func(t TestingT) bool { return NotSame(t, 1, 2) },
			},
		},
		"IsType": {
			pass: fns{func(t TestingT) bool { return IsType(t, &point{}, p) }},
			fail: fns{
				func(t TestingT) bool { return IsType(t, point{}, p) },
				func(t TestingT) bool { return IsType(t, 0, named(0)) },
			},
		},
		"Nil": {
			pass: fns{
				func(t TestingT) bool { return Nil(t, nil) },
				func(t TestingT) bool { return Nil(t, nilPtr) },
				func(t TestingT) bool { return Nil(t, nilMap) },
				func(t TestingT) bool { return Nil(t, nilSlice) },
				func(t TestingT) bool { return Nil(t, nilChan) },
				func(t TestingT) bool { return Nil(t, nilFunc) },
				func(t TestingT) bool { return Nil(t, nilErr) },
				func(t TestingT) bool { return Nil(t, nilUnsafe) },
			},
			fail: fns{
				func(t TestingT) bool { return Nil(t, 0) },
				func(t TestingT) bool { return Nil(t, p) },
				func(t TestingT) bool { return Nil(t, []int{}) },
				func(t TestingT) bool { return Nil(t, "") },
			},
		},
		"NotNil": {
			pass: fns{
				func(t TestingT) bool { return NotNil(t, p) },
				func(t TestingT) bool { return NotNil(t, 0) },
				func(t TestingT) bool { return NotNil(t, map[int]int{}) },
			},
			fail: fns{
				func(t TestingT) bool { return NotNil(t, nil) },
				func(t TestingT) bool { return NotNil(t, nilPtr) },
				func(t TestingT) bool { return NotNil(t, nilSlice) },
			},
		},
		"Empty": {
			pass: fns{
				func(t TestingT) bool { return Empty(t, nil) },
				func(t TestingT) bool { return Empty(t, "") },
				func(t TestingT) bool { return Empty(t, 0) },
				func(t TestingT) bool { return Empty(t, false) },
				func(t TestingT) bool { return Empty(t, []int{}) },
				func(t TestingT) bool { return Empty(t, map[int]int{}) },
				func(t TestingT) bool { return Empty(t, make(chan int, 1)) },
				func(t TestingT) bool { return Empty(t, [2]int{}) },
				func(t TestingT) bool { return Empty(t, point{}) },
				func(t TestingT) bool { return Empty(t, nilPtr) },
				func(t TestingT) bool { return Empty(t, &zero) },
				func(t TestingT) bool { return Empty(t, &[]int{}) },
				func(t TestingT) bool { return Empty(t, time.Time{}) },
				// A non-nil pointer to a zero struct is empty, as in testify.
				func(t TestingT) bool { return Empty(t, errors.New("")) },
			},
			fail: fns{
				func(t TestingT) bool { return Empty(t, "a") },
				func(t TestingT) bool { return Empty(t, 1) },
				func(t TestingT) bool { return Empty(t, true) },
				func(t TestingT) bool { return Empty(t, []int{0}) },
				func(t TestingT) bool { return Empty(t, [2]int{0, 1}) },
				func(t TestingT) bool { return Empty(t, &one) },
				func(t TestingT) bool { return Empty(t, point{X: 1}) },
			},
		},
		"NotEmpty": {
			pass: fns{
				func(t TestingT) bool { return NotEmpty(t, "a") },
				func(t TestingT) bool { return NotEmpty(t, []int{0}) },
				func(t TestingT) bool { return NotEmpty(t, &one) },
			},
			fail: fns{
				func(t TestingT) bool { return NotEmpty(t, "") },
				func(t TestingT) bool { return NotEmpty(t, nil) },
				func(t TestingT) bool { return NotEmpty(t, map[int]int{}) },
				func(t TestingT) bool { return NotEmpty(t, &zero) },
			},
		},
		"Zero": {
			pass: fns{
				func(t TestingT) bool { return Zero(t, nil) },
				func(t TestingT) bool { return Zero(t, 0) },
				func(t TestingT) bool { return Zero(t, named(0)) },
				func(t TestingT) bool { return Zero(t, "") },
				func(t TestingT) bool { return Zero(t, point{}) },
				func(t TestingT) bool { return Zero(t, nilPtr) },
				func(t TestingT) bool { return Zero(t, nilSlice) },
			},
			fail: fns{
				func(t TestingT) bool { return Zero(t, 1) },
				func(t TestingT) bool { return Zero(t, point{Y: 1}) },
				// Unlike Empty, an empty non-nil slice and a pointer to zero are not zero.
				func(t TestingT) bool { return Zero(t, []int{}) },
				func(t TestingT) bool { return Zero(t, &zero) },
			},
		},
		"NotZero": {
			pass: fns{
				func(t TestingT) bool { return NotZero(t, 1) },
				func(t TestingT) bool { return NotZero(t, []int{}) },
				func(t TestingT) bool { return NotZero(t, "x") },
			},
			fail: fns{
				func(t TestingT) bool { return NotZero(t, nil) },
				func(t TestingT) bool { return NotZero(t, 0.0) },
				func(t TestingT) bool { return NotZero(t, nilMap) },
			},
		},
		"Len": {
			pass: fns{
				func(t TestingT) bool { return Len(t, []int{1, 2}, 2) },
				func(t TestingT) bool { return Len(t, "abc", 3) },
				func(t TestingT) bool { return Len(t, map[int]int{1: 1}, 1) },
				func(t TestingT) bool { return Len(t, [4]byte{}, 4) },
				func(t TestingT) bool { return Len(t, &[3]int{}, 3) },
				func(t TestingT) bool { return Len(t, nilSlice, 0) },
			},
			fail: fns{
				func(t TestingT) bool { return Len(t, []int{1}, 2) },
				func(t TestingT) bool { return Len(t, 5, 0) },
				func(t TestingT) bool { return Len(t, nil, 0) },
				func(t TestingT) bool { return Len(t, p, 0) },
			},
		},
		"Contains": {
			pass: fns{
				func(t TestingT) bool { return Contains(t, "hello world", "o w") },
				func(t TestingT) bool { return Contains(t, []string{"a", "b"}, "b") },
				func(t TestingT) bool { return Contains(t, [2]int{3, 4}, 4) },
				func(t TestingT) bool { return Contains(t, map[string]int{"k": 1}, "k") },
				func(t TestingT) bool { return Contains(t, [][]byte{[]byte("x")}, []byte("x")) },
				func(t TestingT) bool { return Contains(t, []*point{q}, p) },
			},
			fail: fns{
				func(t TestingT) bool { return Contains(t, "hello", "z") },
				func(t TestingT) bool { return Contains(t, []int{1}, int64(1)) },
				func(t TestingT) bool { return Contains(t, map[string]int{"k": 1}, 1) },
				func(t TestingT) bool { return Contains(t, 5, 5) },
				func(t TestingT) bool { return Contains(t, "5", 5) },
				func(t TestingT) bool { return Contains(t, nil, 5) },
			},
		},
		"NotContains": {
			pass: fns{
				func(t TestingT) bool { return NotContains(t, "hello", "z") },
				func(t TestingT) bool { return NotContains(t, []int{1}, 2) },
				func(t TestingT) bool { return NotContains(t, map[int]string{1: "a"}, 2) },
			},
			fail: fns{
				func(t TestingT) bool { return NotContains(t, "hello", "ell") },
				func(t TestingT) bool { return NotContains(t, []int{1}, 1) },
				func(t TestingT) bool { return NotContains(t, 1, 2) },
			},
		},
		"Subset": {
			pass: fns{
				func(t TestingT) bool { return Subset(t, []int{1, 2, 3}, []int{3, 1}) },
				func(t TestingT) bool { return Subset(t, []int{1}, nil) },
				func(t TestingT) bool { return Subset(t, map[string]int{"x": 1, "y": 2}, map[string]int{"x": 1}) },
				func(t TestingT) bool { return Subset(t, []int{1, 2}, map[int]string{1: "one"}) },
				func(t TestingT) bool { return Subset(t, map[string]int{"x": 1}, []string{"x"}) },
			},
			fail: fns{
				func(t TestingT) bool { return Subset(t, []int{1, 2}, []int{4}) },
				func(t TestingT) bool { return Subset(t, map[string]int{"x": 1}, map[string]int{"x": 2}) },
				func(t TestingT) bool { return Subset(t, map[string]int{"x": 1}, map[string]int{"z": 1}) },
				func(t TestingT) bool { return Subset(t, "abc", []string{"a"}) },
				func(t TestingT) bool { return Subset(t, []int{1}, 1) },
			},
		},
		"ElementsMatch": {
			pass: fns{
				func(t TestingT) bool { return ElementsMatch(t, []int{1, 2, 2}, []int{2, 1, 2}) },
				func(t TestingT) bool { return ElementsMatch(t, []int{}, nilSlice) },
				func(t TestingT) bool { return ElementsMatch(t, [2]string{"a", "b"}, []string{"b", "a"}) },
			},
			fail: fns{
				func(t TestingT) bool { return ElementsMatch(t, []int{1, 2, 2}, []int{1, 1, 2}) },
				func(t TestingT) bool { return ElementsMatch(t, []int{1}, []int{1, 1}) },
				func(t TestingT) bool { return ElementsMatch(t, map[int]int{1: 1}, []int{1}) },
			},
		},
		"NoError": {
			pass: fns{
				func(t TestingT) bool { return NoError(t, nil) },
				func(t TestingT) bool { return NoError(t, nilErr) },
			},
			fail: fns{func(t TestingT) bool { return NoError(t, wrapped) }},
		},
		"Error": {
			pass: fns{func(t TestingT) bool { return Error(t, wrapped) }},
			fail: fns{func(t TestingT) bool { return Error(t, nil) }},
		},
		"EqualError": {
			pass: fns{func(t TestingT) bool { return EqualError(t, wrapped, "op: file does not exist") }},
			fail: fns{
				func(t TestingT) bool { return EqualError(t, wrapped, "op") },
				func(t TestingT) bool { return EqualError(t, nil, "") },
			},
		},
		"ErrorContains": {
			pass: fns{func(t TestingT) bool { return ErrorContains(t, wrapped, "not exist") }},
			fail: fns{
				func(t TestingT) bool { return ErrorContains(t, wrapped, "permission") },
				func(t TestingT) bool { return ErrorContains(t, nil, "") },
			},
		},
		"ErrorIs": {
			pass: fns{
				func(t TestingT) bool { return ErrorIs(t, wrapped, fs.ErrNotExist) },
				func(t TestingT) bool { return ErrorIs(t, joined, fs.ErrPermission) },
				func(t TestingT) bool { return ErrorIs(t, nil, nil) },
			},
			fail: fns{
				func(t TestingT) bool { return ErrorIs(t, wrapped, fs.ErrPermission) },
				func(t TestingT) bool { return ErrorIs(t, nil, fs.ErrNotExist) },
				func(t TestingT) bool { return ErrorIs(t, wrapped, nil) },
			},
		},
		"NotErrorIs": {
			pass: fns{
				func(t TestingT) bool { return NotErrorIs(t, wrapped, fs.ErrPermission) },
				func(t TestingT) bool { return NotErrorIs(t, nil, fs.ErrNotExist) },
			},
			fail: fns{
				func(t TestingT) bool { return NotErrorIs(t, wrapped, fs.ErrNotExist) },
				func(t TestingT) bool { return NotErrorIs(t, joined, fs.ErrPermission) },
			},
		},
		"ErrorAs": {
			pass: fns{func(t TestingT) bool {
				var ce *codeErr
				return ErrorAs(t, coded, &ce) && ce.code == 5
			}},
			fail: fns{
				func(t TestingT) bool {
					var ce *codeErr
					return ErrorAs(t, wrapped, &ce)
				},
				func(t TestingT) bool {
					var pe *fs.PathError
					return ErrorAs(t, nil, &pe)
				},
			},
		},
		"Greater": {
			pass: fns{
				func(t TestingT) bool { return Greater(t, 2, 1) },
				func(t TestingT) bool { return Greater(t, uint8(2), uint8(1)) },
				func(t TestingT) bool { return Greater(t, 1.5, 1.25) },
				func(t TestingT) bool { return Greater(t, "b", "a") },
				func(t TestingT) bool { return Greater(t, named(3), named(-1)) },
				func(t TestingT) bool { return Greater(t, time.Unix(2, 0), time.Unix(1, 0)) },
				func(t TestingT) bool { return Greater(t, []byte("b"), []byte("a")) },
			},
			fail: fns{
				func(t TestingT) bool { return Greater(t, 1, 1) },
				func(t TestingT) bool { return Greater(t, uint64(1), uint64(math.MaxUint64)) },
				func(t TestingT) bool { return Greater(t, "a", "b") },
				func(t TestingT) bool { return Greater(t, 2, int64(1)) },
				func(t TestingT) bool { return Greater(t, p, q) },
				func(t TestingT) bool { return Greater(t, nil, nil) },
			},
		},
		"GreaterOrEqual": {
			pass: fns{
				func(t TestingT) bool { return GreaterOrEqual(t, 1, 1) },
				func(t TestingT) bool { return GreaterOrEqual(t, 2.0, 1.0) },
			},
			fail: fns{
				func(t TestingT) bool { return GreaterOrEqual(t, -2, -1) },
				func(t TestingT) bool { return GreaterOrEqual(t, uint(1), 1) },
			},
		},
		"Less": {
			pass: fns{
				func(t TestingT) bool { return Less(t, -1, 0) },
				func(t TestingT) bool { return Less(t, float32(1), float32(2)) },
			},
			fail: fns{
				func(t TestingT) bool { return Less(t, 1, 1) },
				func(t TestingT) bool { return Less(t, "b", "a") },
			},
		},
		"LessOrEqual": {
			pass: fns{
				func(t TestingT) bool { return LessOrEqual(t, uint16(3), uint16(3)) },
				func(t TestingT) bool { return LessOrEqual(t, "a", "b") },
			},
			fail: fns{
				func(t TestingT) bool { return LessOrEqual(t, 4, 3) },
				func(t TestingT) bool { return LessOrEqual(t, true, true) },
			},
		},
		"Positive": {
			pass: fns{
				func(t TestingT) bool { return Positive(t, 1) },
				func(t TestingT) bool { return Positive(t, uint32(1)) },
				func(t TestingT) bool { return Positive(t, 0.5) },
				func(t TestingT) bool { return Positive(t, time.Second) },
			},
			fail: fns{
				func(t TestingT) bool { return Positive(t, 0) },
				func(t TestingT) bool { return Positive(t, -1) },
				func(t TestingT) bool { return Positive(t, uint(0)) },
				func(t TestingT) bool { return Positive(t, nil) },
				func(t TestingT) bool { return Positive(t, p) },
			},
		},
		"InDelta": {
			pass: fns{
				func(t TestingT) bool { return InDelta(t, 1.0, 1.05, 0.1) },
				func(t TestingT) bool { return InDelta(t, 10, uint8(12), 2) },
				func(t TestingT) bool { return InDelta(t, math.NaN(), math.NaN(), 0) },
				func(t TestingT) bool {
					return InDelta(t, time.Second, time.Second+time.Millisecond, float64(time.Millisecond))
				},
			},
			fail: fns{
				func(t TestingT) bool { return InDelta(t, 1.0, 1.2, 0.1) },
				func(t TestingT) bool { return InDelta(t, 1.2, 1.0, 0.1) },
				func(t TestingT) bool { return InDelta(t, math.NaN(), 1.0, 1) },
				func(t TestingT) bool { return InDelta(t, 1.0, math.NaN(), 1) },
				func(t TestingT) bool { return InDelta(t, "1", 1, 1) },
			},
		},
		"True": {
			pass: fns{func(t TestingT) bool { return True(t, true) }},
			fail: fns{func(t TestingT) bool { return True(t, false) }},
		},
		"False": {
			pass: fns{func(t TestingT) bool { return False(t, false) }},
			fail: fns{func(t TestingT) bool { return False(t, true) }},
		},
		"Regexp": {
			pass: fns{
				func(t TestingT) bool { return Regexp(t, "^ab+c$", "abbc") },
				func(t TestingT) bool { return Regexp(t, regexp.MustCompile(`\d+`), "x42") },
				func(t TestingT) bool { return Regexp(t, "^4", 42) },
				func(t TestingT) bool { return Regexp(t, "b", []byte("abc")) },
			},
			fail: fns{
				func(t TestingT) bool { return Regexp(t, "^b", "abc") },
				func(t TestingT) bool { return Regexp(t, regexp.MustCompile(`^\d+$`), "x42") },
				func(t TestingT) bool { return Regexp(t, "(", "(") },
			},
		},
		"NotRegexp": {
			pass: fns{
				func(t TestingT) bool { return NotRegexp(t, "^b", "abc") },
				func(t TestingT) bool { return NotRegexp(t, regexp.MustCompile("z"), "abc") },
			},
			fail: fns{
				func(t TestingT) bool { return NotRegexp(t, "b", "abc") },
				func(t TestingT) bool { return NotRegexp(t, "[", "abc") },
			},
		},
		"FileExists": {
			pass: fns{func(t TestingT) bool { return FileExists(t, file) }},
			fail: fns{
				func(t TestingT) bool { return FileExists(t, dir) },
				func(t TestingT) bool { return FileExists(t, filepath.Join(dir, "missing")) },
			},
		},
		"Fail": {
			fail: fns{func(t TestingT) bool { return Fail(t, "always") }},
		},
	}
}

func TestAssertions(t *testing.T) {
	for name, c := range cases(t) {
		t.Run(name, func(t *testing.T) {
			for i, f := range c.pass {
				ft := &fakeT{}
				if !f(ft) || len(ft.errors) != 0 {
					t.Errorf("pass case %d: returned false or reported %q", i, ft.errors)
				}
				if ft.helpers == 0 {
					t.Errorf("pass case %d: Helper not called", i)
				}
			}
			for i, f := range c.fail {
				ft := &fakeT{}
				if f(ft) || len(ft.errors) == 0 {
					t.Errorf("fail case %d: returned true or reported nothing", i)
				}
				if ft.helpers == 0 {
					t.Errorf("fail case %d: Helper not called", i)
				}
			}
		})
	}
}

// TestEveryAssertionHasCases keeps the table above complete: every exported
// function that takes a TestingT has pass or fail cases.
func TestEveryAssertionHasCases(t *testing.T) {
	have := cases(t)
	for _, name := range exportedAssertions(t, ".") {
		c, ok := have[name]
		if !ok || len(c.fail) == 0 || (name != "Fail" && len(c.pass) == 0) {
			t.Errorf("%s: no pass and fail cases", name)
		}
	}
}

func TestObjectsAreEqual(t *testing.T) {
	for i, c := range []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{[]byte(nil), []byte(nil), true},
		{[]byte("x"), []byte("x"), true},
		{[]byte{}, []byte(nil), false},
		{nil, []byte(nil), false},
		{1, 1, true},
		{1, 1.0, false},
		{point{1, 2}, point{1, 2}, true},
		{&point{1, 2}, &point{1, 2}, true},
		{[]int(nil), []int{}, false},
	} {
		if got := ObjectsAreEqual(c.a, c.b); got != c.want {
			t.Errorf("%d: ObjectsAreEqual(%#v, %#v) = %v, want %v", i, c.a, c.b, got, c.want)
		}
	}
}

func TestMessage(t *testing.T) {
	for _, c := range []struct {
		args []any
		want string
	}{
		{nil, ""},
		{[]any{"plain %d"}, "plain %d"},
		{[]any{"n=%d s=%s", 3, "x"}, "n=3 s=x"},
		{[]any{point{1, 2}}, "{X:1 Y:2}"},
	} {
		ft := &fakeT{}
		Equal(ft, 1, 2, c.args...)
		if len(ft.errors) != 1 {
			t.Fatalf("%v: %d reports", c.args, len(ft.errors))
		}
		got := ft.errors[0]
		if !strings.Contains(got, "expected: 1") || !strings.Contains(got, "actual  : 2") {
			t.Errorf("%v: report lacks the values: %q", c.args, got)
		}
		if c.want == "" && strings.Contains(got, "Messages") {
			t.Errorf("no message given, report has one: %q", got)
		}
		if c.want != "" && !strings.Contains(got, "Messages: "+c.want) {
			t.Errorf("%v: report %q lacks message %q", c.args, got, c.want)
		}
	}
}
