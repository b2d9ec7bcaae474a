package htmlreport

import (
	"fmt"
	"math"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// table is the key figures of every variant side by side.
type table struct {
	Head []string // variant names
	Rows []tableRow
	// Note says where the figures come from.
	Note string
	// Wide tables (a plan's candidates) keep their figures on one line
	// and scroll inside their box, the label column held in view.
	Wide bool
}

// tableRow is one figure across the variants.
type tableRow struct {
	Label string
	Cells []tableCell
	// Knee highlights a sweep's knee row, Pick the row to pick when the
	// SLOs move it below the knee.
	Knee, Pick bool
}

// tableCell is one variant's value of a figure: the value, its 95%
// interval and the difference from the base with its interval, each
// already formatted ("" when absent).
type tableCell struct {
	Value, Interval, Diff, DiffInterval string
	// Clear is true when the difference's interval excludes zero.
	Clear bool
	// Lines are further facts in small print under the value; Over marks
	// a value over a limit.
	Lines []string
	Over  bool
}

// keyTable builds the key-figures table: from the replicated summaries
// when the document has them, else from each variant's results.
func keyTable(d *report.Document) table {
	if len(d.Summary) > 0 {
		return summaryTable(d)
	}
	return resultsTable(d.Variants)
}

// summaryTable renders Document.Summary: mean [lo, hi] per variant, and
// the difference from the base with its interval.
func summaryTable(d *report.Document) table {
	t := table{}
	var order []string
	label := map[string]string{}
	cells := map[string]map[int]report.Figure{}
	for vi, v := range d.Summary {
		t.Head = append(t.Head, v.Variant)
		for _, f := range v.Figures {
			if _, ok := cells[f.Name]; !ok {
				order = append(order, f.Name)
				label[f.Name] = f.Label
				cells[f.Name] = map[int]report.Figure{}
			}
			cells[f.Name][vi] = f
		}
	}
	n := d.Replications
	for _, name := range order {
		row := tableRow{Label: label[name]}
		if row.Label == "" {
			row.Label = name
		}
		for vi := range d.Summary {
			f, ok := cells[name][vi]
			if !ok {
				row.Cells = append(row.Cells, tableCell{Value: "–"})
				continue
			}
			c := tableCell{Value: formatFigure(f.Mean, f.Unit)}
			if f.N > 1 {
				c.Interval = intervalText(f.Lo, f.Hi, f.Unit, f.Unit)
			}
			if f.DiffVsBase != nil {
				c.Diff = "Δ " + signed(f.DiffVsBase.Mean, f.Unit)
				if f.DiffVsBase.N > 1 {
					c.DiffInterval = "[" + signed(f.DiffVsBase.Lo, f.Unit) + ", " + signed(f.DiffVsBase.Hi, f.Unit) + "]"
					c.Clear = f.DiffVsBase.Lo > 0 || f.DiffVsBase.Hi < 0
				}
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	if n > 1 {
		t.Note = fmt.Sprintf("Means over %d replications with 95%% confidence intervals (Student's t). Δ is the difference from the base, paired by replication (common random numbers), with its own interval; a bold Δ's interval excludes zero.", n)
	} else {
		t.Note = "One replication: no confidence intervals. Δ is the difference from the base."
	}
	return t
}

// resultsTable builds the key figures from each variant's results, one
// run each, without intervals.
func resultsTable(vs []*model.Results) table {
	t := table{Note: "One run per variant: no confidence intervals (run replications for them). Δ is the difference from the base."}
	for _, r := range vs {
		t.Head = append(t.Head, report.VariantName(r))
	}
	type fig struct {
		label, unit string
		get         func(s *model.Summary) float64
		// count-like figures print as integers.
		integer bool
	}
	refused := func(s *model.Summary) float64 {
		var n int64
		for _, v := range s.Attempts.Rejected {
			n += v
		}
		return float64(n)
	}
	figs := []fig{
		{"requests offered", "", func(s *model.Summary) float64 { return float64(s.Requests.Offered) }, true},
		{"completed", "ratio", func(s *model.Summary) float64 { return ratio(s.Requests.Completed, s.Requests.Offered) }, false},
		{"failed", "ratio", func(s *model.Summary) float64 { return ratio(s.Requests.Failed, s.Requests.Offered) }, false},
		{"refused attempts (429/5xx)", "", refused, true},
		{"retries per request", "", func(s *model.Summary) float64 { return s.Attempts.RetriesPerRequest }, false},
		{"TTFT p50", "s", func(s *model.Summary) float64 { return s.Latency.TTFT.P50 }, false},
		{"TTFT p95", "s", func(s *model.Summary) float64 { return s.Latency.TTFT.P95 }, false},
		{"queue wait p95", "s", func(s *model.Summary) float64 { return s.Latency.QueueWait.P95 }, false},
		{"E2E p95", "s", func(s *model.Summary) float64 { return s.Latency.E2E.P95 }, false},
		{"throughput", "req/s", func(s *model.Summary) float64 { return s.Throughput.RequestsPerS }, false},
		{"output tokens/s", "", func(s *model.Summary) float64 { return s.Throughput.OutputTokensPerS }, false},
		{"goodput (SLO met)", "ratio", func(s *model.Summary) float64 { return s.Goodput.SLOAttainment }, false},
		{"cache hit rate", "ratio", func(s *model.Summary) float64 { return s.Tokens.CacheHitRate }, false},
		{"cost", "USD", func(s *model.Summary) float64 { return s.Cost.Total }, false},
	}
	for _, f := range figs {
		row := tableRow{Label: f.label}
		var base float64
		for i, r := range vs {
			v := f.get(&r.Summary)
			c := tableCell{Value: formatFigure(v, f.unit)}
			if f.integer {
				c.Value = report.Count(int64(v))
			}
			if f.label == "refused attempts (429/5xx)" {
				c.Value = report.Refused(int64(v), r.Summary.Attempts.Total)
			}
			if i == 0 {
				base = v
			} else if len(vs) > 1 {
				d := v - base
				if f.unit == "ratio" && math.Abs(100*d) < 0.05 {
					c.Diff = "Δ ±0"
				} else if f.unit == "ratio" {
					c.Diff = fmt.Sprintf("Δ %+.1f pts", 100*d)
				} else if f.integer {
					c.Diff = "Δ " + signedCount(int64(d))
				} else if math.Abs(d) < 5e-4*math.Max(math.Abs(base), math.Abs(v)) {
					c.Diff = "Δ ±0" // below the three figures the values print with
				} else {
					c.Diff = "Δ " + signed(d, f.unit)
				}
			}
			if f.label == "goodput (SLO met)" && r.Summary.Goodput.NoSLO {
				c = tableCell{Value: report.NoSLO}
			}
			if q, ok := latencyOf(&r.Summary, f.label); ok && q.Count == 0 {
				c = tableCell{Value: "—"} // nothing completed: no latency, not a zero one
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
		if f.label == "goodput (SLO met)" {
			t.Rows = append(t.Rows, peakRows(vs)...)
		}
	}
	return t
}

// latencyOf is the distribution behind a latency row of resultsTable.
func latencyOf(s *model.Summary, label string) (model.Quantiles, bool) {
	switch label {
	case "TTFT p50", "TTFT p95":
		return s.Latency.TTFT, true
	case "queue wait p95":
		return s.Latency.QueueWait, true
	case "E2E p95":
		return s.Latency.E2E, true
	}
	return model.Quantiles{}, false
}

// peakRows set the busiest hour's figures beside the whole run's: when
// it was, its TTFT p95 and its SLO attainment; none when no variant ran
// longer than an hour.
func peakRows(vs []*model.Results) []tableRow {
	any := false
	for _, r := range vs {
		any = any || r.Findings.PeakWindow != nil
	}
	if !any {
		return nil
	}
	row := func(label string, f func(r *model.Results, p *model.PeakWindow) string) tableRow {
		tr := tableRow{Label: label}
		for _, r := range vs {
			v := "—"
			if p := r.Findings.PeakWindow; p != nil {
				v = f(r, p)
			}
			tr.Cells = append(tr.Cells, tableCell{Value: v})
		}
		return tr
	}
	return []tableRow{
		row("busiest hour (by arrivals)", func(r *model.Results, p *model.PeakWindow) string {
			return report.Clock(r, p.StartS) + "–" + report.Clock(r, p.EndS)
		}),
		row("busiest-hour TTFT p95", func(_ *model.Results, p *model.PeakWindow) string { return report.Quantile(p.TTFT, p.TTFT.P95) }),
		row("busiest-hour goodput (SLO met)", func(r *model.Results, p *model.PeakWindow) string {
			if r.Summary.Goodput.NoSLO {
				return report.NoSLO
			}
			return share(p.SLOAttainment)
		}),
	}
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func signedCount(v int64) string {
	if v > 0 {
		return "+" + report.Count(v)
	}
	if v == 0 {
		return "±0"
	}
	return report.Count(v)
}
