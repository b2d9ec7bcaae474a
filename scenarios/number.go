package scenarios

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// numberRE matches a number with a magnitude suffix: 2M, 1.5k, 800K, 3G.
var numberRE = regexp.MustCompile(`^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)([kKMG])$`)

// suffixes are the magnitudes a number may carry.
var suffixes = map[string]float64{"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}

// ParseNumber parses a number written with a magnitude suffix, as the
// summary prints them: "2M" is 2,000,000, "1.5k" 1,500, "800K" 800,000,
// "3G" 3,000,000,000. ok is false when s is not such a number (a plain
// number is left to TOML). A whole result is an int64, so integer keys
// take it; any other is a float64.
func ParseNumber(s string) (v any, ok bool) {
	m := numberRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return nil, false
	}
	f *= suffixes[m[2]]
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	f = tidy(f)
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return f, true
}

// FormatNumber prints a number as the summary prints limits: 2M, 1.5M,
// 800k, 1.5k, 1250, 0.25 — never in exponent notation for everyday
// magnitudes.
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
