package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// limitKey names one limit across variants: backend, scope, dimension.
type limitKey struct{ backend, scope, dim string }

// label is the limit's name on the page: "sonnet ITPM", "api key:a RPM".
func (k limitKey) label() string {
	s := k.backend
	if k.scope != "" && k.scope != "org" {
		s += " " + k.scope
	}
	return s + " " + strings.ToUpper(k.dim)
}

// limitKeys lists the limits of the variants in the order they first
// appear.
func limitKeys(vs []*model.Results) []limitKey {
	var out []limitKey
	seen := map[limitKey]bool{}
	for _, r := range vs {
		for _, b := range r.Backends {
			for _, l := range b.Limits {
				k := limitKey{b.Name, l.Scope, l.Dimension}
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// limitOf finds a variant's limit by key.
func limitOf(r *model.Results, k limitKey) *model.LimitResult {
	for i := range r.Backends {
		b := &r.Backends[i]
		if b.Name != k.backend {
			continue
		}
		for j := range b.Limits {
			if l := &b.Limits[j]; l.Scope == k.scope && l.Dimension == k.dim {
				return l
			}
		}
	}
	return nil
}

// hasLimits reports whether any variant has a rate limit.
func hasLimits(vs []*model.Results) bool { return len(limitKeys(vs)) > 0 }

// perText is a limit's period: "/min" or "/day".
func perText(dim string) string {
	if dim == "rpd" || dim == "tpd" {
		return "/day"
	}
	return "/min"
}

// limitsTable is every rate limit at its peak, variants side by side: the
// offered demand over the limit (how many times over), what the limit
// admitted (peak use), and what it refused; nil without limits.
func limitsTable(vs []*model.Results) *table {
	keys := limitKeys(vs)
	if len(keys) == 0 {
		return nil
	}
	t := &table{Note: "Each cell is the offered demand at the limit's peak as a multiple of the limit (red above 1×). Offered demand is what the requests that arrived in the busiest interval asked of the limit, admitted or not (per-day limits: the whole run over the days simulated). " +
		"Peak use is what the limit admitted in its busiest interval; a token bucket caps it near (interval + burst)/interval of the limit, so only demand shows how far over the traffic is."}
	for _, r := range vs {
		t.Head = append(t.Head, report.VariantName(r))
	}
	for _, k := range keys {
		row := tableRow{Label: k.label()}
		for _, r := range vs {
			l := limitOf(r, k)
			if l == nil {
				row.Cells = append(row.Cells, tableCell{Value: "—"})
				continue
			}
			if l.PeakDemand == 0 {
				row.Cells = append(row.Cells, tableCell{Value: "no demand", Lines: []string{"limit " + report.LimitValue(l.Limit) + perText(k.dim)}})
				continue
			}
			c := tableCell{Value: report.Times(l.PeakDemand), Over: l.PeakDemand > 1}
			use := fmt.Sprintf("peak use %.0f%%", 100*l.PeakUse)
			if perText(k.dim) == "/min" {
				use += ", demand peak " + report.Clock(r, l.PeakDemandIntervalS)
			}
			c.Lines = append(c.Lines, "limit "+report.LimitValue(l.Limit)+perText(k.dim), use)
			if l.Rejected > 0 {
				c.Lines = append(c.Lines, fmt.Sprintf("%s refused from %s", report.Count(l.Rejected), report.Clock(r, l.FirstRejectS)))
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// demandLimitChart draws, for each limit, the offered demand at its peak
// over the limit, one bar per variant, against a line at 1× (the limit);
// on a log axis when demand reaches ten times a limit.
func demandLimitChart(t timeline) (chartView, error) {
	keys := limitKeys(t.variants)
	top := 0.0
	for _, r := range t.variants {
		for _, k := range keys {
			if l := limitOf(r, k); l != nil {
				top = max(top, l.PeakDemand)
			}
		}
	}
	yName, yType := "× the limit", "value"
	if top >= 10 {
		yName, yType = "× the limit (log scale)", "log"
	}
	c := axisChart{id: "chart-limit-demand", title: "Offered demand against each limit at its peak",
		subtitle: "what the requests that arrived in the busiest interval asked for, over the limit; dashed red: the limit (1×)", xName: "", yName: yName, legend: t.multi()}.newBar()
	c.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: yName, Type: yType}))
	labels := make([]string, len(keys))
	for i, k := range keys {
		labels[i] = k.label()
	}
	c.SetXAxis(labels)
	for i, r := range t.variants {
		data := make([]opts.BarData, len(keys))
		for j, k := range keys {
			data[j] = opts.BarData{Value: "-"}
			if l := limitOf(r, k); l != nil && l.PeakDemand > 0 {
				data[j] = opts.BarData{Value: roundTimes(l.PeakDemand)}
			}
		}
		extra := []charts.SeriesOpts{charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{c}×"})}
		if i == 0 {
			extra = append(extra, limitLines([]markLine{{name: "the limit", value: 1}})...)
		}
		name := t.label(r, "offered demand")
		if !t.multi() {
			name = "offered demand"
		}
		c.AddSeries(name, data, extra...)
	}
	return t.view("chart-limit-demand", c, "×",
		"A bar above the dashed line is demand the limit cannot take at once: it is refused (429), retried, queued by the client, or (with a small excess) absorbed by the bucket's burst.")
}

// roundTimes rounds a multiple of a limit as report.Times prints it, so
// the bar's label reads the same: 0.54, 3.6, 12.
func roundTimes(v float64) float64 {
	switch {
	case v >= 10:
		return math.Round(v)
	case v >= 1:
		return math.Round(v*10) / 10
	}
	return math.Round(v*100) / 100
}
