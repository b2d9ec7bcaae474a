package htmlreport

import (
	"fmt"
	"io"
	"math"
	"slices"
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
	p.Headline = gridHeadline(d)
	p.TableTitle = "Per point"
	tb := gridTable(d)
	p.Table = &tb
	if len(s.Curves) > 0 {
		param := s.Curves[0].Param
		type spec struct {
			id, title, yName, figure, unit, note string
			log                                  bool
		}
		specs := []spec{
			{"chart-sweep-throughput", "Throughput against " + param, "output tokens/s", "output_tokens_per_s", "tok/s",
				"Output tokens/s, totals over the simulated time per point. Where a line flattens, more of the parameter buys little throughput.", false},
			{"chart-sweep-latency", "TTFT p95 against " + param, "TTFT p95, seconds (log scale)", "ttft_p95_s", "s",
				"TTFT p95 of completed requests, on a log scale so that the points before a line climbs do not sit flat at zero; a line that climbs steeply has run out of capacity.", true},
			{"chart-sweep-goodput", "Goodput against " + param, "% of requests meeting their SLOs", "slo_attainment_pct", "%",
				"SLO attainment: completed requests meeting every SLO of their workload, over those that ended (failures count against). A point holds at 99% or more with at most 0.1% failing.", false},
			{"chart-sweep-cost", "Cost against " + param, "USD over the run", "cost_usd", "USD",
				"Total cost of each point over its simulated time: tokens of hosted APIs, their tiers' commitments and provisioned GPU time.", false},
		}
		var views []chartView
		for _, sp := range specs {
			v, err := gridChart(s, sp.id, sp.title, sp.yName, sp.figure, sp.unit, sp.note, sp.log)
			if err != nil {
				return err
			}
			if !v.Empty {
				views = append(views, v)
			}
		}
		intro := ""
		if d.Replications > 1 {
			intro = fmt.Sprintf("Each point is the mean over %d replications.", d.Replications)
		}
		p.Sections = []section{{Title: "Key figures against " + param, Intro: intro, Charts: views}}
		maps, err := heatMaps(d)
		if err != nil {
			return err
		}
		if len(maps) > 0 {
			p.Sections = append(p.Sections, section{Title: "The grid at a glance: " + s.Params[0].Key + " × " + s.Params[1].Key,
				Intro: "Each cell is one point of the grid. Goodput in green where it holds (99% or more of requests meet their SLOs); cost from cheap (light) to dear (dark).", Charts: maps, Multiples: true})
		}
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

// gridHeadline names each line's knee, or says there is none; for a
// sweep of scenario keys, the cheapest point that holds.
func gridHeadline(d *report.SweepDocument) []string {
	s := &d.Sweep
	if len(s.Curves) == 0 {
		return []string{"No points."}
	}
	if !s.Load() {
		out := report.CheapestAdvice(d)
		return append(out[:len(out)-1], "Pick: "+report.CheapestRule+".")
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
	{"tpot_p50_s", "TPOT p50"},
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
	if !s.Load() && slices.ContainsFunc(s.Points, func(p report.SweepPoint) bool { return p.Pick }) {
		if many {
			t.Note += " Green rows are each variant's cheapest point that holds."
		} else {
			t.Note += " The green row is the cheapest point that holds."
		}
	}
	return t
}

// gridChart draws one key figure against the first parameter, a line per
// curve, each line's knee marked (a larger dot), on a log y axis when log.
func gridChart(s *report.SweepInfo, id, title, yName, figure, unit, note string, log bool) (chartView, error) {
	first := s.Curves[0]
	sub := "one line per variant and value of the other parameters; a larger dot marks a line's knee"
	if !s.Load() {
		sub = "one line per variant and value of the other parameters; a larger dot marks a line's cheapest point that holds"
	}
	c := axisChart{id: id, title: title, subtitle: sub,
		xName: first.Param, yName: yName, legend: true}.newLine()
	if log {
		c.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: yName, Type: "log"}))
	}
	c.SetXAxis(first.XLabels)
	for _, cv := range s.Curves {
		est := cv.Figures[figure]
		data := make([]opts.LineData, len(est))
		for j, e := range est {
			data[j] = opts.LineData{Value: round4(e.Mean)}
			if log && e.Mean <= 0 {
				data[j] = opts.LineData{Value: "-"}
			}
			if m := markOf(s, cv); m != nil && *m == j {
				data[j].SymbolSize = 14
			}
		}
		c.AddSeries(curveName(s, cv, yName), data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
	}
	return newView(id, c, unit, note)
}

// markOf is the index a line's larger dot marks: its knee on a load
// sweep, its cheapest point that holds on a sweep of scenario keys.
func markOf(s *report.SweepInfo, c report.SweepCurve) *int {
	if s.Load() {
		return c.Knee
	}
	return c.Pick
}

// maxHeatMaps bounds the heat maps of a grid: the first variants and
// values of the parameters after the second.
const maxHeatMaps = 3

// heatMaps draws a grid of at least two parameters as heat maps of the
// first two, goodput and cost side by side, one pair per variant and
// value of the other parameters (up to maxHeatMaps pairs).
func heatMaps(d *report.SweepDocument) ([]chartView, error) {
	s := &d.Sweep
	if len(s.Params) < 2 || len(s.Points) == 0 {
		return nil, nil
	}
	px, py := s.Params[0], s.Params[1]
	type group struct {
		name  string
		cells map[[2]int]int // (x, y) to point index
	}
	var groups []*group
	byName := map[string]*group{}
	index := func(vals []string, v string) int {
		for i, x := range vals {
			if x == v {
				return i
			}
		}
		return -1
	}
	for i, pt := range s.Points {
		if i >= len(d.Summary) || len(pt.Values) < 2 {
			break
		}
		parts := []string{}
		if manyVariants(s) {
			parts = append(parts, pt.Variant)
		}
		for j, par := range s.Params[2:] {
			parts = append(parts, par.Key+"="+pt.Values[j+2])
		}
		name := strings.Join(parts, ", ")
		g := byName[name]
		if g == nil {
			if len(groups) == maxHeatMaps {
				continue
			}
			g = &group{name: name, cells: map[[2]int]int{}}
			byName[name] = g
			groups = append(groups, g)
		}
		g.cells[[2]int{index(px.Values, pt.Values[0]), index(py.Values, pt.Values[1])}] = i
	}
	var out []chartView
	for k, g := range groups {
		for _, m := range []struct{ figure, what, unit string }{{"slo_attainment_pct", "goodput (SLO met)", "%"}, {"cost_usd", "cost", "USD"}} {
			id := fmt.Sprintf("chart-heat-%d-%s", k+1, strings.SplitN(m.figure, "_", 2)[0])
			title := "Heat map of " + m.what
			if g.name != "" {
				title += " · " + g.name
			}
			var data []opts.HeatMapData
			lo, hi := math.Inf(1), math.Inf(-1)
			for xi := range px.Values {
				for yi := range py.Values {
					i, ok := g.cells[[2]int{xi, yi}]
					if !ok {
						continue
					}
					f, ok := d.Summary[i].Figure(m.figure)
					if !ok {
						continue
					}
					v := heatValue(f.Mean, m.unit)
					lo, hi = math.Min(lo, v), math.Max(hi, v)
					data = append(data, opts.HeatMapData{Value: [3]any{xi, yi, v}})
				}
			}
			if len(data) == 0 {
				continue
			}
			var vm map[string]any
			if m.unit == "%" {
				// Green where the point holds, warmer below.
				vm = map[string]any{"type": "piecewise", "orient": "horizontal", "left": "center", "bottom": 0, "dimension": 2,
					"pieces": []any{
						map[string]any{"gte": 99, "label": "holds (≥ 99%)", "color": "#74c476"},
						map[string]any{"gte": 90, "lt": 99, "label": "90–99%", "color": "#fdd0a2"},
						map[string]any{"lt": 90, "label": "below 90%", "color": "#f4a3a3"}}}
			} else {
				vm = map[string]any{"type": "continuous", "calculable": true, "orient": "horizontal", "left": "center", "bottom": 0, "dimension": 2,
					"min": lo, "max": math.Max(hi, lo+0.01), "precision": costPrecision(hi), "text": []any{"dear", "cheap"},
					"inRange": map[string]any{"color": []any{"#f7fbff", "#6baed6", "#08519c"}}}
			}
			c := charts.NewHeatMap()
			c.SetGlobalOptions(
				charts.WithInitializationOpts(opts.Initialization{ChartID: id, Height: fmt.Sprintf("%dpx", multipleHeight+60), Width: "100%"}),
				charts.WithAnimation(false),
				charts.WithTitleOpts(opts.Title{Title: title, Left: "center"}),
				charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
				charts.WithGridOpts(opts.Grid{Top: "48", Bottom: "96", Left: "64", Right: "24", ContainLabel: opts.Bool(true)}),
				charts.WithXAxisOpts(opts.XAxis{Name: paramName(px.Key), Type: "category", Data: px.Values, NameLocation: "middle", NameGap: 26}),
				charts.WithYAxisOpts(opts.YAxis{Name: paramName(py.Key), Type: "category", Data: py.Values}),
			)
			c.AddSeries(m.what, data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true)}))
			v, err := newSizedView(id, c, m.unit, "", viewSpec{height: multipleHeight + 60, width: multipleWidth, tweaks: []func(option){func(o option) { o["visualMap"], o["legend"] = vm, map[string]any{"show": false} }}})
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// heatValue rounds a heat map cell for its label: a share to one
// decimal, dollars to cents below $100 and whole dollars above.
func heatValue(v float64, unit string) float64 {
	switch {
	case unit == "%":
		return math.Round(v*10) / 10
	case v < 100:
		return math.Round(v*100) / 100
	}
	return math.Round(v)
}

// costPrecision is the decimals a cost scale up to hi shows: cents below
// $100, whole dollars above.
func costPrecision(hi float64) int {
	if hi < 100 {
		return 2
	}
	return 0
}

// paramName is a parameter's key as an axis name.
func paramName(key string) string { return key }
