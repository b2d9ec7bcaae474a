package report

import "github.com/headroom-sim/headroom/model"

// figureDef is one key figure: its name, words, unit and how to read it off
// one replication's results.
type figureDef struct {
	name, label, unit string
	value             func(s *model.Summary) float64
}

// keyFigures are the figures a summary estimates, in table order. Names
// are stable JSON keys; shares are in percent.
var keyFigures = []figureDef{
	{"requests_offered", "requests offered", "requests", func(s *model.Summary) float64 { return float64(s.Requests.Offered) }},
	{"requests_completed", "completed", "requests", func(s *model.Summary) float64 { return float64(s.Requests.Completed) }},
	{"requests_failed", "failed", "requests", func(s *model.Summary) float64 { return float64(s.Requests.Failed) }},
	{"refused_attempts", "refused attempts (429/5xx)", "requests", func(s *model.Summary) float64 { return float64(sum(s.Attempts.Rejected)) }},
	{"refused_attempts_pct", "refused share of attempts", "%", func(s *model.Summary) float64 {
		return percent(float64(sum(s.Attempts.Rejected)), float64(s.Attempts.Total))
	}},
	{"requests_per_s", "throughput req/s", "req/s", func(s *model.Summary) float64 { return s.Throughput.RequestsPerS }},
	{"output_tokens_per_s", "output tokens/s", "tok/s", func(s *model.Summary) float64 { return s.Throughput.OutputTokensPerS }},
	{"ttft_p50_s", "TTFT p50", "s", func(s *model.Summary) float64 { return s.Latency.TTFT.P50 }},
	{"ttft_p95_s", "TTFT p95", "s", func(s *model.Summary) float64 { return s.Latency.TTFT.P95 }},
	{"ttft_p99_s", "TTFT p99", "s", func(s *model.Summary) float64 { return s.Latency.TTFT.P99 }},
	{"tpot_p50_s", "TPOT p50", "s", func(s *model.Summary) float64 { return s.Latency.TPOT.P50 }},
	{"e2e_p95_s", "E2E p95", "s", func(s *model.Summary) float64 { return s.Latency.E2E.P95 }},
	{"queue_wait_p95_s", "queue wait p95", "s", func(s *model.Summary) float64 { return s.Latency.QueueWait.P95 }},
	{"goodput_per_s", "goodput req/s", "req/s", func(s *model.Summary) float64 { return s.Goodput.RequestsPerS }},
	{"slo_attainment_pct", "goodput (SLO met)", "%", func(s *model.Summary) float64 { return 100 * s.Goodput.SLOAttainment }},
	{"cost_usd", "cost", "USD", func(s *model.Summary) float64 { return s.Cost.Total }},
	{"cost_per_1k_requests_usd", "cost per 1k requests", "USD", func(s *model.Summary) float64 {
		if s.Requests.Completed == 0 {
			return 0
		}
		return 1000 * s.Cost.Total / float64(s.Requests.Completed)
	}},
	{"makespan_s", "makespan", "s", func(s *model.Summary) float64 { return s.MakespanS }},
}

// FigureNames lists the key figures' names in table order.
func FigureNames() []string {
	out := make([]string, len(keyFigures))
	for i, f := range keyFigures {
		out[i] = f.name
	}
	return out
}

// SummarizeVariant estimates the key figures of one variant from its
// replications (reps[r] ran with Config.Replication = r). When base is not
// nil it holds the base variant's replications, paired with reps by index,
// and each figure gets DiffVsBase. Cost per 1k requests is over completed
// requests.
func SummarizeVariant(name string, reps, base []*model.Results) VariantSummary {
	values := func(rs []*model.Results) []float64 {
		if rs == nil {
			return nil
		}
		out := make([]float64, 0, len(rs)*len(keyFigures))
		for _, r := range rs {
			for _, f := range keyFigures {
				out = append(out, f.value(&r.Summary))
			}
		}
		return out
	}
	return summarizeFigures(name, values(reps), values(base), len(reps))
}

// summarizeFigures is SummarizeVariant from the key figures of n
// replications, replication-major (reps[r·F+i] is figure i of replication
// r), and of the base's, or nil.
func summarizeFigures(name string, reps, base []float64, n int) VariantSummary {
	nf := len(keyFigures)
	vs := VariantSummary{Variant: name, Figures: make([]Figure, nf)}
	xs := make([]float64, n)
	var bs []float64
	if base != nil {
		bs = make([]float64, len(base)/nf)
	}
	for i, f := range keyFigures {
		for r := range xs {
			xs[r] = reps[r*nf+i]
		}
		vs.Figures[i] = Figure{Name: f.name, Label: f.label, Unit: f.unit, Estimate: NewEstimate(xs)}
		if base != nil {
			for r := range bs {
				bs[r] = base[r*nf+i]
			}
			d := PairedDiff(xs, bs)
			vs.Figures[i].DiffVsBase = &d
		}
	}
	return vs
}

// Figure returns the summary's figure of that name, and whether it has one.
func (v *VariantSummary) Figure(name string) (Figure, bool) {
	for _, f := range v.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

func percent(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * a / b
}
