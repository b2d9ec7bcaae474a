package loadtest

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/headroom-sim/headroom/model/perf"
)

// StepMeasurements turns the results of load tests against a self-hosted
// engine into measured steps for the cluster step-model fit
// (perf.FitRoofline, perf.FitTable). A load test measures requests, not
// iterations, so each step is inferred:
//
//   - decode: each level gives one step of b sequences taking the level's
//     mean TPOT, where b, the sequences decoding at once, follows from
//     Little's law as throughput × (E2E − TTFT) (or, without throughput,
//     concurrency × (E2E − TTFT)/E2E), each at the mean context of a
//     request halfway through its output. The prefill of arriving requests
//     that shares those iterations is folded into the measured TPOT, so at
//     high load the fit is a little pessimistic for pure decode steps.
//   - prefill: the level with the fewest sequences in flight (at most two)
//     gives prefill steps of one prompt taking its median TTFT (binned by
//     prompt length when it has per-request rows), which includes the
//     network and queueing: measure at concurrency 1 for clean points.
//
// The notes say what was inferred or left out.
func StepMeasurements(levels []Level) ([]perf.Measurement, []string) {
	var ms []perf.Measurement
	var notes []string
	type cand struct {
		l     Level
		batch float64
	}
	var lows []cand
	for _, l := range levels {
		if math.IsNaN(l.E2E.Mean) && l.TTFT.Mean > 0 && l.TPOT.Mean > 0 && l.MeanOutput >= 1 {
			// vLLM's bench saves no e2el unless --percentile-metrics
			// names it; its TPOT is (e2el − ttft)/(output − 1).
			l.E2E.Mean = l.TTFT.Mean + l.TPOT.Mean*(l.MeanOutput-1)
			notes = append(notes, fmt.Sprintf("%s (%s): no E2E in the file; taken as TTFT + TPOT × (output − 1) = %.4g s from the means (an approximation when outputs vary; %s)",
				l.File, l.Label, l.E2E.Mean, e2eHint(l.Tool)))
		}
		decode := l.E2E.Mean - l.TTFT.Mean
		b := math.NaN()
		switch {
		case l.Throughput > 0 && decode > 0:
			b = l.Throughput * decode
		case l.Concurrency > 0 && decode > 0 && l.E2E.Mean > 0:
			b = l.Concurrency * decode / l.E2E.Mean
		}
		if math.IsNaN(b) || math.IsNaN(l.TPOT.Mean) || !(l.TPOT.Mean > 0) || math.IsNaN(l.MeanInput) || math.IsNaN(l.MeanOutput) {
			notes = append(notes, fmt.Sprintf("%s (%s): not enough figures for a decode step: %s", l.File, l.Label, missingFigures(l)))
			continue
		}
		n := max(1, int(math.Round(b)))
		ctx := float64(n) * (l.MeanInput + l.MeanOutput/2)
		ms = append(ms, perf.Measurement{Batch: perf.Batch{Decode: n, Context: ctx}, Seconds: l.TPOT.Mean,
			Label: fmt.Sprintf("%s %s: decode, %.1f in flight decoding (Little's law)", l.Tool, l.Label, b)})
		lows = append(lows, cand{l, b})
	}
	if len(lows) == 0 {
		return ms, notes
	}
	sort.SliceStable(lows, func(i, j int) bool { return lows[i].batch < lows[j].batch })
	low := lows[0]
	if low.batch > 2 {
		notes = append(notes, fmt.Sprintf("no level ran with two or fewer requests in flight (the lightest had %.1f), so its TTFT is mostly queueing: no prefill steps; measure at concurrency 1", low.batch))
		return ms, notes
	}
	l := low.l
	if len(l.Requests) >= 8 {
		rs := append([]Request(nil), l.Requests...)
		sort.Slice(rs, func(i, j int) bool { return rs[i].Input < rs[j].Input })
		bins := min(8, len(rs)/4)
		for k := 0; k < bins; k++ {
			part := rs[k*len(rs)/bins : (k+1)*len(rs)/bins]
			var in float64
			var ttft []float64
			for _, r := range part {
				in += float64(r.Input)
				ttft = append(ttft, r.TTFT)
			}
			p := int(math.Round(in / float64(len(part))))
			ms = append(ms, prefillStep(p, statsOf(ttft).P50, fmt.Sprintf("%s %s: prefill of %d tokens, median TTFT of %d requests", l.Tool, l.Label, p, len(part))))
		}
		return ms, notes
	}
	if !math.IsNaN(l.TTFT.P50) && l.MeanInput >= 1 {
		p := int(math.Round(l.MeanInput))
		ms = append(ms, prefillStep(p, l.TTFT.P50, fmt.Sprintf("%s %s: prefill of %d tokens, median TTFT", l.Tool, l.Label, p)))
	}
	return ms, notes
}

func prefillStep(tokens int, seconds float64, label string) perf.Measurement {
	return perf.Measurement{Batch: perf.Batch{Prefill: tokens, PrefillSeqs: 1, Context: float64(tokens), PrefillContext: float64(tokens)},
		Seconds: seconds, Label: label}
}

// missingFigures names what a level lacks for a decode step, and how to
// get it from the tool.
func missingFigures(l Level) string {
	var miss []string
	if !(l.TPOT.Mean > 0) {
		miss = append(miss, "mean TPOT")
	}
	if math.IsNaN(l.E2E.Mean) {
		miss = append(miss, "mean E2E")
	}
	if math.IsNaN(l.TTFT.Mean) {
		miss = append(miss, "mean TTFT")
	}
	if math.IsNaN(l.MeanInput) || math.IsNaN(l.MeanOutput) {
		miss = append(miss, "input and output tokens")
	}
	if !(l.Throughput > 0) && !(l.Concurrency > 0) {
		miss = append(miss, "throughput or concurrency")
	}
	if len(miss) == 0 {
		return "E2E is not above TTFT"
	}
	s := "no " + strings.Join(miss, ", ")
	if math.IsNaN(l.E2E.Mean) || !(l.TPOT.Mean > 0) || math.IsNaN(l.TTFT.Mean) {
		s += " (" + e2eHint(l.Tool) + ")"
	}
	return s
}

// e2eHint says how to make a tool save the latencies a decode step needs.
func e2eHint(tool string) string {
	if tool == ToolVLLM {
		return "run vllm bench serve with --percentile-metrics ttft,tpot,itl,e2el to save them"
	}
	return "save TTFT, TPOT and end-to-end latency in the results"
}
