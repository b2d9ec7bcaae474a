package htmlreport

import (
	"fmt"
	"io"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/report"
)

// WriteSweep writes a step-load sweep as one HTML page: the knee in
// words, the per-level table and throughput and latency against load with
// the knee marked.
func WriteSweep(w io.Writer, d *report.SweepDocument, o Options) error {
	p, err := newPage(&d.Document, o)
	if err != nil {
		return err
	}
	s := &d.Sweep
	p.Title = d.Scenario.Name + " · " + s.Kind + " sweep"
	p.Meta = sweepMeta(d)
	p.Headline = sweepHeadline(s)
	p.TableTitle = "Per level"
	tb := sweepTable(s)
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
		p.Sections = []section{{Title: "Throughput and latency against load", Charts: []chartView{tp, lat}}}
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

// levelLabel formats a level for axes and tables.
func levelLabel(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sweepMeta describes the sweep under the title.
func sweepMeta(d *report.SweepDocument) string {
	s := fmt.Sprintf("%s sweep of workload “%s” over %d levels", s0(d.Sweep.Kind), d.Sweep.Workload, len(d.Sweep.Rows))
	if len(d.Variants) > 0 && d.Variants[0] != nil {
		s += fmt.Sprintf(" · %s per level · seed %d", seconds(d.Variants[0].DurationS), d.Variants[0].Seed)
	}
	if d.Scenario.File != "" {
		s += " · " + d.Scenario.File
	}
	return s
}

// s0 capitalizes a word.
func s0(s string) string { return capitalize(s) }

// sweepHeadline says where the knee is, or that there is none.
func sweepHeadline(s *report.SweepInfo) []string {
	k := -1
	for i, r := range s.Rows {
		if r.Knee {
			k = i
		}
	}
	if k < 0 || k+1 >= len(s.Rows) {
		return []string{"No knee: throughput did not flatten while TTFT p50 (or refused attempts) climbed within these levels; extend the range to find the plateau.",
			"Rule: " + s.KneeRule + "."}
	}
	at, next := s.Rows[k], s.Rows[k+1]
	return []string{
		fmt.Sprintf("Throughput flattens after %s %s: pick %s for interactive traffic.", levelLabel(at.Level), levelHead(s.Kind), levelLabel(at.Level)),
		fmt.Sprintf("At %s, output tokens/s go %s → %s while TTFT p50 goes %s → %s and refused attempts %s → %s.",
			levelLabel(next.Level), number(at.OutputTokensPerS), number(next.OutputTokensPerS), seconds(at.TTFTP50), seconds(next.TTFTP50),
			count(at.Rejected), count(next.Rejected)),
		"Rule: " + s.KneeRule + ".",
	}
}

// sweepTable is the per-level table, the knee highlighted.
func sweepTable(s *report.SweepInfo) table {
	t := table{Head: []string{"req/s", "output tok/s", "TTFT p50", "TTFT p95", "TPOT p50", "E2E p95", "refused (429/5xx)"},
		Note: "Throughputs are totals over the simulated time per level; latencies are of completed requests. The highlighted row is the knee."}
	for _, r := range s.Rows {
		cells := []string{number(r.RequestsPerS), number(r.OutputTokensPerS), seconds(r.TTFTP50), seconds(r.TTFTP95),
			seconds(r.TPOTP50), seconds(r.E2EP95), count(r.Rejected)}
		row := tableRow{Label: levelLabel(r.Level) + " " + levelHead(s.Kind), Knee: r.Knee}
		for _, c := range cells {
			row.Cells = append(row.Cells, tableCell{Value: c})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// kneeMark draws a vertical line at the knee level, if there is one.
func kneeMark(s *report.SweepInfo) []charts.SeriesOpts {
	for _, r := range s.Rows {
		if r.Knee {
			return []charts.SeriesOpts{
				charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "knee: " + levelLabel(r.Level), XAxis: levelLabel(r.Level)}),
				charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
					Symbol:    []string{"none", "none"},
					Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}"},
					LineStyle: &opts.LineStyle{Type: "dashed", Width: 2, Color: "#c23531"},
				}),
			}
		}
	}
	return nil
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

// sweepLatencyChart draws TTFT p50/p95 and E2E p95 (left) and refused
// attempts (right) against the level.
func sweepLatencyChart(s *report.SweepInfo) (chartView, error) {
	c := axisChart{id: "chart-sweep-latency", title: "Latency against load",
		subtitle: "TTFT p50 and p95, E2E p95 (left, s); refused attempts (right); dashed red: the knee", xName: levelHead(s.Kind), yName: "seconds", legend: true}.newLine()
	c.ExtendYAxis(opts.YAxis{Name: "refused attempts", Position: "right"})
	c.SetXAxis(sweepAxis(s))
	n := len(s.Rows)
	p50, p95, e2e, rej := make([]opts.LineData, n), make([]opts.LineData, n), make([]opts.LineData, n), make([]opts.LineData, n)
	for i, r := range s.Rows {
		p50[i] = opts.LineData{Value: round4(r.TTFTP50)}
		p95[i] = opts.LineData{Value: round4(r.TTFTP95)}
		e2e[i] = opts.LineData{Value: round4(r.E2EP95)}
		rej[i] = opts.LineData{Value: r.Rejected}
	}
	sym := charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)})
	c.AddSeries("TTFT p50 (s)", p50, append([]charts.SeriesOpts{sym}, kneeMark(s)...)...)
	c.AddSeries("TTFT p95 (s)", p95, sym, dashed())
	c.AddSeries("E2E p95 (s)", e2e, sym, charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dotted"}))
	c.AddSeries("refused attempts", rej, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), YAxisIndex: 1}))
	return newView("chart-sweep-latency", c, "",
		"TTFT climbs past the knee as requests queue for a batch slot or wait out 429s; a hosted API at its limit refuses instead, so refused attempts rise.")
}
