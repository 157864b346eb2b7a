package spec

import (
	"fmt"
	"sort"
)

// Convention is how a C function reports success and failure through its
// return value (and errno). The set is closed: Load rejects any other value.
// "errno set" means the function stores the error code in errno before it
// returns the failure value; "errno not set" means callers must not read
// errno after a failure (it may hold a stale value).
type Convention string

// The conventions. Each constant's YAML spelling is its value.
const (
	// ZeroOrErrno: returns 0 on success and a positive errno value (EINVAL,
	// ENOMEM, ...) on failure; errno is not set. Example: ibv_req_notify_cq.
	ZeroOrErrno Convention = "zero_or_errno"

	// ZeroOrNegErrno: returns 0 on success and a negated errno value
	// (-EINVAL) on failure; errno is not set.
	ZeroOrNegErrno Convention = "zero_or_neg_errno"

	// ZeroOrMinusOneErrno: returns 0 on success and -1 on failure with
	// errno set. Example: rdma_bind_addr.
	ZeroOrMinusOneErrno Convention = "zero_or_minus_one_errno"

	// ZeroOrEAIOrMinusOneErrno: returns 0 on success; on failure either a
	// negative getaddrinfo(3) EAI_* code as the result itself (errno not
	// set), or -1 with errno set for the library's own failures (-1 is also
	// EAI_BADFLAGS's value; errno tells the two apart only when it was
	// cleared before the call). Example: rdma_getaddrinfo, whose code returns
	// getaddrinfo's result unchanged.
	ZeroOrEAIOrMinusOneErrno Convention = "zero_or_eai_or_minus_one_errno"

	// ZeroOrMinusOne: returns 0 on success and -1 on failure; the page does
	// not promise errno is set, so the cause of a failure is unknown.
	// Example: ibv_query_gid.
	ZeroOrMinusOne Convention = "zero_or_minus_one"

	// CountOrMinusOneErrno: returns a non-negative value (a count, an index,
	// a file descriptor) on success and -1 on failure with errno set.
	// Example: rdma_get_send_comp.
	CountOrMinusOneErrno Convention = "count_or_minus_one_errno"

	// CountOrMinusOne: returns a non-negative value on success and -1 on
	// failure; errno is not set. Example: ibv_get_pkey_index.
	CountOrMinusOne Convention = "count_or_minus_one"

	// CountOrNegErrno: returns a non-negative count on success and a
	// negated errno value (-EINVAL) on failure; errno is not set.
	// Example: ibv_query_gid_table.
	CountOrNegErrno Convention = "count_or_neg_errno"

	// CountOrNegative: returns a non-negative count on success and some
	// negative value on failure; neither the value nor errno identifies the
	// cause. Example: ibv_poll_cq.
	CountOrNegative Convention = "count_or_negative"

	// ZeroOrNegCode: returns 0 on success and a negative library-defined
	// code on failure (RPMA_E_INVAL, IBV_REREG_MR_ERR_INPUT, ...), named in
	// Function.Errors; errno is not set. Example: rpma_cq_wait.
	ZeroOrNegCode Convention = "zero_or_neg_code"

	// PointerOrNullErrno: returns a non-NULL pointer on success and NULL on
	// failure with errno set. Example: ibv_create_cq.
	PointerOrNullErrno Convention = "pointer_or_null_errno"

	// PointerOrNull: returns a non-NULL pointer on success and NULL on
	// failure; errno is not set, so the cause of a failure is unknown.
	// Example: ibv_create_wq.
	PointerOrNull Convention = "pointer_or_null"

	// Value: returns a plain value (a number, an enum, a string, a pointer
	// that is never a failure indication); there is no error channel.
	// Example: ibv_rate_to_mult.
	Value Convention = "value"

	// Void: returns nothing; there is no error channel. Example:
	// ibv_ack_cq_events.
	Void Convention = "void"

	// Undocumented: no manual page documents the function (Documented is
	// false) and no override says how it fails; a non-void result carries
	// no known contract and must be passed through raw. A documented
	// function never has this convention: the derivation fails until an
	// override classifies it.
	Undocumented Convention = "undocumented"
)

// Conventions returns every Convention, sorted.
func Conventions() []Convention {
	out := make([]Convention, 0, len(conventionDocs))
	for c := range conventionDocs {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var conventionDocs = map[Convention]string{
	ZeroOrErrno:              "0 on success, a positive errno value on failure; errno not set",
	ZeroOrNegErrno:           "0 on success, a negated errno value on failure; errno not set",
	ZeroOrMinusOneErrno:      "0 on success, -1 on failure with errno set",
	ZeroOrMinusOne:           "0 on success, -1 on failure; errno not set",
	ZeroOrEAIOrMinusOneErrno: "0 on success; on failure a negative getaddrinfo(3) EAI_* code as the result (errno not set), or -1 with errno set",
	CountOrMinusOneErrno:     "a non-negative value on success, -1 on failure with errno set",
	CountOrMinusOne:          "a non-negative value on success, -1 on failure; errno not set",
	CountOrNegErrno:          "a non-negative count on success, a negated errno value on failure; errno not set",
	CountOrNegative:          "a non-negative count on success, a negative value on failure; errno not set",
	ZeroOrNegCode:            "0 on success, a negative library error code on failure; errno not set",
	PointerOrNullErrno:       "a non-NULL pointer on success, NULL on failure with errno set",
	PointerOrNull:            "a non-NULL pointer on success, NULL on failure; errno not set",
	Value:                    "a plain value; no error channel",
	Void:                     "no value; no error channel",
	Undocumented:             "not documented; the result carries no known error contract",
}

// Valid reports whether c is one of the defined conventions.
func (c Convention) Valid() bool {
	_, ok := conventionDocs[c]
	return ok
}

// Describe returns a one-line description of c.
func (c Convention) Describe() string {
	if d, ok := conventionDocs[c]; ok {
		return d
	}
	return fmt.Sprintf("unknown convention %q", string(c))
}

// SetsErrno reports whether a failure under c leaves the cause in errno.
func (c Convention) SetsErrno() bool {
	switch c {
	case ZeroOrMinusOneErrno, CountOrMinusOneErrno, PointerOrNullErrno, ZeroOrEAIOrMinusOneErrno:
		return true
	}
	return false
}

// CanFail reports whether c has a failure value.
func (c Convention) CanFail() bool {
	switch c {
	case Value, Void, Undocumented:
		return false
	}
	return true
}
