package htmlreport

import (
	"fmt"
	"io"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/report"
)

// WriteSweep writes a sweep as one HTML page. A step-load sweep (one
// numeric load level) gets the knee in words, the per-level table and
// throughput and latency against load with the knee marked; a grid or a
// sweep of scenario keys (see writeGrid) a table of its points and its
// curves against the first parameter.
func WriteSweep(w io.Writer, d *report.SweepDocument, o Options) error {
	p, err := newPage(&d.Document, o)
	if err != nil {
		return err
	}
	s := &d.Sweep
	if len(s.Points) > 0 && (len(s.Rows) == 0 || !s.Load()) {
		return writeGrid(w, p, d) // a grid, or a sweep of scenario keys
	}
	p.Title = d.Scenario.Name + " · " + s.Kind + " sweep"
	p.Meta = sweepMeta(d)
	p.Headline = sweepHeadline(s)
	p.TableTitle = "Per level"
	tb := sweepTable(s)
	if d.Replications > 1 && len(d.Summary) == len(s.Rows) {
		addRowIntervals(&tb, d)
	}
	p.Table = &tb
	if len(s.Rows) > 0 {
		tp, err := sweepThroughputChart(s)
		if err != nil {
			return err
		}
		lat, err := sweepLatencyChart(s)
		if err != nil {
			return err
		}
		sec := section{Title: "Throughput and latency against load", Charts: []chartView{tp, lat}}
		if anyRejected(s.Rows) {
			rej, err := sweepRefusalsChart(s)
			if err != nil {
				return err
			}
			sec.Charts = append(sec.Charts, rej)
		}
		p.Sections = []section{sec}
	}
	return render(w, p)
}

// levelHead names the swept quantity with its unit.
func levelHead(kind string) string {
	if kind == "rate" {
		return "offered requests/s"
	}
	return "concurrent requests"
}

// levelText is a level with its unit: "1 concurrent request", "8 req/s".
func levelText(kind string, v float64) string {
	if kind == "concurrency" && v == 1 {
		return "1 concurrent request"
	}
	return levelLabel(v) + " " + levelHead(kind)
}

