package htmlreport

import (
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/report"
)

// anyRefused reports whether any drawn variant had a refused attempt.
func anyRefused(t timeline) bool {
	for _, r := range t.variants {
		for _, v := range r.Series.Rejected {
			if any64(v) {
				return true
			}
		}
	}
	return false
}

// refusalsChart draws refused attempts per minute by reason, stacked per
// variant.
func refusalsChart(t timeline) (chartView, error) {
	c := axisChart{id: "chart-refusals", title: "Refused attempts per minute, by reason",
		subtitle: "429 rate limits, 503/529 overload and other refusals, by attempt time; stacked per variant", xName: "clock", yName: "attempts/min", legend: true, zoom: true}.newBar()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		reasons := make([]string, 0, len(r.Series.Rejected))
		for k, v := range r.Series.Rejected {
			if any64(v) {
				reasons = append(reasons, k)
			}
		}
		sort.Strings(reasons)
		m := minutes(r)
		for _, k := range reasons {
			c.AddSeries(t.label(r, k), perMinuteBars(r.Series.Rejected[k], m, n),
				charts.WithBarChartOpts(opts.BarChart{Stack: "v:" + report.VariantName(r), BarCategoryGap: "10%"}))
		}
	}
	return t.viewByReason("chart-refusals", c, "attempts/min",
		"Each refused attempt by the reason the backend gave: a rate-limit dimension (rpm, itpm, otpm, tpm, rpd, tpd), concurrency, an outage, a full queue, a request too large to fit. A refused attempt is retried by the client or, after its last attempt, fails the request.")
}

// retriesChart draws retries and failed requests per minute.
func retriesChart(t timeline) (chartView, error) {
	c := axisChart{id: "chart-retries", title: "Retries and failed requests per minute",
		subtitle: "retries by attempt time, failures by the time the request gave up", xName: "clock", yName: "per minute", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		m := minutes(r)
		c.AddSeries(t.label(r, "retries"), perMinute(r.Series.Retries, m, n), lineOpts()...)
		c.AddSeries(t.label(r, "failed requests"), perMinute(r.Series.Failed, m, n), lineOpts(dashed())...)
	}
	return t.view("chart-retries", c, "/min",
		"Retries add load to the limit that refused them; failures are requests that ran out of attempts or met a refusal that is not retried.")
}

// inFlightChart draws requests in flight and waiting.
func inFlightChart(t timeline) (chartView, error) {
	c := axisChart{id: "chart-in-flight", title: "Requests in flight and queue length",
		subtitle: "time-weighted means per interval", xName: "clock", yName: "requests", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		c.AddSeries(t.label(r, "in flight"), values(r.Series.InFlight, 1, n), lineOpts()...)
		c.AddSeries(t.label(r, "queue length"), values(r.Series.QueueLength, 1, n), lineOpts(dashed())...)
	}
	return t.view("chart-in-flight", c, "requests",
		"In flight: issued and not yet ended (queued, pacing, backing off or in service). Queue length: those waiting for a client slot, the pacer, a retry backoff or a backend queue. A queue that does not fall back to zero after the peak is a backlog that has not drained.")
}
