package assert

import (
	"fmt"
	"strings"
)

// TestingT is the part of *testing.T the assertions need.
type TestingT interface {
	Errorf(format string, args ...any)
}

// tHelper is implemented by *testing.T; a TestingT without it still works.
type tHelper interface {
	Helper()
}

func helper(t TestingT) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
}

// message formats msgAndArgs the way testify does: nothing, one value, or a
// format string followed by its arguments.
func message(msgAndArgs ...any) string {
	switch len(msgAndArgs) {
	case 0:
		return ""
	case 1:
		if s, ok := msgAndArgs[0].(string); ok {
			return s
		}
		return fmt.Sprintf("%+v", msgAndArgs[0])
	}
	if format, ok := msgAndArgs[0].(string); ok {
		return fmt.Sprintf(format, msgAndArgs[1:]...)
	}
	// Not a format string: print each value (testify would panic here).
	parts := make([]string, len(msgAndArgs))
	for i, a := range msgAndArgs {
		parts[i] = fmt.Sprintf("%+v", a)
	}
	return strings.Join(parts, " ")
}

// Fail reports failure (with the caller's msgAndArgs, if any) and returns false.
func Fail(t TestingT, failure string, msgAndArgs ...any) bool {
	helper(t)
	var b strings.Builder
	b.WriteString("\nError: ")
	b.WriteString(failure)
	if m := message(msgAndArgs...); m != "" {
		b.WriteString("\nMessages: ")
		b.WriteString(m)
	}
	t.Errorf("%s", b.String())
	return false
}
