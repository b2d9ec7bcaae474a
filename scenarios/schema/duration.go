package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Durations are written in Go's time.ParseDuration syntax extended with a
// "d" (24h) unit, and computed in floating-point seconds: they neither
// overflow at 292 years nor round below a nanosecond.

// durationUnit returns a unit's length in seconds as mul/div, both exact
// in floating point. Units shorter than a second are divided by exact
// powers of ten, so "100ms" is the double nearest 0.1, exactly as "0.1s" is.
func durationUnit(u string) (mul, div float64, ok bool) {
	switch u {
	case "ns":
		return 1, 1e9, true
	case "us", "\u00b5s", "\u03bcs": // micro sign or Greek mu
		return 1, 1e6, true
	case "ms":
		return 1, 1e3, true
	case "s":
		return 1, 1, true
	case "m":
		return 60, 1, true
	case "h":
		return 3600, 1, true
	case "d":
		return 86400, 1, true
	}
	return 0, 0, false
}

// scaleDecimal returns the decimal number text (digits with at most one
// '.') times mul/div. When the digits fit comfortably in a float64's
// mantissa it computes digits*mul / (10^fraction * div) with one rounding,
// so "1.1h" is exactly 3960; otherwise it falls back to ParseFloat.
func scaleDecimal(text string, mul, div float64) (float64, error) {
	var n uint64
	frac, sig := 0, 0
	seenDot := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '.' {
			seenDot = true
			continue
		}
		if n == 0 && c == '0' {
			if seenDot {
				frac++
			}
			continue
		}
		sig++
		if sig > 15 {
			f, err := strconv.ParseFloat(text, 64)
			return f * mul / div, err
		}
		n = n*10 + uint64(c-'0')
		if seenDot {
			frac++
		}
	}
	if frac > 13 || float64(n)*mul >= 1<<53 {
		f, err := strconv.ParseFloat(text, 64)
		return f * mul / div, err
	}
	return float64(n) * mul / (math.Pow10(frac) * div), nil
}

// ParseSeconds parses a duration such as "300ms", "1.5h", "2h45m" or "2d"
// into seconds. A negative duration is an error; "0" alone is allowed.
func ParseSeconds(s string) (float64, error) {
	orig := s
	if s == "" {
		return 0, fmt.Errorf("invalid duration \"\": empty (use e.g. \"30s\", \"5m\", \"1h30m\", \"2d\")")
	}
	if s[0] == '-' {
		return 0, fmt.Errorf("invalid duration %q: must not be negative", orig)
	}
	if s[0] == '+' {
		s = s[1:]
	}
	if s == "0" {
		return 0, nil
	}
	if s == "" {
		return 0, fmt.Errorf("invalid duration %q", orig)
	}
	total := 0.0
	for s != "" {
		// The number: digits with at most one '.', at least one digit.
		i := 0
		digits, dots := 0, 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			if s[i] == '.' {
				dots++
			} else {
				digits++
			}
			i++
		}
		if digits == 0 || dots > 1 {
			return 0, fmt.Errorf("invalid duration %q: expected a number at %q", orig, s)
		}
		numText := s[:i]
		s = s[i:]
		// The unit: everything up to the next digit or '.'.
		j := 0
		for j < len(s) && !(s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		if j == 0 {
			return 0, fmt.Errorf("invalid duration %q: missing unit after %s (units: ns, us, ms, s, m, h, d; a bare number of seconds must not be quoted)", orig, numText)
		}
		mul, div, ok := durationUnit(s[:j])
		if !ok {
			return 0, fmt.Errorf("invalid duration %q: unknown unit %q (units: ns, us, ms, s, m, h, d)", orig, s[:j])
		}
		s = s[j:]
		v, err := scaleDecimal(numText, mul, div)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: %w", orig, err)
		}
		total += v
	}
	if math.IsInf(total, 0) {
		return 0, fmt.Errorf("invalid duration %q: too large", orig)
	}
	return total, nil
}

// FormatSeconds writes seconds compactly so that ParseSeconds gives back
// exactly s: whole numbers of seconds from a minute up as "1d2h3m4s" (zero
// parts left out), anything else as seconds with the shortest exact
// decimal, e.g. "0.4s", "1.5s", "90.25s". Negative and non-finite values
// are written as plain numbers.
func FormatSeconds(s float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0) || s < 0:
		return strconv.FormatFloat(s, 'g', -1, 64)
	case s == 0:
		return "0s"
	case s >= 60 && s < 1<<53 && s == math.Trunc(s):
		n := int64(s)
		var b strings.Builder
		units := [...]struct {
			name string
			size int64
		}{{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}}
		for _, u := range units {
			if q := n / u.size; q > 0 {
				b.WriteString(strconv.FormatInt(q, 10))
				b.WriteString(u.name)
				n -= q * u.size
			}
		}
		return b.String()
	default:
		return strconv.FormatFloat(s, 'f', -1, 64) + "s"
	}
}
