package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/model"
)

// Count formats an integer with thousands separators: 1,234,567.
func Count(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Plural is a count with its noun, singular for one: "1 waiting
// request", "19,682 waiting requests".
func Plural(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return Count(n) + " " + one
	}
	return Count(n) + " " + many
}

// USD formats dollars: cents below $100, whole dollars with separators
// above.
func USD(v float64) string {
	if v < 0 {
		return "-" + USD(-v)
	}
	if v < 100 {
		return fmt.Sprintf("$%.2f", v)
	}
	return "$" + Count(int64(math.Round(v)))
}

// USDColumn formats a column (or row) of costs in one style, so that
// they compare at a glance: to the cent when every cost is below $100 or
// one is below $10 ("$0.48", "$144.00"), otherwise in whole dollars
// ("$58", "$86", "$115", "$144"), never "$57.60" beside "$115".
func USDColumn(vs []float64) []string {
	out := make([]string, len(vs))
	small, whole := true, true
	for _, v := range vs {
		a := math.Abs(v)
		if a >= 100 {
			small = false
		}
		if a != 0 && a < 10 {
			whole = false
		}
	}
	for i, v := range vs {
		switch {
		case small:
			out[i] = USD(v)
		case whole:
			out[i] = "$" + Count(int64(math.Round(v)))
			if v < 0 {
				out[i] = "-$" + Count(int64(math.Round(-v)))
			}
		default:
			out[i] = Cents(v)
		}
	}
	return out
}

// Refused formats refused attempts as a count and its share of all
// attempts, the one form every table uses: "1,234 (5.6%)", "0".
func Refused(n, attempts int64) string {
	if n == 0 {
		return "0"
	}
	if attempts <= 0 { // results written before attempts were kept
		return Count(n)
	}
	return fmt.Sprintf("%s (%s)", Count(n), shareOf(float64(n), float64(attempts)))
}

// shareOf is a/b as a percentage with one decimal, "5.6%"; "<0.1%" for a
// share that would round to nothing.
func shareOf(a, b float64) string {
	if b <= 0 {
		return "—"
	}
	p := 100 * a / b
	if p > 0 && p < 0.05 {
		return "<0.1%"
	}
	return fmt.Sprintf("%.1f%%", p)
}

// Cents formats dollars to the cent with thousands separators:
// "$1,030.99", "$0.48".
func Cents(v float64) string {
	if v < 0 {
		return "-" + Cents(-v)
	}
	c := int64(math.Round(v * 100))
	return fmt.Sprintf("$%s.%02d", Count(c/100), c%100)
}

// Seconds formats a duration in seconds: 350ms, 4.2s, 3m10s, 2h05m, 2h.
func Seconds(s float64) string {
	if s < 0 {
		return "-" + Seconds(-s)
	}
	switch {
	case s == 0:
		return "0"
	case s < 1:
		return fmt.Sprintf("%.0fms", s*1000)
	case s < 60:
		return fmt.Sprintf("%.1fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	case math.Mod(s, 3600) == 0:
		return fmt.Sprintf("%dh", int(s)/3600)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, (int(s)%3600)/60)
}

// LimitValue formats a limit compactly: 2,000, 800k, 1.5M.
func LimitValue(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e5) == 0:
		return strconv.FormatFloat(v/1e6, 'g', -1, 64) + "M"
	case v >= 1e4 && math.Mod(v, 1e3) == 0:
		return strconv.FormatFloat(v/1e3, 'g', -1, 64) + "k"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return Count(int64(v))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// ColumnValues formats a column of numbers in one style, so that a sweep's
// values read alike (1k, 1.25k, 1.5k rather than 1k, 1250, 1.5k): when
// every non-zero value can be written at least one unit of M or k with at
// most two decimals, each with the largest that does (800k, 1.2M, 2M, as
// a ladder of tiers is written, not 800k, 1200k, 2000k); otherwise all as
// whole numbers with thousands separators, or as they are.
func ColumnValues(vs []float64) []string {
	out := make([]string, len(vs))
	suffixes := []suffix{{1e6, "M"}, {1e3, "k"}}
	each := len(vs) > 0
	for i, v := range vs {
		out[i] = ""
		for _, sc := range suffixes {
			if sc.fits(v) {
				out[i] = sc.text(v)
				break
			}
		}
		if out[i] == "" {
			each = false
			break
		}
	}
	if each {
		return out
	}
	for i, v := range vs {
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			out[i] = Count(int64(v))
		} else {
			out[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return out
}

// suffix is a unit a column of values can be written in: 1e3 "k".
type suffix struct {
	unit float64
	name string
}

// fits reports whether v is 0, or at least one unit with at most two
// decimals in it.
func (sc suffix) fits(v float64) bool {
	a := math.Abs(v)
	return a == 0 || (a >= sc.unit && math.Abs(a/sc.unit*100-math.Round(a/sc.unit*100)) <= 1e-9)
}

// text writes v in the unit: "1.25k", "0".
func (sc suffix) text(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v/sc.unit*100)/100, 'f', -1, 64) + sc.name
}

// Quantile formats one figure of a latency distribution in seconds, or
// "—" when the distribution is empty (no request completed), so that an
// absent figure never reads as a zero latency.
func Quantile(q model.Quantiles, v float64) string {
	if q.Count == 0 {
		return "—"
	}
	return Seconds(v)
}
