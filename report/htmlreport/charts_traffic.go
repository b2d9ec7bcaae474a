package htmlreport

import (
	"math"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// limitsOf returns a variant's per-minute limits of the given dimensions
// as labelled lines, one per value and dimension ("a, b RPM 4,000" when
// two backends share it). For a variant other than the base only the
// limits whose value differs from the base's are returned (the base's are
// drawn already), labelled with the variant's name.
func limitsOf(r, base *model.Results, dims ...string) []markLine {
	baseVal := map[string]float64{}
	if r != base {
		for _, b := range base.Backends {
			for _, l := range b.Limits {
				baseVal[b.Name+"|"+l.Scope+"|"+l.Dimension] = l.Limit
			}
		}
	}
	type key struct {
		dim   string
		value float64
	}
	var order []key
	names := map[key][]string{}
	for _, b := range r.Backends {
		for _, l := range b.Limits {
			if !contains(dims, l.Dimension) || l.Limit <= 0 {
				continue
			}
			if v, ok := baseVal[b.Name+"|"+l.Scope+"|"+l.Dimension]; ok && v == l.Limit {
				continue
			}
			name := b.Name
			if l.Scope != "" && l.Scope != "org" {
				name += " " + l.Scope
			}
			k := key{l.Dimension, l.Limit}
			if _, ok := names[k]; !ok {
				order = append(order, k)
			}
			names[k] = append(names[k], name)
		}
	}
	out := make([]markLine, 0, len(order))
	for _, k := range order {
		name := strings.Join(names[k], ", ") + " " + strings.ToUpper(k.dim) + " " + report.LimitValue(k.value)
		if r != base {
			name = report.VariantName(r) + ": " + name
		}
		out = append(out, markLine{name: name, value: k.value})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// limitReach is how far above a chart's highest value a limit line may
// lie and still be drawn (the axis stretched to show it); limits further
// up are named in the caption instead, so they do not flatten the data.
const limitReach = 2.5

// limitFit decides which limit lines a chart draws.
type limitFit struct {
	peak, top float64
	off       []string
}

// observe raises the peak to the largest value in d.
func (f *limitFit) observe(d []opts.LineData) {
	for _, x := range d {
		if v, ok := x.Value.(float64); ok && v > f.peak {
			f.peak = v
		}
	}
}

// keep returns the lines within reach of the peak and notes the others.
func (f *limitFit) keep(lines []markLine) []markLine {
	var out []markLine
	for _, l := range lines {
		if f.peak > 0 && l.value > limitReach*f.peak {
			f.off = append(f.off, l.name)
			continue
		}
		f.top = max(f.top, l.value)
		out = append(out, l)
	}
	return out
}

// apply stretches the y axis to the highest drawn line and adds the
// limits left out to the note.
func (f *limitFit) apply(c *charts.Line, note string) string { return f.applyAxis(c, 0, note) }

// applyAxis is apply for y axis i.
func (f *limitFit) applyAxis(c *charts.Line, i int, note string) string {
	if f.top > f.peak && i < len(c.YAxisList) {
		c.YAxisList[i].Max = niceCeil(f.top * 1.05)
	}
	if len(f.off) > 0 {
		note += " Limits far above the chart, not drawn: " + strings.Join(f.off, ", ") + "."
	}
	return note
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten, so that
// the axis's ticks stay round.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return v
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// demandChart draws requests offered and completed per minute, with the
// RPM limits as lines.
func demandChart(t timeline) (chartView, error) {
	base := t.variants[0]
	c := axisChart{id: "chart-demand", title: "Requests per minute: offered vs completed",
		subtitle: "offered by arrival time, completed by completion time; dashed red: RPM limits", xName: "clock", yName: "requests/min", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	var fit limitFit
	offered := perMinute(base.Series.Offered, minutes(base), n)
	fit.observe(offered)
	completed := make([][]opts.LineData, len(t.variants))
	for i, r := range t.variants {
		completed[i] = perMinute(r.Series.Completed, minutes(r), n)
		fit.observe(completed[i])
	}
	// Offered is a grey area behind the completions, so that a variant
	// completing everything offered does not hide it.
	c.AddSeries("offered", offered, append(lineOpts(limitLines(fit.keep(limitsOf(base, base, "rpm")))...),
		charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.25), Color: "#9aa3ad"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#9aa3ad"}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 1, Color: "#9aa3ad"}))...)
	for i, r := range t.variants {
		var marks []charts.SeriesOpts
		if r != base { // the base's limits are drawn on the offered line
			marks = limitLines(fit.keep(limitsOf(r, base, "rpm")))
		}
		c.AddSeries(t.label(r, "completed"), completed[i], lineOpts(marks...)...)
	}
	note := fit.apply(c, offeredNote(t.variants)+" Completions flatten at a limit or a plateau; the gap to the offered line is refused, queued or failed work. Limit lines are each backend's own RPM limit, while the series are totals over all backends.")
	return t.view("chart-demand", c, "requests/min", note)
}

// tokensChart draws input tokens (left axis) and output tokens (right
// axis: a tenth of the input or less, they would sit at zero on one
// linear axis) served per minute, with the token limits as lines on the
// axis of what they limit: ITPM and TPM on the left, OTPM on the right.
func tokensChart(t timeline) (chartView, error) {
	base := t.variants[0]
	c := axisChart{id: "chart-tokens", title: "Tokens per minute served vs token limits",
		subtitle: "input tokens (left axis) and output tokens (right axis, dashed) of completed requests, by completion time; dashed red: ITPM and TPM (labelled left), OTPM (labelled right)", xName: "clock", yName: "input tokens/min", legend: true, zoom: true}.newLine()
	c.ExtendYAxis(opts.YAxis{Name: "output tokens/min", Position: "right"})
	c.SetXAxis(t.clock)
	n := len(t.clock)
	var fitIn, fitOut limitFit
	in := make([][]opts.LineData, len(t.variants))
	out := make([][]opts.LineData, len(t.variants))
	for i, r := range t.variants {
		m := minutes(r)
		in[i], out[i] = perMinute(r.Series.InputTokens, m, n), perMinute(r.Series.OutputTokens, m, n)
		fitIn.observe(in[i])
		fitOut.observe(out[i])
	}
	for i, r := range t.variants {
		c.AddSeries(t.label(r, "input tokens"), in[i], lineOpts(limitLinesAt(fitIn.keep(limitsOf(r, base, "itpm", "tpm")), "insideStartTop")...)...)
		outOpts := append([]charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1}), dashed()},
			limitLines(fitOut.keep(limitsOf(r, base, "otpm")))...)
		c.AddSeries(t.label(r, "output tokens"), out[i], outOpts...)
	}
	note := "Served tokens against each backend's per-minute token limits. Input includes prompt tokens read from the cache, which a provider may not count against ITPM; admission may also reserve max_tokens and refund unused output, so a limit can bind before the served line reaches it (the limits table gives each limit's peak use and offered demand)."
	note = fitIn.applyAxis(c, 0, note)
	note = fitOut.applyAxis(c, 1, note)
	return t.view("chart-tokens", c, "tokens/min", note)
}

// offeredNote says what the grey offered area is, truthfully: the same in
// every variant only when every variant offered the same requests at the
// same times (open-loop demand drawn with common random numbers); closed
// loops offer what their answers allow, and a variant may change demand.
func offeredNote(vs []*model.Results) string {
	if len(vs) < 2 {
		return "Offered demand (the grey area) is what arrived."
	}
	for _, r := range vs[1:] {
		if !slices.Equal(r.Series.Offered, vs[0].Series.Offered) {
			return "Offered demand (the grey area) is the base's: the variants offered different demand (users of a closed loop send again only after an answer, so a variant's latency changes what they offer; a variant may also change the demand itself)."
		}
	}
	return "Offered demand (the grey area) is the same in every variant (the same requests at the same times: common random numbers)."
}
