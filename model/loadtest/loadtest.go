// Package loadtest reads the result files of the load testers planners
// run against LLM endpoints (vLLM's bench serve, GuideLLM, LLMPerf,
// genai-perf and its successor AIPerf) into one form, converting each
// tool's metrics to a common definition rather than reading names at face
// value, and fits Headroom's models to them: a hosted provider's latency
// model (hosted.go) and, for a self-hosted engine, the measured steps the
// cluster step-model fit takes (steps.go).
//
// The common definitions, in seconds:
//
//   - TTFT: from sending the request to the first output token;
//   - E2E: from sending the request to the last token;
//   - TPOT: the decode time per token after the first,
//     (E2E − TTFT) / (output − 1), Headroom's tpot.
//
// How each tool defines its own names, and the conversion:
//
//   - vLLM bench serve: ttft and e2el as above; tpot as above ("excl. 1st
//     token"); itl is the gap between streamed chunks, pooled over all
//     requests (a chunk can carry several tokens), so it is not used.
//   - GuideLLM: time_to_first_token_ms and request_latency as above;
//     inter_token_latency_ms is (last − first token) / (output − 1), the
//     TPOT above; time_per_output_token_ms includes the first token (from
//     version 0.3 it is (last token − request start) / output) and is not
//     used.
//   - LLMPerf: ttft_s and end_to_end_latency_s as above;
//     inter_token_latency_s is the sum of every token's gap, the first
//     token's TTFT included, divided by the output tokens, so it is about
//     E2E / output: TPOT is recomputed from ttft_s and end_to_end_latency_s
//     (for the summary, from their means).
//   - genai-perf and AIPerf: time_to_first_token and request_latency as
//     above; inter_token_latency is (request_latency − ttft) /
//     (output − 1), the TPOT above. Times are in milliseconds.
//   - genai-perf's raw profile_export.json (perf_analyzer's timestamps):
//     converted per request as genai-perf does (perfanalyzer.go).
package loadtest

import (
	"fmt"
	"math"
	"slices"
)

// Tools.
const (
	ToolVLLM     = "vllm"
	ToolGuideLLM = "guidellm"
	ToolLLMPerf  = "llmperf"
	ToolGenAI    = "genai-perf"
)

// Formats lists the tools for messages.
const Formats = "vllm, guidellm, llmperf, genai-perf"

// Request is one measured request. Times are seconds; TPOT is NaN for a
// request of fewer than two output tokens.
type Request struct {
	Input, Output  int
	TTFT, E2E      float64
	TPOT           float64
	Start          float64 // seconds from the run's start when known, else NaN
	SourceLocation string  // where it is in the file, for messages
}

// Stats summarise one metric of a level in seconds; a field the file does
// not give is NaN.
type Stats struct {
	Mean, P50, P90, P99 float64
}

func nanStats() Stats { return Stats{math.NaN(), math.NaN(), math.NaN(), math.NaN()} }

// Level is one load level: one run of a tool at one concurrency or rate.
type Level struct {
	Tool  string
	File  string
	Label string // e.g. "concurrency 8", "rate 4/s"
	// Concurrency is the configured number of requests in flight (closed
	// loop), 0 when not given; Rate the configured requests per second
	// (open loop), 0 when not given, +Inf for "as fast as possible".
	Concurrency float64
	Rate        float64
	// Completed and Failed count requests; DurationS is the run's length
	// when the file gives it (else NaN); Throughput is completed requests
	// per second (NaN when unknown).
	Completed, Failed int
	DurationS         float64
	Throughput        float64
	// MeanInput and MeanOutput are tokens per completed request.
	MeanInput, MeanOutput float64
	TTFT, TPOT, E2E       Stats
	// Requests are the per-request rows, when the file has them.
	Requests []Request
	// Notes say which of the tool's figures were converted and how.
	Notes []string

	// estIn and estOut say that every request's input or output tokens
	// were estimated (genai-perf's raw export without usage), so that
	// genai-perf's own means can correct them (pairGenAIPerf).
	estIn, estOut bool
}

// Error is a problem with a load-test file, at a line when Line > 0.
type Error struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: msg".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// maxSeconds bounds any time read: a latency above a day is a unit mistake.
const maxSeconds = 86400

// maxRequests bounds the per-request rows kept from one file.
const maxRequests = 10_000_000

// checkTime checks a time in seconds.
func checkTime(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > maxSeconds {
		return fmt.Errorf("%v s is not a time between 0 and a day", v)
	}
	return nil
}

// checkTokens checks a token count.
func checkTokens(v float64) (int, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1<<30 || v != math.Trunc(v) {
		return 0, fmt.Errorf("%v is not a whole number of tokens between 0 and 2^30", v)
	}
	return int(v), nil
}

// newRequest builds a request from its tokens and times, computing TPOT.
func newRequest(in, out int, ttft, e2e float64) Request {
	r := Request{Input: in, Output: out, TTFT: ttft, E2E: e2e, TPOT: math.NaN(), Start: math.NaN()}
	if out >= 2 && e2e >= ttft {
		r.TPOT = (e2e - ttft) / float64(out-1)
	}
	return r
}

// summarize fills a level's means and percentiles from its requests where
// the file gave none, so that every level has the same figures.
func (l *Level) summarize() {
	if len(l.Requests) == 0 {
		return
	}
	var in, out float64
	var ttft, tpot, e2e []float64
	for _, r := range l.Requests {
		in += float64(r.Input)
		out += float64(r.Output)
		ttft = append(ttft, r.TTFT)
		e2e = append(e2e, r.E2E)
		if !math.IsNaN(r.TPOT) {
			tpot = append(tpot, r.TPOT)
		}
	}
	n := float64(len(l.Requests))
	if math.IsNaN(l.MeanInput) {
		l.MeanInput = in / n
	}
	if math.IsNaN(l.MeanOutput) {
		l.MeanOutput = out / n
	}
	fill := func(s *Stats, v []float64) {
		if len(v) == 0 {
			return
		}
		st := statsOf(v)
		if math.IsNaN(s.Mean) {
			s.Mean = st.Mean
		}
		if math.IsNaN(s.P50) {
			s.P50 = st.P50
		}
		if math.IsNaN(s.P90) {
			s.P90 = st.P90
		}
		if math.IsNaN(s.P99) {
			s.P99 = st.P99
		}
	}
	fill(&l.TTFT, ttft)
	fill(&l.TPOT, tpot)
	fill(&l.E2E, e2e)
	if l.Completed == 0 {
		l.Completed = len(l.Requests)
	}
}

// statsOf computes mean and percentiles (linear interpolation between
// closest ranks, as numpy's default).
func statsOf(v []float64) Stats {
	s := append([]float64(nil), v...)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	q := func(p float64) float64 {
		if len(s) == 1 {
			return s[0]
		}
		r := p * float64(len(s)-1)
		i := int(math.Floor(r))
		if i >= len(s)-1 {
			return s[len(s)-1]
		}
		return s[i] + (r-float64(i))*(s[i+1]-s[i])
	}
	return Stats{Mean: sum / float64(len(s)), P50: q(0.5), P90: q(0.9), P99: q(0.99)}
}
