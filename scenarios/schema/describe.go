package schema

import (
	"math"
	"strconv"
	"strings"
)

// Described is implemented by value types that say how the reference and
// the JSON Schema name and write them: a duration, a clock time, a
// distribution, a retry policy given by a preset's name.
type Described interface {
	// KeyType names the type for the reference ("duration").
	KeyType() string
	// ScalarSchema is the JSON Schema of the value's short form (nil: it
	// has none and is written as a table).
	ScalarSchema() map[string]any
}

// Describe writes a range for the reference: "≥ 0", "> 0, ≤ 1,000,000",
// "0 to 1", "500, 503 or 529". isInt says whether the key takes whole
// numbers.
func (r Range) Describe() string {
	var parts []string
	for _, iv := range r.Parts {
		parts = append(parts, r.describe(iv))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func (r Range) describe(iv Interval) string {
	b := func(v float64) string {
		if r.Duration && v != 0 {
			return FormatSeconds(v)
		}
		return DocNumber(v)
	}
	lo, hi := "≥ "+b(iv.Lo), "≤ "+b(iv.Hi)
	if iv.LoOpen {
		lo = "> " + b(iv.Lo)
	}
	if iv.HiOpen {
		hi = "< " + b(iv.Hi)
	}
	loInf, hiInf := math.IsInf(iv.Lo, -1), math.IsInf(iv.Hi, 1)
	switch {
	case iv.Lo == iv.Hi:
		return b(iv.Lo)
	case loInf && hiInf:
		return "any"
	case hiInf:
		return lo
	case loInf:
		return hi
	case !iv.LoOpen && !iv.HiOpen:
		return b(iv.Lo) + " to " + b(iv.Hi)
	}
	return lo + ", " + hi
}

// Allowed writes what a key allows for the reference: its values, its
// range, and what 0 means when 0 is outside the range.
func (f *Field) Allowed() string {
	if len(f.Enum) > 0 {
		quoted := make([]string, len(f.Enum))
		for i, e := range f.Enum {
			quoted[i] = "`" + e + "`"
		}
		if len(quoted) == 1 {
			return quoted[0]
		}
		return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	}
	s := f.Range.Describe()
	if f.Zero != "" {
		if s != "" {
			s += ", or "
		}
		s += f.Zero
	}
	return s
}

// DocNumber writes a number for people: whole numbers below 10¹⁵ with
// thousands separators (100,000), others in exponent form (1e15).
func DocNumber(v float64) string {
	if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
		s := strconv.FormatFloat(v, 'g', -1, 64)
		return strings.Replace(s, "e+", "e", 1)
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if v < 0 {
		s = "-" + s
	}
	return s
}
