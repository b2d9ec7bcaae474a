package htmlreport

import (
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// limitsOf returns a variant's per-minute limits of the given dimensions
// as labelled lines. For a variant other than the base only the limits
// whose value differs from the base's are returned (the base's are drawn
// already), labelled with the variant's name.
func limitsOf(r, base *model.Results, dims ...string) []markLine {
	baseVal := map[string]float64{}
	if r != base {
		for _, b := range base.Backends {
			for _, l := range b.Limits {
				baseVal[b.Name+"|"+l.Scope+"|"+l.Dimension] = l.Limit
			}
		}
	}
	var out []markLine
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
			name += " " + strings.ToUpper(l.Dimension) + " " + limitText(l.Limit)
			if r != base {
				name = report.VariantName(r) + ": " + name
			}
			out = append(out, markLine{name: name, value: l.Limit})
		}
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

// demandChart draws requests offered and completed per minute, with the
// RPM limits as lines.
func demandChart(t timeline) (chartView, error) {
	base := t.variants[0]
	c := axisChart{id: "chart-demand", title: "Requests per minute: offered vs completed",
		subtitle: "offered by arrival time, completed by completion time; dashed red: RPM limits", xName: "clock", yName: "requests/min", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	c.AddSeries("offered", perMinute(base.Series.Offered, minutes(base), n),
		lineOpts(limitLines(limitsOf(base, base, "rpm"))...)...)
	for _, r := range t.variants {
		c.AddSeries(t.label(r, "completed"), perMinute(r.Series.Completed, minutes(r), n),
			lineOpts(limitLines(limitsOf(r, base, "rpm"))...)...)
	}
	return newView("chart-demand", c, "requests/min",
		"Offered demand is the same in every variant (common random numbers). Completions flatten at a limit or a plateau; the gap to the offered line is refused, queued or failed work. Limit lines are each backend's own RPM limit, while the series are totals over all backends.")
}

// tokensChart draws input and output tokens served per minute, with the
// token limits (ITPM, OTPM, TPM) as lines.
func tokensChart(t timeline) (chartView, error) {
	base := t.variants[0]
	c := axisChart{id: "chart-tokens", title: "Tokens per minute served vs token limits",
		subtitle: "tokens of completed requests, by completion time; dashed red: ITPM, OTPM and TPM limits", xName: "clock", yName: "tokens/min", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		m := minutes(r)
		c.AddSeries(t.label(r, "input tokens"), perMinute(r.Series.InputTokens, m, n),
			lineOpts(limitLines(limitsOf(r, base, "itpm", "tpm"))...)...)
		c.AddSeries(t.label(r, "output tokens"), perMinute(r.Series.OutputTokens, m, n),
			lineOpts(append(limitLines(limitsOf(r, base, "otpm")), dashed())...)...)
	}
	return newView("chart-tokens", c, "tokens/min",
		"Served tokens against each backend's per-minute token limits. Admission charges differ from what is served: a provider may reserve max_tokens, may not count cache reads against ITPM, and refunds unused output, so a limit can bind before the served line reaches it (see each limit's peak use in the JSON).")
}
