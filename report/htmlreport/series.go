package htmlreport

import (
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// timeline is the shared time axis of the variants drawn together: those
// with the base's interval and start clock.
type timeline struct {
	clock    []string
	variants []*model.Results
	// skipped names variants left out because their intervals differ.
	skipped []string
	// merged is how many of the run's intervals each point covers (1
	// unless the series were too long to draw point by point).
	merged int
	// owner records which variant (index into variants) each series
	// label belongs to, for the page's variant selector.
	owner map[string]int
}

// newTimeline picks the variants that share the base's time axis.
func newTimeline(vs []*model.Results) timeline {
	t := timeline{merged: 1, owner: map[string]int{}}
	if len(vs) == 0 {
		return t
	}
	base := vs[0]
	for _, r := range vs {
		if r.IntervalS != base.IntervalS || r.StartClock != base.StartClock {
			t.skipped = append(t.skipped, report.VariantName(r))
			continue
		}
		r, t.merged = coarsen(served(r))
		t.variants = append(t.variants, r)
		if len(r.Series.Clock) > len(t.clock) {
			t.clock = r.Series.Clock
		}
	}
	return t
}

// multi reports whether more than one variant is drawn.
func (t timeline) multi() bool { return len(t.variants) > 1 }

// label names a series: the metric alone for a single variant, else
// "variant · metric".
func (t timeline) label(r *model.Results, metric string) string {
	if !t.multi() {
		return metric
	}
	name := report.VariantName(r)
	if metric != "" {
		name += " · " + metric
	}
	for i, v := range t.variants {
		if v == r {
			t.owner[name] = i
		}
	}
	return name
}

// view encodes a time-series chart whose series are labelled by t.label,
// each variant in its own colour.
func (t timeline) view(id string, c echart, unit, note string) (chartView, error) {
	return newSizedView(id, c, unit, note, viewSpec{owner: t.owner, byVariant: true})
}

// viewByReason is view for a chart whose colours tell its series' reasons
// apart rather than their variants (the stacked refusals).
func (t timeline) viewByReason(id string, c echart, unit, note string) (chartView, error) {
	if !t.multi() { // one variant: a colour per reason, as the legend says
		return newSizedView(id, c, unit, note, viewSpec{owner: t.owner})
	}
	// Several variants: each keeps its colour, as in every other chart of
	// the page, and its reasons are shades of it.
	return newSizedView(id, c, unit, note, viewSpec{owner: t.owner, byVariant: true, shade: reasonShade})
}

// reasonShades are how much each refusal reason lightens its variant's
// colour: the same reason the same shade on every page.
var reasonShades = map[string]float64{"rpm": 0, "itpm": 0.45, "otpm": 0.7, "tpm": 0.3, "rpd": 0.55, "tpd": 0.8}

// reasonShade is the shade of a series named "VARIANT · REASON"; other
// reasons (concurrency, outages, …) take 0.15–0.75 by their name.
func reasonShade(name string) float64 {
	reason := name
	if i := strings.LastIndex(name, " · "); i >= 0 {
		reason = name[i+len(" · "):]
	}
	if f, ok := reasonShades[reason]; ok {
		return f
	}
	h := 0
	for _, c := range reason {
		h = h*31 + int(c)
	}
	return 0.15 + 0.15*float64((h%5+5)%5)
}

// minutes returns each interval's width in minutes (the last one may be
// cut short by the horizon, or by the end of an interrupted run).
func minutes(r *model.Results) []float64 {
	s := &r.Series
	w := make([]float64, len(s.StartS))
	for i, start := range s.StartS {
		width := s.IntervalS
		if end := report.Covered(r) - start; end > 0 && end < width {
			width = end
		}
		w[i] = width / 60
	}
	return w
}

// perMinute turns per-interval counts into a per-minute rate, padded with
// gaps to n points.
func perMinute(counts []int64, mins []float64, n int) []opts.LineData {
	out := make([]opts.LineData, n)
	for i := range out {
		if i < len(counts) && i < len(mins) && mins[i] > 0 {
			out[i] = opts.LineData{Value: round4(float64(counts[i]) / mins[i])}
		} else {
			out[i] = opts.LineData{Value: "-"}
		}
	}
	return out
}

// perMinuteBars is perMinute for bar charts.
func perMinuteBars(counts []int64, mins []float64, n int) []opts.BarData {
	ld := perMinute(counts, mins, n)
	out := make([]opts.BarData, n)
	for i, d := range ld {
		out[i] = opts.BarData{Value: d.Value}
	}
	return out
}

// values turns a gauge series into line data scaled by f, padded with gaps
// to n points.
func values(v []float64, f float64, n int) []opts.LineData {
	out := make([]opts.LineData, n)
	for i := range out {
		if i < len(v) && !math.IsNaN(v[i]) {
			out[i] = opts.LineData{Value: round4(v[i] * f)}
		} else {
			out[i] = opts.LineData{Value: "-"}
		}
	}
	return out
}

// latencies is values for a per-interval latency percentile: 0 means no
// request that arrived in the interval completed, drawn as a gap.
func latencies(v []float64, n int) []opts.LineData {
	out := values(v, 1, n)
	for i := range out {
		if i < len(v) && v[i] == 0 {
			out[i] = opts.LineData{Value: "-"}
		}
	}
	return out
}

// cumulative returns the running sum of v, padded with gaps to n points.
func cumulative(v []float64, n int) []opts.LineData {
	out := make([]opts.LineData, n)
	var sum float64
	for i := range out {
		if i < len(v) {
			sum += v[i]
			out[i] = opts.LineData{Value: round4(sum)}
		} else {
			out[i] = opts.LineData{Value: "-"}
		}
	}
	return out
}

// any64 reports whether any count is non-zero.
func any64(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}
