package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteSummaryTerminal writes a document with a Summary: every variant's
// key figures as mean ± the 95% interval's half-width over the
// replications, then each variant's difference from the base, paired by
// replication, then the verdicts of the first replication.
func WriteSummaryTerminal(w io.Writer, d *Document) error {
	d = terminalDoc(d)
	if len(d.Variants) == 0 || len(d.Summary) == 0 {
		return WriteTerminal(w, d)
	}
	reps := " · 1 replication"
	if d.Replications > 1 {
		reps = fmt.Sprintf(" · %d replications", d.Replications)
	}
	writeHeader(w, d, reps)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, v := range d.Summary {
		fmt.Fprintf(tw, "%s\t", v.Variant)
	}
	fmt.Fprintln(tw)
	without := map[string]bool{} // variants without an SLO
	for _, r := range d.Variants {
		without[VariantName(r)] = r.Summary.Goodput.NoSLO
	}
	for i, f := range d.Summary[0].Figures {
		fmt.Fprintf(tw, "%s\t", f.Label)
		for _, v := range d.Summary {
			cell := estimateText(v.Figures[i].Unit, v.Figures[i].Estimate, false)
			if without[v.Variant] && sloFigure(f.Name) {
				cell = NoSLO
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.Summary) > 1 {
		if d.Replications > 1 {
			fmt.Fprintf(w, "\nDifference from %s, paired by replication (mean ± 95%% interval; * the interval excludes 0):\n", d.Summary[0].Variant)
		} else {
			fmt.Fprintf(w, "\nDifference from %s (one replication: no intervals):\n", d.Summary[0].Variant)
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "\t")
		for _, v := range d.Summary[1:] {
			fmt.Fprintf(tw, "%s\t", v.Variant)
		}
		fmt.Fprintln(tw)
		for i, f := range d.Summary[0].Figures {
			fmt.Fprintf(tw, "%s\t", f.Label)
			for _, v := range d.Summary[1:] {
				cell := "-"
				if without[v.Variant] && sloFigure(f.Name) {
					cell = "—"
				} else if df := v.Figures[i].DiffVsBase; df != nil {
					cell = estimateText(f.Unit, *df, true)
					if f.Unit == "%" { // a difference of shares is in percentage points
						cell = strings.ReplaceAll(cell, "%", " pts")
					}
					if df.Excludes(0) {
						cell += " *"
					}
				}
				fmt.Fprintf(tw, "%s\t", cell)
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	writeTraces(w, d)
	return writeVerdicts(w, d, d.Replications > 1)
}

// sloFigure reports whether a key figure counts requests meeting their
// SLOs, which says nothing when no workload sets one.
func sloFigure(name string) bool { return name == "slo_attainment_pct" || name == "goodput_per_s" }

// negligible is the magnitude below which a figure prints as 0.
const negligible = 1e-9

// estimateText formats an estimate in its unit: "645ms ± 12ms", or with
// signed set "+1.2s ± 0.3s". With one replication (or no spread) the ± is
// left out.
func estimateText(unit string, e Estimate, signed bool) string {
	s := valueText(unit, e.Mean, signed)
	if h := e.HalfWidth(); e.N > 1 && h >= negligible {
		s += " ± " + halfText(unit, h)
	}
	return s
}

// halfText formats an interval's half-width: as a value of its unit, or
// with two significant digits when that would round it to zero.
func halfText(unit string, h float64) string {
	s := valueText(unit, h, false)
	if unit == "s" || strings.Trim(s, "$0.,%") != "" {
		return s
	}
	g := strconv.FormatFloat(h, 'g', 2, 64)
	switch unit {
	case "%":
		return g + "%"
	case "USD":
		return "$" + g
	}
	return g
}

// valueText formats one value of a figure's unit.
func valueText(unit string, v float64, signed bool) string {
	if math.Abs(v) < negligible {
		v = 0 // float dust, such as costs summed in another order
	}
	sign := ""
	if signed {
		switch {
		case v > 0:
			sign = "+"
		case v < 0:
			sign = "-"
		}
		v = math.Abs(v)
	} else if v < 0 {
		sign, v = "-", -v
	}
	var s string
	switch unit {
	case "s":
		s = Seconds(v)
	case "%":
		s = fmt.Sprintf("%.1f%%", v)
	case "USD":
		s = USD(v)
		if v > 0 && v < 1 {
			s = "$" + strconv.FormatFloat(v, 'g', 3, 64)
		}
	case "req/s":
		s = rate(v)
	case "requests":
		if v == math.Trunc(v) || v >= 100 {
			s = Count(int64(math.Round(v)))
		} else {
			s = fmt.Sprintf("%.1f", v)
		}
	default:
		s = fmt.Sprintf("%.0f", v)
	}
	return sign + s
}