// levelLabel formats a level for axes and tables.
func levelLabel(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sweepMeta describes the sweep under the title.
func sweepMeta(d *report.SweepDocument) string {
	s := fmt.Sprintf("%s sweep of workload “%s” over %d levels", capitalize(d.Sweep.Kind), d.Sweep.Workload, len(d.Sweep.Rows))
	if len(d.Variants) > 0 && d.Variants[0] != nil {
		s += fmt.Sprintf(" · %s per level · seed %d", report.Seconds(d.Variants[0].DurationS), d.Variants[0].Seed)
	}
	if d.Scenario.File != "" {
		s += " · " + d.Scenario.File
	}
	return s
}

// sweepHeadline says where the knee is, or that there is none.
func sweepHeadline(s *report.SweepInfo) []string {
	k := -1
	for i, r := range s.Rows {
		if r.Knee {
			k = i
		}
	}
	if s.PickRule != "" {
		return append(report.SweepAdvice(s), "Rule: "+s.KneeRule+".", "Pick: "+s.PickRule+".")
	}
	if k < 0 || k+1 >= len(s.Rows) {
		return []string{"No knee: throughput did not flatten while TTFT p50 (or refused attempts) climbed within these levels; extend the range to find the plateau.",
			"Rule: " + s.KneeRule + "."}
	}
	at, next := s.Rows[k], s.Rows[k+1]
	return []string{
		fmt.Sprintf("Throughput flattens after %s: pick %s for interactive traffic.", levelText(s.Kind, at.Level), levelLabel(at.Level)),
		fmt.Sprintf("At %s, output tokens/s go %s → %s while TTFT p50 goes %s → %s and refused attempts %s → %s.",
			levelLabel(next.Level), number(at.OutputTokensPerS), number(next.OutputTokensPerS), report.Seconds(at.TTFTP50), report.Seconds(next.TTFTP50),
			report.Count(at.Rejected), report.Count(next.Rejected)),
		"Rule: " + s.KneeRule + ".",
	}
}

// rowFigures are the key figures behind sweepTable's columns, in order.
var rowFigures = []string{"requests_per_s", "output_tokens_per_s", "ttft_p50_s", "ttft_p95_s", "tpot_p50_s", "e2e_p95_s", "refused_attempts", "slo_attainment_pct", "cost_usd"}

// addRowIntervals gives a replicated sweep's per-level table the 95%
// intervals the terminal shows, from the summary of each level.
func addRowIntervals(t *table, d *report.SweepDocument) {
	for i := range t.Rows {
		for j, name := range rowFigures {
			f, ok := d.Summary[i].Figure(name)
			if !ok || j >= len(t.Rows[i].Cells) || f.N < 2 {
				continue
			}
			unit := f.Unit
			switch unit {
			case "req/s", "tok/s", "requests":
				unit = ""
			}
			t.Rows[i].Cells[j].Interval = intervalText(f.Lo, f.Hi, f.Unit, unit)
		}
	}
	t.Note += fmt.Sprintf(" Means over %d replications, each with its 95%% confidence interval.", d.Replications)
}

// sweepTable is the per-level table, the knee highlighted.
func sweepTable(s *report.SweepInfo) table {
	t := table{Head: []string{"req/s", "output tok/s", "TTFT p50", "TTFT p95", "TPOT p50", "E2E p95", "refused (429/5xx)", "goodput (SLO met)", "cost"},
		Note: "Throughputs are totals over the simulated time per level; latencies are of completed requests."}
	costs := make([]float64, len(s.Rows))
	for i, r := range s.Rows {
		costs[i] = r.CostUSD
	}
	costCol := report.USDColumn(costs)
	for i, r := range s.Rows {
		cells := []string{number(r.RequestsPerS), number(r.OutputTokensPerS), report.Seconds(r.TTFTP50), report.Seconds(r.TTFTP95),
			report.Seconds(r.TPOTP50), report.Seconds(r.E2EP95), report.Refused(r.Rejected, r.Attempts), sloShare(r), costCol[i]}
		row := tableRow{Label: levelText(s.Kind, r.Level), Knee: r.Knee, Pick: r.Pick && !r.Knee && s.PickRule != ""}
		if r.Knee {
			t.Note += " The highlighted row is the knee."
		}
		if row.Pick {
			t.Note += " The green row is the level to pick: the highest below the knee that holds the SLOs."
		}
		for _, c := range cells {
			row.Cells = append(row.Cells, tableCell{Value: c})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// kneeMark draws a vertical line at the knee level, if there is one, and
// one at the level to pick when the SLOs move it below the knee.
func kneeMark(s *report.SweepInfo) []charts.SeriesOpts {
	var items []opts.MarkLineNameXAxisItem
	for _, r := range s.Rows {
		if r.Knee {
			items = append(items, opts.MarkLineNameXAxisItem{Name: "knee: " + levelLabel(r.Level), XAxis: levelLabel(r.Level)})
		} else if r.Pick && s.PickRule != "" {
			items = append(items, opts.MarkLineNameXAxisItem{Name: "pick (holds the SLOs): " + levelLabel(r.Level), XAxis: levelLabel(r.Level)})
		}
	}
	if len(items) == 0 {
		return nil
	}
	return []charts.SeriesOpts{
		charts.WithMarkLineNameXAxisItemOpts(items...),
		charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
			Symbol:    []string{"none", "none"},
			Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}"},
			LineStyle: &opts.LineStyle{Type: "dashed", Width: 2, Color: limitColor},
		}),
	}
}

// sweepAxis is the level axis: one category per level.
func sweepAxis(s *report.SweepInfo) []string {
	x := make([]string, len(s.Rows))
	for i, r := range s.Rows {
		x[i] = levelLabel(r.Level)
	}
	return x
}

// sweepThroughputChart draws output tokens/s (left) and requests/s
// (right) against the level.
func sweepThroughputChart(s *report.SweepInfo) (chartView, error) {
	c := axisChart{id: "chart-sweep-throughput", title: "Throughput against load",
		subtitle: "output tokens/s (left) and completed requests/s (right); dashed red: the knee", xName: levelHead(s.Kind), yName: "output tokens/s", legend: true}.newLine()
	c.ExtendYAxis(opts.YAxis{Name: "requests/s", Position: "right"})
	c.SetXAxis(sweepAxis(s))
	tok := make([]opts.LineData, len(s.Rows))
	req := make([]opts.LineData, len(s.Rows))
	for i, r := range s.Rows {
		tok[i] = opts.LineData{Value: round4(r.OutputTokensPerS)}
		req[i] = opts.LineData{Value: round4(r.RequestsPerS)}
	}
	c.AddSeries("output tokens/s", tok, append([]charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)})}, kneeMark(s)...)...)
	c.AddSeries("requests/s", req, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), YAxisIndex: 1}), dashed())
	return newView("chart-sweep-throughput", c, "",
		"Past the knee extra load buys little throughput: the backend is at its plateau (a full batch, or a rate limit).")
}

