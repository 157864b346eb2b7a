package assert

import (
	"fmt"
	"os"
	"regexp"
)

// True asserts that value is true.
func True(t TestingT, value bool, msgAndArgs ...any) bool {
	helper(t)
	if !value {
		return Fail(t, "Should be true", msgAndArgs...)
	}
	return true
}

// False asserts that value is false.
func False(t TestingT, value bool, msgAndArgs ...any) bool {
	helper(t)
	if value {
		return Fail(t, "Should be false", msgAndArgs...)
	}
	return true
}

// match reports whether rx (a *regexp.Regexp, or anything whose fmt.Sprint
// is a pattern) matches str (a string, a []byte, or anything's fmt.Sprint).
func match(rx, str any) (bool, error) {
	r, ok := rx.(*regexp.Regexp)
	if !ok {
		var err error
		if r, err = regexp.Compile(fmt.Sprint(rx)); err != nil {
			return false, err
		}
	}
	switch s := str.(type) {
	case []byte:
		return r.Match(s), nil
	case string:
		return r.MatchString(s), nil
	}
	return r.MatchString(fmt.Sprint(str)), nil
}

// Regexp asserts that rx matches str.
func Regexp(t TestingT, rx, str any, msgAndArgs ...any) bool {
	helper(t)
	ok, err := match(rx, str)
	if err != nil {
		return Fail(t, fmt.Sprintf("invalid regexp %v: %v", rx, err), msgAndArgs...)
	}
	if !ok {
		return Fail(t, fmt.Sprintf("Expect \"%v\" to match \"%v\"", str, rx), msgAndArgs...)
	}
	return true
}

// NotRegexp asserts that rx does not match str.
func NotRegexp(t TestingT, rx, str any, msgAndArgs ...any) bool {
	helper(t)
	ok, err := match(rx, str)
	if err != nil {
		return Fail(t, fmt.Sprintf("invalid regexp %v: %v", rx, err), msgAndArgs...)
	}
	if ok {
		return Fail(t, fmt.Sprintf("Expect \"%v\" to NOT match \"%v\"", str, rx), msgAndArgs...)
	}
	return true
}

// FileExists asserts that path names something that is not a directory
// (os.Lstat: a symbolic link counts as itself).
func FileExists(t TestingT, path string, msgAndArgs ...any) bool {
	helper(t)
	info, err := os.Lstat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return Fail(t, fmt.Sprintf("unable to find file %q", path), msgAndArgs...)
		}
		return Fail(t, fmt.Sprintf("error when running os.Lstat(%q): %s", path, err), msgAndArgs...)
	}
	if info.IsDir() {
		return Fail(t, fmt.Sprintf("%q is a directory", path), msgAndArgs...)
	}
	return true
}
