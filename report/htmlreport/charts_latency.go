package htmlreport

import (
	"fmt"
	"math"

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
// SLOs as lines, for a single variant.
func ttftChart(t timeline, slos []SLO) (chartView, error) {
	c := axisChart{id: "chart-ttft", title: "Time to first token, p50 and p95",
		subtitle: "of requests by arrival time (every wait included); dashed red: TTFT SLOs", xName: "clock (arrival)", yName: "seconds", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	r := t.variants[0]
	c.AddSeries(t.label(r, "TTFT p95"), latencies(r.Series.TTFTP95, n), lineOpts(limitLines(sloLines(slos, "ttft"))...)...)
	c.AddSeries(t.label(r, "TTFT p50"), latencies(r.Series.TTFTP50, n), lineOpts(dashed())...)
	return t.view("chart-ttft", c, "s", ttftNote)
}

const ttftNote = "Latency is attributed to the interval the request arrived in: what someone who sent a request at that time experienced, including the client queue, pacing, retries and backoff. Gaps are intervals in which no arriving request completed."

// Small multiples: with several variants the TTFT chart becomes one small
// chart per variant, two to a row, on the same scale, instead of one
// tangle of two lines per variant.
const (
	multipleHeight = 300
	multipleWidth  = 500
)

// ceil2 rounds v up to two significant digits (5.78 → 5.8), a shared
// axis maximum that wastes little of each small chart.
func ceil2(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-1)
	return round4(math.Ceil(v/p-1e-9) * p)
}

// ttftMultiples draws TTFT p50 and p95 of each variant in its own small
// chart, every one on the same y axis (up to the highest p95 or SLO), the
// TTFT SLOs as lines on each. The first is "chart-ttft", the others
// "chart-ttft-2", "chart-ttft-3", ….
func ttftMultiples(t timeline, slos []SLO) []func() (chartView, error) {
	top, low := 0.0, math.Inf(1)
	for _, r := range t.variants {
		for _, v := range r.Series.TTFTP95 {
			top = max(top, v)
		}
		for _, v := range r.Series.TTFTP50 {
			if v > 0 {
				low = min(low, v)
			}
		}
	}
	lines := sloLines(slos, "ttft")
	for _, l := range lines {
		top = max(top, l.value)
		low = min(low, l.value)
	}
	// One variant queueing for minutes beside another at a fraction of a
	// second would flatten the fast ones at zero: past a hundredfold range
	// every chart uses the same log axis.
	yAxis := opts.YAxis{Name: "seconds", Min: 0, Max: ceil2(top * 1.1)}
	if low > 0 && top/low > 100 {
		yAxis = opts.YAxis{Name: "seconds (log scale)", Type: "log",
			Min: math.Pow(10, math.Floor(math.Log10(low))), Max: math.Pow(10, math.Ceil(math.Log10(top)))}
	}
	var out []func() (chartView, error)
	for k, r := range t.variants {
		k, r := k, r
		out = append(out, func() (chartView, error) {
			id := "chart-ttft"
			if k > 0 {
				id = fmt.Sprintf("chart-ttft-%d", k+1)
			}
			c := axisChart{id: id, title: "TTFT · " + report.VariantName(r),
				subtitle: "p95 and p50 (dashed) by arrival time; dashed red: TTFT SLOs", xName: "clock (arrival)", yName: "seconds", legend: false, zoom: true}.newLine()
			c.SetGlobalOptions(charts.WithInitializationOpts(opts.Initialization{ChartID: id, Height: fmt.Sprintf("%dpx", multipleHeight), Width: "100%"}),
				charts.WithYAxisOpts(yAxis),
				charts.WithGridOpts(opts.Grid{Top: "64", Bottom: "28", Left: "56", Right: "24", ContainLabel: opts.Bool(true)}))
			c.SetXAxis(t.clock)
			n := len(t.clock)
			c.AddSeries("TTFT p95", latencies(r.Series.TTFTP95, n), lineOpts(limitLines(lines)...)...)
			c.AddSeries("TTFT p50", latencies(r.Series.TTFTP50, n), lineOpts(dashed())...)
			return newSizedView(id, c, "s", "", viewSpec{height: multipleHeight, width: multipleWidth})
		})
	}
	return out
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
	return t.view("chart-queue-wait", c, "s",
		"Time spent waiting before service: client connection pool, pacer, retry backoff and the backend's queue.")
}

// cdfPoints are a workload's latency distribution as (latency, % of
// requests) points: its quantile curve when the results have one (the
// minimum, 1%, 5%, every decile, the tail to 99.9% and the maximum), else
// the percentiles every summary keeps (p50, p90, p95, p99, max).
func cdfPoints(w model.GroupResult, kind string) []opts.LineData {
	q := w.Summary.Latency.TTFT
	if kind == "e2e" {
		q = w.Summary.Latency.E2E
	}
	if q.Count == 0 {
		return nil
	}
	var pts [][2]float64
	if c := w.Curves; c != nil && len(c.Shares) == len(c.TTFT) && len(c.Shares) == len(c.E2E) {
		v := c.TTFT
		if kind == "e2e" {
			v = c.E2E
		}
		for i, sh := range c.Shares {
			pts = append(pts, [2]float64{v[i], 100 * sh})
		}
	} else {
		pts = [][2]float64{{q.P50, 50}, {q.P90, 90}, {q.P95, 95}, {q.P99, 99}, {q.Max, 100}}
	}
	out := make([]opts.LineData, 0, len(pts))
	for _, p := range pts {
		if p[0] <= 0 {
			continue // a log axis has no zero
		}
		out = append(out, opts.LineData{Value: []float64{round4(p[0]), round4(p[1])}})
	}
	return out
}

// cdfChart draws one latency's distribution per workload (and variant):
// the share of completed requests at or below each latency, on a log
// latency axis, the SLOs as vertical lines labelled above the plot.
func cdfChart(t timeline, vs []*model.Results, slos []SLO, kind string) (chartView, error) {
	// Its series follow the variant selector when every variant is on the
	// selector (none was left off the time axis).
	owner := map[string]int{}
	name := map[string]string{"ttft": "TTFT", "e2e": "E2E latency"}[kind]
	id := "chart-cdf-" + kind
	c := axisChart{id: id, title: name + " distribution per workload",
		subtitle: "share of completed requests at or below a latency; dashed red: SLOs", xName: "seconds (log scale)", yName: "% of requests", xType: "log", legend: true}.newLine()
	c.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "% of requests", Min: 0, Max: 100}),
		charts.WithGridOpts(opts.Grid{Top: "72", Bottom: "78", Left: "64", Right: "72", ContainLabel: opts.Bool(true)}))
	first := true
	for _, r := range vs {
		for _, w := range r.Workloads {
			pts := cdfPoints(w, kind)
			if pts == nil {
				continue
			}
			label := w.Name
			if len(vs) > 1 {
				label = report.VariantName(r) + " · " + w.Name
			}
			for i, v := range t.variants {
				if v == r && len(t.skipped) == 0 {
					owner[label] = i
				}
			}
			extra := []charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}), charts.WithLineStyleOpts(opts.LineStyle{Width: 2})}
			if first {
				extra = append(extra, sloXLines(sloLines(slos, kind))...)
				first = false
			}
			c.AddSeries(label, pts, extra...)
		}
	}
	return newSizedView(id, c, "", "Read across at 95% for the p95 of each workload. Built from the quantiles the results keep for each workload (1% relative accuracy; the curve ends at the slowest request). Where the curve crosses an SLO line is the share of requests that met it.", viewSpec{owner: owner})
}

// sloXLines draws vertical mark lines at latency thresholds, each labelled
// along its foot ("SLO ttft ≤ 2.0s: chat"), where the curves, which have
// mostly risen by the SLO, leave it clear.
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
			Label:     &opts.Label{Show: opts.Bool(true), Position: "insideStartTop", Formatter: "{b}", Color: limitColor},
			LineStyle: &opts.LineStyle{Type: "dashed", Width: 1.5, Color: limitColor},
		}),
	}
}
