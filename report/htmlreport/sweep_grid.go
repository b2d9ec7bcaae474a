package htmlreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/report"
)

// writeGrid writes a sweep without per-level rows (several --param, or a
// non-numeric one) from its points, summaries and curves: a table of every
// point, and throughput and TTFT against the first parameter, one line per
// curve (variant and the other parameters' values).
func writeGrid(w io.Writer, p *page, d *report.SweepDocument) error {
	s := &d.Sweep
	p.Title = d.Scenario.Name + " · sweep"
	p.Meta = gridMeta(d)
	p.Headline = gridHeadline(s)
	p.TableTitle = "Per point"
	tb := gridTable(d)
	p.Table = &tb
	if len(s.Curves) > 0 {
		param := s.Curves[0].Param
		tp, err := gridChart(s, "chart-sweep-throughput", "Throughput against "+param, "output tokens/s", "output_tokens_per_s", "tok/s",
			"Output tokens/s, totals over the simulated time per point. Where a line flattens, more of the parameter buys little throughput.")
		if err != nil {
			return err
		}
		lat, err := gridChart(s, "chart-sweep-latency", "TTFT p95 against "+param, "TTFT p95, seconds", "ttft_p95_s", "s",
			"TTFT p95 of completed requests; a line that climbs steeply has run out of capacity.")
		if err != nil {
			return err
		}
		intro := ""
		if d.Replications > 1 {
			intro = fmt.Sprintf("Each point is the mean over %d replications.", d.Replications)
		}
		p.Sections = []section{{Title: "Key figures against " + param, Intro: intro, Charts: []chartView{tp, lat}}}
	}
	return render(w, p)
}

// gridMeta describes the grid under the title.
func gridMeta(d *report.SweepDocument) string {
	s := &d.Sweep
	keys := make([]string, len(s.Params))
	for i, p := range s.Params {
		keys[i] = p.Key
	}
	m := fmt.Sprintf("Sweep of %s over %d points", strings.Join(keys, " × "), len(s.Points))
	if s.Workload != "" {
		m += fmt.Sprintf(" · load on workload “%s”", s.Workload)
	}
	if len(d.Variants) > 0 && d.Variants[0] != nil {
		m += fmt.Sprintf(" · %s per point · seed %d", report.Seconds(d.Variants[0].DurationS), d.Variants[0].Seed)
	}
	if d.Replications > 1 {
		m += fmt.Sprintf(" · %d replications", d.Replications)
	}
	if d.Scenario.File != "" {
		m += " · " + d.Scenario.File
	}
	return m
}

// gridHeadline names each line's knee, or says there is none.
func gridHeadline(s *report.SweepInfo) []string {
	if len(s.Curves) == 0 {
		return []string{"No points."}
	}
	var out []string
	numeric := false
	for _, c := range s.Curves {
		if c.X != nil {
			numeric = true
		}
		if c.Knee != nil {
			out = append(out, fmt.Sprintf("%s: throughput flattens after %s = %s.", curveName(s, c, "the sweep"), c.Param, c.XLabels[*c.Knee]))
		}
	}
	switch {
	case !numeric:
		out = append(out, fmt.Sprintf("%s is not numeric, so no knee is marked: compare the points in the table.", s.Curves[0].Param))
	case len(out) == 0:
		out = append(out, fmt.Sprintf("No knee: throughput did not flatten while TTFT p50 (or refused attempts) climbed along %s; extend the range to find the plateau.", s.Curves[0].Param))
	}
	if numeric {
		out = append(out, "Rule: "+s.KneeRule+".")
	}
	return out
}

// curveName names a line by its variant (when the sweep has several) and
// the other parameters' values; whole when there is nothing to tell apart.
func curveName(s *report.SweepInfo, c report.SweepCurve, whole string) string {
	var parts []string
	if manyVariants(s) {
		parts = append(parts, c.Variant)
	}
	parts = append(parts, c.Fixed...)
	if len(parts) == 0 {
		return whole
	}
	return strings.Join(parts, ", ")
}

// manyVariants reports whether the sweep's points have more than one
// variant.
func manyVariants(s *report.SweepInfo) bool {
	for _, p := range s.Points {
		if p.Variant != s.Points[0].Variant {
			return true
		}
	}
	return false
}

// gridColumns are the key figures of the per-point table.
var gridColumns = []struct{ name, head string }{
	{"requests_per_s", "req/s"},
	{"output_tokens_per_s", "output tok/s"},
	{"ttft_p50_s", "TTFT p50"},
	{"ttft_p95_s", "TTFT p95"},
	{"e2e_p95_s", "E2E p95"},
	{"refused_attempts_pct", "refused (429/5xx)"},
	{"slo_attainment_pct", "goodput (SLO met)"},
	{"cost_usd", "cost"},
}

// gridTable is one row per point (and variant), with intervals when
// replicated; knees highlighted.
func gridTable(d *report.SweepDocument) table {
	s := &d.Sweep
	t := table{Note: "Throughputs are totals over the simulated time per point; latencies are of completed requests."}
	if d.Replications > 1 {
		t.Note += fmt.Sprintf(" Means over %d replications with 95%% confidence intervals.", d.Replications)
	}
	for _, c := range gridColumns {
		t.Head = append(t.Head, c.head)
	}
	many := manyVariants(s)
	knee := false
	for i, pt := range s.Points {
		if i >= len(d.Summary) {
			break
		}
		label := pt.Label
		if many {
			label += " · " + pt.Variant
		}
		row := tableRow{Label: label, Knee: pt.Knee, Pick: pt.Pick && !pt.Knee && s.PickRule != ""}
		knee = knee || pt.Knee
		for _, c := range gridColumns {
			f, ok := d.Summary[i].Figure(c.name)
			if !ok {
				row.Cells = append(row.Cells, tableCell{Value: "–"})
				continue
			}
			unit := f.Unit
			if unit == "req/s" || unit == "tok/s" {
				unit = "" // the column head says it
			}
			cell := tableCell{Value: formatFigure(f.Mean, unit)}
			if f.N > 1 {
				cell.Interval = intervalText(f.Lo, f.Hi, f.Unit, unit)
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	if knee {
		t.Note += " Highlighted rows are the knees of their lines."
	}
	return t
}

// gridChart draws one key figure against the first parameter, a line per
// curve, each line's knee marked.
func gridChart(s *report.SweepInfo, id, title, yName, figure, unit, note string) (chartView, error) {
	first := s.Curves[0]
	c := axisChart{id: id, title: title, subtitle: "one line per variant and value of the other parameters; a larger dot marks a line's knee",
		xName: first.Param, yName: yName, legend: true}.newLine()
	c.SetXAxis(first.XLabels)
	for _, cv := range s.Curves {
		est := cv.Figures[figure]
		data := make([]opts.LineData, len(est))
		for j, e := range est {
			data[j] = opts.LineData{Value: round4(e.Mean)}
			if cv.Knee != nil && *cv.Knee == j {
				data[j].SymbolSize = 14
			}
		}
		c.AddSeries(curveName(s, cv, yName), data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
	}
	return newView(id, c, unit, note)
}
