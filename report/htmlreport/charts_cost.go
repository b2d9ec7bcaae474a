package htmlreport

import (
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
)

// costParts splits a variant's cost per interval by backend: each GPU
// cluster's own series, and the hosted APIs together (the rest of the
// total; Results keep no per-interval cost per hosted backend).
func costParts(r *model.Results) (names []string, parts [][]float64) {
	n := len(r.Series.CostUSD)
	hosted := append([]float64(nil), r.Series.CostUSD...)
	var hostedNames []string
	what := " (tokens)"
	for _, b := range r.Backends {
		if b.Cluster == nil {
			hostedNames = append(hostedNames, b.Name)
			if b.Cost.Commitment > 0 {
				what = " (tokens and commitments)"
			}
			continue
		}
		part := make([]float64, n)
		for i := 0; i < n && i < len(b.Cluster.Series.CostUSD); i++ {
			part[i] = b.Cluster.Series.CostUSD[i]
			hosted[i] -= part[i]
		}
		names = append(names, b.Name+" (GPUs)")
		parts = append(parts, part)
	}
	if len(hostedNames) > 0 {
		for i := range hosted {
			if hosted[i] < 0 && hosted[i] > -1e-9 {
				hosted[i] = 0
			}
		}
		names = append([]string{strings.Join(hostedNames, " + ") + what}, names...)
		parts = append([][]float64{hosted}, parts...)
	}
	return names, parts
}

// costRateChart draws the base's cost per hour stacked by backend.
func costRateChart(t timeline) (chartView, error) {
	base := t.variants[0]
	c := axisChart{id: "chart-cost-rate", title: "Cost per hour by backend (" + t.label(base, "") + ")",
		subtitle: "stacked: tokens billed by hosted APIs as requests complete, GPU time as it is provisioned", xName: "clock", yName: "USD/hour", legend: true, zoom: true}.newLine()
	if !t.multi() {
		c.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: "Cost per hour by backend", Left: "center",
			Subtitle: "stacked: tokens billed by hosted APIs as requests complete, GPU time as it is provisioned"}))
	}
	c.SetXAxis(t.clock)
	n := len(t.clock)
	names, parts := costParts(base)
	m := minutes(base)
	for i, name := range names {
		perHour := make([]float64, len(parts[i]))
		for j, v := range parts[i] {
			if j < len(m) && m[j] > 0 {
				perHour[j] = v / m[j] * 60
			}
		}
		c.AddSeries(name, values(perHour, 1, n),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Stack: "cost"}),
			charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.35)}))
	}
	return t.view("chart-cost-rate", c, "USD/h",
		"Hosted APIs are billed per token of the attempts they served: completed requests and those a client's timeout abandoned while the provider was answering them, plus a tier's commitment spread evenly over time; several hosted APIs are shown together because the results keep their per-interval cost only as a total. GPU clusters are billed for provisioned GPU time, idle or not.")
}

// costCumulativeChart draws each variant's cumulative cost.
func costCumulativeChart(t timeline) (chartView, error) {
	c := axisChart{id: "chart-cost-cumulative", title: "Cumulative cost",
		subtitle: "all backends, from the start of the run", xName: "clock", yName: "USD", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		c.AddSeries(t.label(r, "cost"), cumulative(r.Series.CostUSD, n), lineOpts()...)
	}
	return t.view("chart-cost-cumulative", c, "USD",
		"The end of each line is the variant's total cost over the horizon, as in the key-figures table.")
}
