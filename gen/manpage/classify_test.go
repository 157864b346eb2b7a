package manpage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goverbs/goverbs/gen/spec"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		text string
		res  Result
		want spec.Convention
	}{
		{"foo() returns 0 on success, or the value of errno on failure (which indicates the failure reason).", ResultInt, spec.ZeroOrErrno},
		{"Returns 0 on success, or a positive errno value on failure:", ResultInt, spec.ZeroOrErrno},
		{"foo() returns 0 upon success, otherwise the errno value.", ResultInt, spec.ZeroOrErrno},
		{"Returns 0 on success, or -1 on error. If an error occurs, errno will be set to indicate the failure reason.", ResultInt, spec.ZeroOrMinusOneErrno},
		{"On success 0 is returned, on error -1 is returned, errno will be set to indicate the failure reason.", ResultInt, spec.ZeroOrMinusOneErrno},
		{"foo() returns 0 on success, and -1 on error.", ResultInt, spec.ZeroOrMinusOne},
		{"Returns the number of returned completions (0 or 1) on success, or -1 on error. If an error occurs, errno will be set to indicate the failure reason.", ResultInt, spec.CountOrMinusOneErrno},
		{"foo() returns a file descriptor >= 0 on success, or -1 if the request fails with errno set.", ResultInt, spec.CountOrMinusOneErrno},
		{"foo() returns an index, or -1 if the kernel doesn't support device indexes.", ResultInt, spec.CountOrMinusOne},
		{"foo() returns the number of entries that were read on success or negative errno value on error.", ResultInt, spec.CountOrNegErrno},
		{"foo() returns 0 on success or -errno on failure.", ResultInt, spec.ZeroOrNegErrno},
		{"On success, foo() returns a non-negative value equal to the number of completions found. On failure, a negative value is returned.", ResultInt, spec.CountOrNegative},
		{"The foo() function returns 0 on success or a negative error code on failure.", ResultInt, spec.ZeroOrNegCode},
		{"foo() returns a pointer to the CQ, or NULL if the request fails, and errno is set to indicate the reason.", ResultPointer, spec.PointerOrNullErrno},
		{"foo() returns the array of available RDMA devices, or sets errno and returns NULL if the request fails.", ResultPointer, spec.PointerOrNullErrno},
		{"foo() returns a pointer to the created WQ, or NULL if the request fails.", ResultPointer, spec.PointerOrNull},
		{"Upon success returns a pointer to the registered MR, or NULL if the request fails, in that case the value of errno indicates the failure reason.", ResultPointer, spec.PointerOrNullErrno},
		{"mlx5dv_crypto_login_query() returns 0 on success and fills query_attr with the queried attributes. On error, errno is returned.", ResultInt, spec.ZeroOrErrno},
		{"foo() returns 0 on success and errno on error.", ResultInt, spec.ZeroOrErrno},
		{"Returns a pointer to a static character string corresponding to the event.", ResultPointer, spec.Value},
		{"foo() returns the multiplier of the base rate 2.5 Gbit/sec.", ResultInt, spec.Value},
		{"Get the opcode from the current completion.", ResultInt, spec.Value},
		{"foo() returns no value.", ResultVoid, spec.Void},
		{"", ResultVoid, spec.Void},
	} {
		t.Run(tc.text, func(t *testing.T) {
			c, err := Classify(Sentences(tc.text), tc.res)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Convention)
		})
	}
}

// Nothing ambiguous is guessed.
func TestClassifyRefuses(t *testing.T) {
	for _, tc := range []struct {
		text string
		res  Result
		why  string
	}{
		{"", ResultInt, "says nothing"},
		{"None", ResultInt, "says no value"},
		{"Returns 0 on success, or -1 on error (errno will be set), or one of the following nonzero error codes:", ResultInt, "several conventions"},
		{"foo() function returns 0 on success or error code on failure.", ResultInt, "sign or kind"},
		{"foo() returns 0 on success, otherwise an error has occurred.", ResultInt, "no known failure convention"},
		{"foo() returns 0 on success, or -1 on failure.", ResultVoid, "prototype returns void"},
		{"foo() fails when the pointer is bad.", ResultPointer, "no NULL"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			_, err := Classify(Sentences(tc.text), tc.res)
			var u *Unclassified
			require.ErrorAs(t, err, &u)
			assert.Contains(t, u.Why, tc.why)
		})
	}
}

func TestSentences(t *testing.T) {
	assert.Equal(t,
		[]string{"One, e.g. this.", "Two:", "three;", "four.", "Next paragraph."},
		Sentences("One, e.g. this. Two: three; four.\nNext paragraph."))
	assert.Empty(t, Sentences(""))
}
