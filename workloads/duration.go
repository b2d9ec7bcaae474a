package workloads

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Duration is a non-negative span of time in seconds. In TOML it is either
// a string in the syntax of Go's time.ParseDuration extended with a "d"
// (24h) unit, e.g. "400ms", "5m", "1h30m", "2d", or a bare number of
// seconds.
type Duration float64

// UnmarshalTOML decodes a duration string or a number of seconds.
func (d *Duration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("duration must be >= 0, got %d", x)
		}
		*d = Duration(x)
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("duration must be a finite number of seconds >= 0, got %v", x)
		}
		*d = Duration(x)
		return nil
	case string:
		p, err := ParseDuration(x)
		if err != nil {
			return err
		}
		*d = p
		return nil
	default:
		return fmt.Errorf("expected a duration such as \"30s\" or a number of seconds, got %s", describe(v))
	}
}

// Seconds returns the duration in seconds.
func (d Duration) Seconds() float64 { return float64(d) }

// String formats d compactly so that ParseDuration gives back exactly d:
// whole numbers of seconds from a minute up as "1d2h3m4s" (zero parts
// left out), anything else as seconds with the shortest exact decimal,
// e.g. "0.4s", "1.5s", "90.25s".
func (d Duration) String() string {
	s := float64(d)
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

// MarshalText encodes d as its String form. It fails for a negative or
// non-finite duration, which no decoder would accept back.
func (d Duration) MarshalText() ([]byte, error) {
	s := float64(d)
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return nil, fmt.Errorf("cannot encode duration %v: must be finite and >= 0", s)
	}
	return []byte(d.String()), nil
}

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

// ParseDuration parses a duration in the syntax of Go's time.ParseDuration
// ("300ms", "1.5h", "2h45m") extended with a "d" unit of 24 hours. It
// computes in floating-point seconds rather than integer nanoseconds, so it
// neither overflows at 292 years nor rounds below a nanosecond. A negative
// duration is an error.
func ParseDuration(s string) (Duration, error) {
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
	return Duration(total), nil
}

// ParseClock parses a clock time "HH:MM" or "HH:MM:SS" (00:00 to 23:59:59;
// the hour may have one digit) into seconds after midnight.
func ParseClock(s string) (float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return 0, fmt.Errorf("invalid clock time %q: want \"HH:MM\" or \"HH:MM:SS\"", s)
	}
	limits := [3]int{23, 59, 59}
	names := [3]string{"hour", "minute", "second"}
	mults := [3]float64{3600, 60, 1}
	total := 0.0
	for i, p := range parts {
		if len(p) == 0 || len(p) > 2 || (i > 0 && len(p) != 2) {
			return 0, fmt.Errorf("invalid clock time %q: want \"HH:MM\" or \"HH:MM:SS\"", s)
		}
		n := 0
		for _, c := range []byte(p) {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("invalid clock time %q: %q is not a number", s, p)
			}
			n = n*10 + int(c-'0')
		}
		if n > limits[i] {
			return 0, fmt.Errorf("invalid clock time %q: %s %d out of range 0..%d", s, names[i], n, limits[i])
		}
		total += float64(n) * mults[i]
	}
	return total, nil
}

// describe names a decoded TOML value's type for error messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("string %q", x)
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("float %v", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("%T", v)
	}
}
