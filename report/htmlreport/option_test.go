package htmlreport

import (
	"regexp"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

func line(vs ...any) []opts.LineData {
	out := make([]opts.LineData, len(vs))
	for i, v := range vs {
		out[i] = opts.LineData{Value: v}
	}
	return out
}

// TestIdenticalSeriesMerge: two variants with the same points are one
// series under both names, so neither hides the other; different ones
// stay apart.
func TestIdenticalSeriesMerge(t *testing.T) {
	c := axisChart{id: "x", title: "t", legend: true}.newLine()
	c.SetXAxis([]string{"a", "b"})
	c.AddSeries("base · completed", line(1.0, 2.0))
	c.AddSeries("tier 4 · completed", line(1.0, 2.0))
	c.AddSeries("tier 5 · completed", line(1.0, 3.0))
	v, err := newSizedView("x", c, "", "", viewSpec{owner: map[string]int{"base · completed": 0, "tier 4 · completed": 1, "tier 5 · completed": 2}})
	if err != nil {
		t.Fatal(err)
	}
	o := string(v.Option)
	if !strings.Contains(o, `"name":"base = tier 4 · completed"`) || !strings.Contains(o, `"name":"tier 5 · completed"`) || strings.Count(o, `"type":"line"`) != 2 {
		t.Errorf("option: %s", o)
	}
	if got := string(v.Owners); got != `{"base = tier 4 · completed":[0,1],"tier 5 · completed":[2]}` {
		t.Errorf("owners %s", got)
	}
}

// TestEmptyChartDetected: a chart of zeros and gaps has nothing to show.
func TestEmptyChartDetected(t *testing.T) {
	c := axisChart{id: "x", title: "Retries", legend: true}.newLine()
	c.SetXAxis([]string{"a", "b"})
	c.AddSeries("retries", line(0.0, "-"))
	v, err := newView("x", c, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !v.Empty || v.Title != "Retries" {
		t.Errorf("empty %v, title %q", v.Empty, v.Title)
	}
	c.AddSeries("failed", line(0.0, 2.0))
	if v, _ = newView("x", c, "", ""); v.Empty {
		t.Error("a chart with a value is empty")
	}
}

// TestLegendWraps: a plain legend whose names need more than a row makes
// the chart taller by a row each, and leaves the grid room for it.
func TestLegendWraps(t *testing.T) {
	if n := legendRows([]string{"a", "b"}, plotWidthPx); n != 1 {
		t.Errorf("two short names: %d rows", n)
	}
	var names []string
	for i := 0; i < 12; i++ {
		names = append(names, strings.Repeat("x", 40))
	}
	rows := legendRows(names, plotWidthPx)
	if rows < 4 {
		t.Fatalf("twelve 40-character names in %dpx: %d rows", plotWidthPx, rows)
	}
	c := axisChart{id: "x", title: "t", legend: true}.newLine()
	c.SetXAxis([]string{"a"})
	for i, n := range names {
		c.AddSeries(n+string(rune('a'+i)), line(float64(i+1)))
	}
	v, err := newView("x", c, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if v.Height != chartHeight+(rows-1)*legendRowPx {
		t.Errorf("height %d, want %d for %d rows", v.Height, chartHeight+(rows-1)*legendRowPx, rows)
	}
	if strings.Contains(string(v.Option), `"scroll"`) || !strings.Contains(string(v.Option), `"type":"plain"`) {
		t.Errorf("legend not plain: %s", v.Option)
	}
}

// TestPaletteAvoidsLimitRed: no series colour is the limit lines' red.
func TestPaletteAvoidsLimitRed(t *testing.T) {
	for _, c := range palette {
		if strings.EqualFold(c, limitColor) {
			t.Errorf("series colour %s is the limit colour", c)
		}
	}
	out := write(t, fixture(), Options{ECharts: stubRuntime})
	if !strings.Contains(out, `"color":["#1f77b4"`) {
		t.Error("charts do not use the palette")
	}
}

// TestNothingRefusedDrawsNoRefusalCharts: without a refusal, retry or
// failure the page says so and draws neither chart.
func TestNothingRefusedDrawsNoRefusalCharts(t *testing.T) {
	d := fixture()
	for _, r := range d.Variants {
		r.Series.Rejected = map[string][]int64{}
		r.Series.Retries = make([]int64, 4)
		r.Series.Failed = make([]int64, 4)
	}
	out := write(t, d, Options{ECharts: stubRuntime})
	for _, id := range []string{"chart-refusals", "chart-retries"} {
		if strings.Contains(out, `id="`+id+`"`) {
			t.Errorf("%s drawn with nothing to show", id)
		}
	}
	if !strings.Contains(out, "No attempt was refused in any variant. Not drawn, with nothing to show: Refused attempts per minute, by reason; Retries and failed requests per minute.") {
		t.Error("the section does not say why nothing is drawn")
	}
}

// TestRunPageAdditions: the limits at the peak, the busiest hour beside
// the whole run, small multiples of TTFT, the per-replica batch, log
// latency in the distributions and the warnings.
func TestRunPageAdditions(t *testing.T) {
	d := fixture()
	for _, r := range d.Variants {
		r.Backends = append([]model.BackendResult(nil), r.Backends...)
		r.Backends[0].Limits = append([]model.LimitResult(nil), r.Backends[0].Limits...)
		r.Backends[0].Limits[1].PeakDemand = 3.6
		r.Backends[0].Limits[1].PeakDemandIntervalS = 60
		r.Findings.PeakWindow = &model.PeakWindow{StartS: 0, EndS: 3600, Offered: 100, Completed: 90, Failed: 8, Good: 60, SLOAttainment: 0.612,
			TTFT: model.Quantiles{Count: 90, P95: 7.5}}
	}
	d.Warnings = []report.Warning{{Key: "provider.api.price", Message: "no price given: its tokens cost $0.00"}}
	out := write(t, d, Options{ECharts: stubRuntime, SLOs: []SLO{{Workload: "chat", TTFTS: 5}}})
	for _, want := range []string{
		"Rate limits at the peak: offered demand against each limit", `<td class="over">3.6×`, "limit 800k/min",
		`id="chart-limit-demand"`, "busiest-hour TTFT p95</td><td>7.5s", "61.2%",
		`id="chart-ttft"`, `id="chart-ttft-2"`, `class="multiples"`,
		"batch peak per replica", `"type":"log"`,
		`<section id="warnings">`, "provider.api.price: no price given: its tokens cost $0.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The distribution is a curve from the minimum up, not a staircase
	// from 50%.
	if regexp.MustCompile(`hr.draw\("chart-cdf-ttft", \{[^<]*"step"`).MatchString(out) {
		t.Error("the latency distribution is drawn as a staircase")
	}
}

// TestManyVariantsGetASelector: three variants or more get the selector,
// drawing the base, the cheapest that holds and the best goodput at first.
func TestManyVariantsGetASelector(t *testing.T) {
	d := fixture()
	for _, name := range []string{"tier 5", "tier 6"} {
		v := *d.Variants[1]
		v.Variant = name
		v.Summary.Cost.Total = 5000
		v.Summary.Goodput.SLOAttainment = 0.5
		d.Variants = append(d.Variants, &v)
	}
	d.Variants[3].Summary.Goodput.SLOAttainment = 0.2
	out := write(t, d, Options{ECharts: stubRuntime})
	for _, want := range []string{"Variants in the charts", `data-variant="0" checked`, `data-variant="1" checked`, `data-variant="2" checked`, `data-variant="3">`,
		"hr.shown = [true,true,true,false]"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestGridSweepPage: a grid of two parameters gets goodput and cost
// against the first, TTFT on a log axis, and heat maps of goodput and
// cost over both.
func TestGridSweepPage(t *testing.T) {
	g := &report.GridPlan{Kind: "grid", Params: []report.SweepParam{
		{Key: "a", Values: []string{"1", "2"}, Numbers: []float64{1, 2}},
		{Key: "b", Values: []string{"x", "y"}},
	}}
	for _, l := range [][]string{{"1", "x"}, {"1", "y"}, {"2", "x"}, {"2", "y"}} {
		g.Points = append(g.Points, report.GridPoint{Label: "a=" + l[0] + ", b=" + l[1], Values: l})
	}
	p := &report.Plan{Command: "sweep", Variants: []string{"base"}, Replications: 1, Summarize: true, Grid: g, SLOs: []SLO{{Workload: "w", TTFTS: 1}}}
	rs := make([]*model.Results, p.NumItems())
	for k := range rs {
		rs[k] = &model.Results{Scenario: "s", DurationS: 10}
		s := &rs[k].Summary
		s.Requests.Offered, s.Requests.Completed = 10, 10
		s.Throughput.OutputTokensPerS = float64(100 * (k + 1))
		s.Latency.TTFT.P95 = 0.1 * float64(k+1)
		s.Goodput.SLOAttainment = 1 - 0.05*float64(k)
		s.Cost.Total = float64(k + 1)
	}
	out, err := report.Assemble(p, rs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteSweep(&b, out.Sweep, Options{ECharts: stubRuntime}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="chart-sweep-goodput"`, `id="chart-sweep-cost"`, `id="chart-heat-1-slo"`, `id="chart-heat-1-cost"`,
		"TTFT p95, seconds (log scale)", `"type":"heatmap"`, "holds (≥ 99%)", "The grid at a glance: a × b"} {
		if !strings.Contains(page, want) {
			t.Errorf("grid page lacks %q", want)
		}
	}
}
