package schema

import (
	"fmt"
	"go/types"
	"strings"
)

// intKeyPattern returns a regular expression that matches the decimal
// integers of a Go integer kind as strconv writes them: no sign on zero, no
// '+', no leading zeros. It serves map keys and ",string" integers, whose
// range JSON Schema cannot check with minimum and maximum. For kinds of up
// to 32 bits it matches exactly the numbers in range; for 64-bit kinds an
// exact pattern would run to a kilobyte, so it bounds the number of digits
// only (19 for signed, 20 for unsigned kinds).
func intKeyPattern(k types.BasicKind) string {
	lo, hi := intRange(k)
	if len(hi) >= 19 {
		p := fmt.Sprintf("^(?:0|[1-9][0-9]{0,%d})$", len(hi)-1)
		if strings.HasPrefix(lo, "-") {
			p = fmt.Sprintf("^(?:0|-?[1-9][0-9]{0,%d})$", len(hi)-1)
		}
		return p
	}
	pos := upTo(hi, true)
	if !strings.HasPrefix(lo, "-") {
		return "^(?:" + pos + ")$"
	}
	return "^(?:" + pos + "|-(?:" + upTo(lo[1:], false) + "))$"
}

// upTo returns an alternation matching the decimal numbers from 0 (when
// withZero) or 1 up to n, without leading zeros.
func upTo(n string, withZero bool) string {
	var alts []string
	if withZero {
		alts = append(alts, "0")
	}
	// Shorter numbers: one leading non-zero digit and up to len(n)-2 more.
	switch {
	case len(n) == 2:
		alts = append(alts, "[1-9]")
	case len(n) == 3:
		alts = append(alts, "[1-9][0-9]?")
	case len(n) > 3:
		alts = append(alts, fmt.Sprintf("[1-9][0-9]{0,%d}", len(n)-2))
	}
	// Numbers as long as n: n's prefix, then a smaller digit, then anything.
	for i := range len(n) {
		low := byte('0')
		if i == 0 {
			low = '1'
		}
		high := n[i] - 1
		if i == len(n)-1 {
			high = n[i] // the last digit may equal n's
		}
		if high < low {
			continue
		}
		alt := n[:i] + digitClass(low, high)
		if rest := len(n) - i - 1; rest == 1 {
			alt += "[0-9]"
		} else if rest > 1 {
			alt += fmt.Sprintf("[0-9]{%d}", rest)
		}
		alts = append(alts, alt)
	}
	return strings.Join(alts, "|")
}

func digitClass(lo, hi byte) string {
	switch {
	case lo == hi:
		return string(lo)
	case lo == '0' && hi == '9':
		return "[0-9]"
	case hi == lo+1:
		return "[" + string(lo) + string(hi) + "]"
	}
	return "[" + string(lo) + "-" + string(hi) + "]"
}