// sweepLatencyChart draws TTFT p50 and p95 and E2E p95 against the level,
// on one log axis: all three are seconds, and a second axis with its own
// range would make the lines' crossings and gaps mean nothing.
func sweepLatencyChart(s *report.SweepInfo) (chartView, error) {
	c := axisChart{id: "chart-sweep-latency", title: "Latency against load",
		subtitle: "TTFT p50 and p95 and E2E p95, seconds on a log scale, so the levels before the knee do not sit flat at zero; dashed red: the knee", xName: levelHead(s.Kind), yName: "seconds (log scale)", legend: true}.newLine()
	c.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: "seconds (log scale)", Type: "log"}))
	c.SetXAxis(sweepAxis(s))
	n := len(s.Rows)
	p50, p95, e2e := make([]opts.LineData, n), make([]opts.LineData, n), make([]opts.LineData, n)
	for i, r := range s.Rows {
		p50[i], p95[i], e2e[i] = logPoint(r.TTFTP50), logPoint(r.TTFTP95), logPoint(r.E2EP95)
	}
	sym := charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)})
	c.AddSeries("TTFT p50", p50, append([]charts.SeriesOpts{sym}, kneeMark(s)...)...)
	c.AddSeries("TTFT p95", p95, sym, dashed())
	c.AddSeries("E2E p95", e2e, sym,
		charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dotted"}))
	return newView("chart-sweep-latency", c, "s",
		"TTFT climbs past the knee as requests queue for a batch slot; a hosted API at its limit refuses instead (see the refused attempts).")
}

// logPoint is a value for a log axis: a gap where it is 0 (no request
// completed), which a log axis cannot show.
func logPoint(v float64) opts.LineData {
	if v <= 0 {
		return opts.LineData{Value: "-"}
	}
	return opts.LineData{Value: round4(v)}
}

// sweepRefusalsChart draws the refused attempts against the level.
func sweepRefusalsChart(s *report.SweepInfo) (chartView, error) {
	c := axisChart{id: "chart-sweep-refusals", title: "Refused attempts against load",
		subtitle: "429 rate limits, 503 and other refusals, retries included; dashed red: the knee", xName: levelHead(s.Kind), yName: "attempts", legend: false}.newLine()
	c.SetXAxis(sweepAxis(s))
	rej := make([]opts.LineData, len(s.Rows))
	for i, r := range s.Rows {
		rej[i] = opts.LineData{Value: r.Rejected}
	}
	c.AddSeries("refused attempts", rej, append([]charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)})}, kneeMark(s)...)...)
	return newView("chart-sweep-refusals", c, "attempts",
		"A hosted API past its rate limit answers the excess with 429s rather than a queue.")
}

// anyRejected reports whether any level had a refused attempt.
func anyRejected(rows []report.SweepRow) bool {
	for _, r := range rows {
		if r.Rejected > 0 {
			return true
		}
	}
	return false
}

// sloShare is a level's share of requests meeting their SLOs, or "—"
// when no workload sets one.
func sloShare(r report.SweepRow) string {
	if r.NoSLO {
		return "—"
	}
	return share(r.SLOAttainment)
}
