package htmlreport

import (
	"fmt"
	"math"
	"strconv"

	"github.com/headroom-sim/headroom/report"
)

// share formats a ratio as a percentage with one decimal.
func share(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// pctOf formats a/b as a percentage, "-" when b is 0.
func pctOf(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return share(float64(a) / float64(b))
}

// number formats a plain figure with about four significant digits.
func number(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1000:
		return report.Count(int64(math.Round(v)))
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// round4 rounds a chart value to four significant digits, so that the
// page stays small and tooltips read well.
func round4(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return r
}

// intervalText formats a key figure's 95% interval "[lo, hi]" in the
// figure's unit. Every key figure (report/figures.go) is a count, rate,
// latency, cost or percentage that cannot be negative, nor a percentage
// above 100, so the displayed bounds are clamped there; the JSON keeps the
// interval as computed. unit is the figure's unit, shown the unit the
// bounds print in (a sweep table leaves rates' units to the column head).
func intervalText(lo, hi float64, unit, shown string) string {
	lo = math.Max(lo, 0)
	if unit == "%" {
		hi = math.Min(hi, 100)
	}
	return "[" + formatFigure(lo, shown) + ", " + formatFigure(hi, shown) + "]"
}

// formatFigure formats a value of a key figure by its unit, the units of
// report's key figures (report/figures.go) and the "ratio" of a share:
// "s" a duration, "USD" dollars, "%" already a percentage, "ratio" a share
// shown as a percentage, "requests" a count (the label names it), else a
// number and its unit.
func formatFigure(v float64, unit string) string {
	switch unit {
	case "s":
		return report.Seconds(v)
	case "USD":
		return report.USD(v)
	case "%":
		return fmt.Sprintf("%.1f%%", v)
	case "ratio":
		return share(v)
	case "", "requests":
		return number(v)
	}
	return number(v) + " " + unit
}

// signed formats a difference with an explicit sign; a difference of
// percentages is in points.
func signed(v float64, unit string) string {
	if unit == "%" {
		if math.Abs(v) < 0.05 {
			return "±0"
		}
		return fmt.Sprintf("%+.1f pts", v)
	}
	if v > 0 {
		return "+" + formatFigure(v, unit)
	}
	if v == 0 {
		return "±0"
	}
	return formatFigure(v, unit)
}
