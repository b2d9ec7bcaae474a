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
	_, merged := d.Summary[0].Figure("refused_attempts")
	for i, f := range d.Summary[0].Figures {
		if merged && f.Name == "refused_attempts_pct" {
			continue // shown with the count
		}
		fmt.Fprintf(tw, "%s\t", f.Label)
		for _, v := range d.Summary {
			cell := estimateText(v.Figures[i].Unit, v.Figures[i].Estimate, false)
			if without[v.Variant] && sloFigure(f.Name) {
				cell = NoSLO
			}
			if latencyFigure(f.Name) && noneCompleted(v) {
				cell = "—" // no request completed in any replication: no latency, not a zero one
			}
			if p, ok := v.Figure("refused_attempts_pct"); ok && f.Name == "refused_attempts" && v.Figures[i].Estimate.Mean != 0 {
				cell += " (" + valueText("%", p.Estimate.Mean, false) + ")"
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
			if merged && f.Name == "refused_attempts_pct" {
				continue
			}
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
					if p, ok := v.Figure("refused_attempts_pct"); ok && f.Name == "refused_attempts" && p.DiffVsBase != nil && df.Mean != 0 {
						cell += " (" + strings.ReplaceAll(valueText("%", p.DiffVsBase.Mean, true), "%", " pts") + ")"
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
func sloFigure(name string) bool {
	return name == "slo_attainment_pct" || name == "goodput_per_s" || name == figPeakSLO
}

// latencyFigure reports whether a key figure is a latency percentile,
// which has no value when no request completed.
func latencyFigure(name string) bool {
	switch name {
	case "ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "tpot_p50_s", "e2e_p95_s", "queue_wait_p95_s", figPeakTTFT:
		return true
	}
	return false
}

// noneCompleted reports whether no replication of a variant completed a
// request.
func noneCompleted(v VariantSummary) bool {
	c, ok := v.Figure("requests_completed")
	return ok && c.Mean == 0 && c.HalfWidth() == 0
}

// negligible is the magnitude below which a figure prints as 0.
const negligible = 1e-9

// estimateText formats an estimate in its unit: "645ms ± 12ms", or with
// signed set "+1.2s ± 0.3s". The half-width is written to the precision
// of the mean ("$632 ± $1", "91.9% ± 0.3%"), or as "<" that precision when
// it is smaller ("± <0.1%"), so a column keeps one number style. With one
// replication the ± is left out; with no spread over several it is
// "± 0", so that every cell of a replicated table says its interval.
func estimateText(unit string, e Estimate, signed bool) string {
	s := valueText(unit, e.Mean, signed)
	if h := e.HalfWidth(); e.N > 1 && h >= negligible {
		s += " ± " + halfText(unit, h, e.Mean)
	} else if e.N > 1 {
		s += " ± 0"
	}
	return s
}

// halfText formats an interval's half-width h to the precision in which
// the mean is shown.
func halfText(unit string, h, mean float64) string {
	if unit == "s" {
		m := math.Abs(mean)
		switch {
		case m < 1:
			if h < 0.0005 {
				return "<1ms"
			}
			return Seconds(h)
		case m < 60:
			if h < 0.05 {
				return "<0.1s"
			}
			return fmt.Sprintf("%.1fs", h)
		case h < 0.5:
			return "<1s"
		case h < 60:
			return fmt.Sprintf("%.0fs", h)
		}
		return Seconds(h)
	}
	shown := valueText(unit, mean, false)
	dec := 0
	if i := strings.LastIndexByte(shown, '.'); i >= 0 {
		dec = len(strings.TrimRight(shown[i+1:], "%"))
	}
	affix := func(num string) string {
		switch unit {
		case "%":
			return num + "%"
		case "USD":
			return "$" + num
		}
		return num
	}
	if r := math.Pow(10, -float64(dec)); h < r/2 {
		return "<" + affix(strconv.FormatFloat(r, 'f', dec, 64))
	}
	if dec == 0 {
		return affix(Count(int64(math.Round(h))))
	}
	return affix(strconv.FormatFloat(h, 'f', dec, 64))
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
		if v > 0 && v < 0.005 {
			s = "<$0.01" // to the cent, as every cost
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
