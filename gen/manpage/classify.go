package manpage

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goverbs/goverbs/gen/spec"
)

// Result is the shape of a C function's result type, from its prototype.
type Result int

// The result shapes.
const (
	ResultInt Result = iota // an integer or enum
	ResultPointer
	ResultVoid
)

// Contract is what Classify derived from a RETURN VALUE text.
type Contract struct {
	Convention spec.Convention
	// Success describes the success value(s) ("0", ">= 0", "non-NULL").
	Success string
}

// Unclassified is the error Classify returns when the text does not fit
// one convention; Why says what was found.
type Unclassified struct{ Why string }

func (u *Unclassified) Error() string { return "unclassified: " + u.Why }

var (
	reErrnoSet   = regexp.MustCompile(`errno (?:is |will be |was )?(?:set|updated)|sets errno|errno set|set errno|and errno is|check errno`)
	reNull       = regexp.MustCompile(`\bnull\b`)
	reErrnoValue = regexp.MustCompile(`value of errno|errno value|positive errno|failure reason value|errno (?:is|will be) returned|\band errno on (?:error|failure)`)
	reNegErrno   = regexp.MustCompile(`negative errno|-errno|negated errno`)
	reNegCode    = regexp.MustCompile(`negative error code`)
	reMinusOne   = regexp.MustCompile(`(?:^|[^0-9a-z])-1\b`)
	reGEZero     = regexp.MustCompile(`>=\s*0|non-negative|number of|an index|file descriptor|fd number`)
	reOtherCodes = regexp.MustCompile(`(?:nonzero|non-zero|following|an?) error codes?|error code on failure|an error code otherwise`)
	reZeroOK     = regexp.MustCompile(`\b0 (?:on|upon|when the call was) success|\b0 is returned|returns? 0\b|return 0 on success`)
	reNegValue   = regexp.MustCompile(`negative value`)
	reCount      = regexp.MustCompile(`number of|\bcount\b|\bindex\b|file descriptor|\bfd\b`)
	reFailWord   = regexp.MustCompile(`\bfail|\berror|\bnull\b|-1\b|negative`)
	reReturns    = regexp.MustCompile(`\breturns?\b|\bis returned\b|^gets? the\b`)
)

// Classify derives the return contract from the RETURN VALUE sentences
// about one function (see SentencesFor) and the shape of its result type.
// It never guesses: text that fits no convention, or fits two, yields an
// *Unclassified error. Text that states what is returned ("returns the
// number of Mbit/sec", "Get the opcode from the current completion") and
// mentions no failure at all (no "fail", "error", NULL, -1 or "negative")
// is a Value.
func Classify(sentences []string, res Result) (Contract, error) {
	t := strings.ToLower(strings.Join(sentences, " "))
	t = strings.ReplaceAll(t, "−", "-")
	if res == ResultVoid {
		if reZeroOK.MatchString(t) || reMinusOne.MatchString(t) || reNull.MatchString(t) && reReturns.MatchString(t) && !strings.Contains(t, "no value") {
			return Contract{}, &Unclassified{Why: "the prototype returns void but RETURN VALUE describes a value"}
		}
		return Contract{Convention: spec.Void}, nil
	}
	if strings.TrimSpace(t) == "" {
		return Contract{}, &Unclassified{Why: "RETURN VALUE says nothing about this function"}
	}
	if t == "none" || t == "none." || strings.Contains(t, "returns no value") || strings.Contains(t, "does not return a value") {
		return Contract{}, &Unclassified{Why: "RETURN VALUE says no value but the prototype returns one"}
	}
	if res == ResultPointer {
		switch {
		case reNull.MatchString(t) && (reErrnoSet.MatchString(t) || reErrnoValue.MatchString(t)):
			return Contract{spec.PointerOrNullErrno, "non-NULL"}, nil
		case reNull.MatchString(t):
			return Contract{spec.PointerOrNull, "non-NULL"}, nil
		case reFailWord.MatchString(t):
			return Contract{}, &Unclassified{Why: "pointer result with a failure mentioned but no NULL"}
		case reReturns.MatchString(t):
			return Contract{spec.Value, "any"}, nil
		}
		return Contract{}, &Unclassified{Why: "no statement of what is returned"}
	}
	var found []Contract
	if reNegCode.MatchString(t) {
		found = append(found, Contract{spec.ZeroOrNegCode, "0"})
	}
	if reNegErrno.MatchString(t) {
		if reCount.MatchString(t) {
			found = append(found, Contract{spec.CountOrNegErrno, ">= 0"})
		} else {
			found = append(found, Contract{spec.ZeroOrNegErrno, "0"})
		}
	}
	if reErrnoValue.MatchString(t) && !reNegErrno.MatchString(t) {
		found = append(found, Contract{spec.ZeroOrErrno, "0"})
	}
	if reMinusOne.MatchString(t) {
		zero := reZeroOK.MatchString(t) && !reGEZero.MatchString(t)
		switch errno := reErrnoSet.MatchString(t); {
		case zero && errno:
			found = append(found, Contract{spec.ZeroOrMinusOneErrno, "0"})
		case zero:
			found = append(found, Contract{spec.ZeroOrMinusOne, "0"})
		case errno:
			found = append(found, Contract{spec.CountOrMinusOneErrno, ">= 0"})
		default:
			found = append(found, Contract{spec.CountOrMinusOne, ">= 0"})
		}
	}
	if reOtherCodes.MatchString(t) && !reNegCode.MatchString(t) {
		// "returns error code on failure", "or one of the following
		// nonzero error codes": the sign and the kind of code are unstated.
		found = append(found, Contract{Convention: "(error codes of unstated sign)"})
	}
	if reNegValue.MatchString(t) && len(found) == 0 {
		found = append(found, Contract{spec.CountOrNegative, ">= 0"})
	}
	switch len(found) {
	case 1:
		if !found[0].Convention.Valid() {
			return Contract{}, &Unclassified{Why: "the page speaks of error codes without saying their sign or kind"}
		}
		return found[0], nil
	case 0:
		if !reFailWord.MatchString(t) && reReturns.MatchString(t) {
			return Contract{spec.Value, "any"}, nil
		}
		return Contract{}, &Unclassified{Why: "no known failure convention in: " + clip(t, 160)}
	}
	var names []string
	for _, c := range found {
		names = append(names, string(c.Convention))
	}
	return Contract{}, &Unclassified{Why: fmt.Sprintf("text fits several conventions (%s)", strings.Join(names, ", "))}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
