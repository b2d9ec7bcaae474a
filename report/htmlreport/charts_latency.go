package htmlreport

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// sloLines returns the distinct SLO thresholds of one kind ("ttft",
// "e2e") as labelled lines.
func sloLines(slos []SLO, kind string) []markLine {
	var out []markLine
	seen := map[float64]int{}
	for _, s := range slos {
		v := s.TTFTS
		if kind == "e2e" {
			v = s.E2ES
		}
		if v <= 0 {
			continue
		}
		if i, ok := seen[v]; ok {
			out[i].name += ", " + s.Workload
			continue
		}
		seen[v] = len(out)
		out = append(out, markLine{name: fmt.Sprintf("SLO %s ≤ %s: %s", kind, report.Seconds(v), s.Workload), value: v})
	}
	return out
}

// ttftChart draws TTFT p50 and p95 by arrival interval, with the TTFT
// SLOs as lines.
func ttftChart(t timeline, slos []SLO) (chartView, error) {
	c := axisChart{id: "chart-ttft", title: "Time to first token, p50 and p95",
		subtitle: "of requests by arrival time (every wait included); dashed red: TTFT SLOs", xName: "clock (arrival)", yName: "seconds", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for i, r := range t.variants {
		var marks []charts.SeriesOpts
		if i == 0 {
			marks = limitLines(sloLines(slos, "ttft"))
		}
		c.AddSeries(t.label(r, "TTFT p95"), latencies(r.Series.TTFTP95, n), lineOpts(marks...)...)
		c.AddSeries(t.label(r, "TTFT p50"), latencies(r.Series.TTFTP50, n), lineOpts(dashed())...)
	}
	return newView("chart-ttft", c, "s",
		"Latency is attributed to the interval the request arrived in: what someone who sent a request at that time experienced, including the client queue, pacing, retries and backoff. Gaps are intervals in which no arriving request completed.")
}

// queueWaitChart draws the queue-wait p95 by arrival interval.
func queueWaitChart(t timeline) (chartView, error) {
	c := axisChart{id: "chart-queue-wait", title: "Queue wait p95",
		subtitle: "issue to start of service, of requests by arrival time", xName: "clock (arrival)", yName: "seconds", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		c.AddSeries(t.label(r, "queue wait p95"), values(r.Series.QueueWaitP95, 1, n), lineOpts()...)
	}
	return newView("chart-queue-wait", c, "s",
		"Time spent waiting before service: client connection pool, pacer, retry backoff and the backend's queue.")
}

// cdfPoints are the percentiles a Quantiles summary gives, as (latency,
// share) points of an empirical CDF.
func cdfPoints(q model.Quantiles) []opts.LineData {
	if q.Count == 0 {
		return nil
	}
	pts := [][2]float64{{q.P50, 50}, {q.P90, 90}, {q.P95, 95}, {q.P99, 99}, {q.Max, 100}}
	out := make([]opts.LineData, 0, len(pts))
	for _, p := range pts {
		out = append(out, opts.LineData{Value: []float64{round4(p[0]), p[1]}})
	}
	return out
}

// cdfChart draws one latency's distribution per workload (and variant)
// from the percentiles in the results: p50, p90, p95, p99 and the maximum.
func cdfChart(vs []*model.Results, slos []SLO, kind string) (chartView, error) {
	name := map[string]string{"ttft": "TTFT", "e2e": "E2E latency"}[kind]
	id := "chart-cdf-" + kind
	c := axisChart{id: id, title: name + " distribution per workload",
		subtitle: "share of completed requests at or below a latency (p50, p90, p95, p99, max); dashed red: SLOs", xName: "seconds (log scale)", yName: "% of requests", xType: "log", legend: true}.newLine()
	c.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "% of requests", Min: 40, Max: 100}))
	first := true
	for _, r := range vs {
		for _, w := range r.Workloads {
			q := w.Summary.Latency.TTFT
			if kind == "e2e" {
				q = w.Summary.Latency.E2E
			}
			pts := cdfPoints(q)
			if pts == nil {
				continue
			}
			label := w.Name
			if len(vs) > 1 {
				label = report.VariantName(r) + " · " + w.Name
			}
			extra := []charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), Step: "end"})}
			if first {
				extra = append(extra, sloXLines(sloLines(slos, kind))...)
				first = false
			}
			c.AddSeries(label, pts, extra...)
		}
	}
	return newView(id, c, "",
		"Built from the percentiles the results keep for each workload (1% relative accuracy); the step at 100% is the slowest request. A curve left of an SLO line at 100% means every request met it.")
}

// sloXLines draws vertical mark lines at latency thresholds.
func sloXLines(lines []markLine) []charts.SeriesOpts {
	if len(lines) == 0 {
		return nil
	}
	items := make([]opts.MarkLineNameXAxisItem, len(lines))
	for i, l := range lines {
		items[i] = opts.MarkLineNameXAxisItem{Name: l.name, XAxis: l.value}
	}
	return []charts.SeriesOpts{
		charts.WithMarkLineNameXAxisItemOpts(items...),
		charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
			Symbol:    []string{"none", "none"},
			Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "{b}"},
			LineStyle: &opts.LineStyle{Type: "dashed", Width: 1.5, Color: "#c23531"},
		}),
	}
}
