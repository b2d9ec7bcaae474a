package schema

import (
	"math"
	"strconv"
	"strings"
)

// The one parser of numbers written as text outside a TOML file: --set
// values, --param values and ranges, sweep levels, a plan knob's range,
// the bounds of range tags. It reads what TOML reads for a number and, in
// addition, the magnitudes the summary prints: 2M, 1.5k.

// suffixes are the magnitudes a number may carry. "m" is not one: 5m is a
// duration of five minutes.
var suffixes = map[byte]float64{'k': 1e3, 'K': 1e3, 'M': 1e6, 'G': 1e9}

// ParseNumber parses a finite number: TOML's decimal integers and floats
// (8000, -2, 2.5, 1e6, 2_000_000), optionally followed by a magnitude
// suffix: "2M" is 2,000,000, "1.5k" 1,500, "800K" 800,000, "3G"
// 3,000,000,000. An integer without a suffix, and a suffixed number whose
// value is whole, is an int64, so integer keys take it; any other number
// is a float64, as TOML decodes it. ok is false for anything else (a
// duration such as "5m", a word, nan, inf, an integer beyond int64).
func ParseNumber(s string) (v any, ok bool) {
	s = strings.TrimSpace(s)
	mul := 0.0
	if n := len(s); n > 1 {
		if m, has := suffixes[s[n-1]]; has {
			mul, s = m, s[:n-1]
		}
	}
	integer, ok := numberSyntax(s)
	if !ok {
		return nil, false
	}
	clean := strings.ReplaceAll(s, "_", "")
	if integer && mul == 0 {
		n, err := strconv.ParseInt(clean, 10, 64)
		if err != nil {
			return nil, false
		}
		return n, true
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	if mul == 0 {
		return f, true
	}
	f = tidy(f * mul)
	if math.IsInf(f, 0) {
		return nil, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return f, true
}

// numberSyntax reports whether s is a TOML decimal number: an optional
// sign, digits (underscores only between digits, no leading zero), an
// optional fraction and exponent; integer says it has neither. A fraction
// may also stand alone, ".5".
func numberSyntax(s string) (integer, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) {
			switch c := s[i]; {
			case c >= '0' && c <= '9':
				n++
			case c == '_' && n > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			default:
				return n
			}
			i++
		}
		return n
	}
	start := i
	n := digits()
	if n > 1 && s[start] == '0' || n == 0 && (i == len(s) || s[i] != '.') {
		return false, false
	}
	integer = true
	if i < len(s) && s[i] == '.' { // ".5" too, which TOML would not take
		i++
		if digits() == 0 {
			return false, false
		}
		integer = false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false, false
		}
		integer = false
	}
	return integer, i == len(s)
}

// tidy rounds away the floating-point dust of a scaled decimal (1.1k is
// 1100, not 1100.0000000000002).
func tidy(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) {
		return v
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// FormatNumber prints a number as the summary prints limits: 2M, 1.5M,
// 800k, 1.5k, 1250, 0.25 — never in exponent notation for everyday
// magnitudes. ParseNumber reads back what it prints.
func FormatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6 && math.Mod(a, 1e5) == 0:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e3 && math.Mod(a, 100) == 0:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	case a == 0 || (a >= 1e-6 && a < 1e21):
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
