package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// LLMPerf writes two files per run, NAME_summary.json (the run's figures
// as flat keys "results_ttft_s_mean", "results_end_to_end_latency_s_quantiles_p99",
// …, and its num_concurrent_requests) and NAME_individual_responses.json
// (one object per request: ttft_s, end_to_end_latency_s,
// number_input_tokens, number_output_tokens, error_code). Either file is
// read with its sibling when that exists.

const (
	llmperfSummary    = "_summary.json"
	llmperfIndividual = "_individual_responses.json"
)

// llmperfBase is the run's name for a file of the run, or "".
func llmperfBase(path string) string {
	for _, suf := range []string{llmperfSummary, llmperfIndividual} {
		if strings.HasSuffix(path, suf) {
			return strings.TrimSuffix(path, suf)
		}
	}
	return ""
}

// readLLMPerfRun reads a run from whichever of its files exist; d is the
// file given, already decoded as summary (m) or individual responses
// (rows).
func readLLMPerfRun(d *doc, m map[string]json.RawMessage, rows []json.RawMessage) ([]Level, error) {
	l := Level{Tool: ToolLLMPerf, File: d.file, TTFT: nanStats(), TPOT: nanStats(), E2E: nanStats(),
		DurationS: math.NaN(), Throughput: math.NaN(), MeanInput: math.NaN(), MeanOutput: math.NaN(), Label: "run"}
	sumDoc, indDoc := d, d
	if base := llmperfBase(d.file); base != "" {
		if m == nil {
			if sd, sm, err := readSibling(base + llmperfSummary); err == nil && sm != nil {
				sumDoc, m = sd, sm
			}
		} else if rows == nil {
			if id, err := readSiblingRows(base + llmperfIndividual); err == nil {
				indDoc = id
				json.Unmarshal(id.data, &rows)
			}
		}
	}
	if m != nil {
		if err := llmperfSummaryFigures(sumDoc, m, &l); err != nil {
			return nil, err
		}
	}
	if rows != nil {
		l.Failed = 0 // counted from the rows, not the summary's errors
	}
	for i, raw := range rows {
		path := fmt.Sprintf("[%d]", i)
		r, ok := object(raw)
		if !ok {
			return nil, indDoc.errAt(path, "expected a response object")
		}
		if code, ok := r["error_code"]; ok && string(code) != "null" {
			l.Failed++
			continue
		}
		get := func(key string) (float64, error) {
			v, ok, err := number(r, key)
			if err != nil {
				return 0, indDoc.errAt(path+"."+key, "%v", err)
			}
			if !ok {
				return 0, indDoc.errAt(path+"."+key, "missing")
			}
			return v, nil
		}
		vals := map[string]float64{}
		for _, k := range []string{"ttft_s", "end_to_end_latency_s", "number_input_tokens", "number_output_tokens"} {
			v, err := get(k)
			if err != nil {
				return nil, err
			}
			vals[k] = v
		}
		in, err := checkTokens(vals["number_input_tokens"])
		if err != nil {
			return nil, indDoc.errAt(path+".number_input_tokens", "%v", err)
		}
		out, err := checkTokens(vals["number_output_tokens"])
		if err != nil {
			return nil, indDoc.errAt(path+".number_output_tokens", "%v", err)
		}
		ttft, e2e := vals["ttft_s"], vals["end_to_end_latency_s"]
		if err := checkTime(ttft); err != nil {
			return nil, indDoc.errAt(path+".ttft_s", "%v", err)
		}
		if err := checkTime(e2e); err != nil || e2e < ttft {
			return nil, indDoc.errAt(path+".end_to_end_latency_s", "%v s: want a time between its ttft_s and a day", e2e)
		}
		rq := newRequest(in, out, ttft, e2e)
		rq.SourceLocation = path
		l.Requests = append(l.Requests, rq)
		if len(l.Requests) > maxRequests {
			return nil, indDoc.errAt(path, "more than %d requests", maxRequests)
		}
	}
	if len(rows) > 0 {
		// The per-request TPOT replaces the summary's estimate.
		l.TPOT = nanStats()
	}
	l.Notes = append(l.Notes, "LLMPerf's inter_token_latency_s includes the first token (about end_to_end_latency_s / output tokens); TPOT is recomputed as (end_to_end_latency_s − ttft_s)/(output − 1)")
	if math.IsNaN(l.TTFT.Mean) && len(l.Requests) == 0 {
		return nil, &Error{File: d.file, Msg: "no TTFT: expected results_ttft_s_mean or per-request ttft_s"}
	}
	l.summarize()
	return []Level{l}, nil
}

// llmperfSummaryFigures reads the summary's flat keys.
func llmperfSummaryFigures(d *doc, m map[string]json.RawMessage, l *Level) error {
	get := func(key string) (float64, bool, error) {
		v, ok, err := number(m, key)
		if err != nil {
			return v, false, d.errAt(key, "%v", err)
		}
		if ok && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
			return v, false, d.errAt(key, "%v: want a finite number >= 0", v)
		}
		return v, ok, nil
	}
	if v, ok, err := get("num_concurrent_requests"); err != nil {
		return err
	} else if ok {
		if !(v >= 1 && v <= 1e7) {
			return d.errAt("num_concurrent_requests", "%v: want a concurrency of at least 1", v)
		}
		l.Concurrency = v
		l.Label = fmt.Sprintf("concurrency %g", v)
	}
	for _, f := range []struct {
		metric string
		dst    *Stats
	}{{"ttft_s", &l.TTFT}, {"end_to_end_latency_s", &l.E2E}} {
		for _, q := range []struct {
			suffix string
			dst    *float64
		}{{"_mean", &f.dst.Mean}, {"_quantiles_p50", &f.dst.P50}, {"_quantiles_p90", &f.dst.P90}, {"_quantiles_p99", &f.dst.P99}} {
			key := "results_" + f.metric + q.suffix
			v, ok, err := get(key)
			if err != nil {
				return err
			}
			if ok {
				if err := checkTime(v); err != nil {
					return d.errAt(key, "%v", err)
				}
				*q.dst = v
			}
		}
	}
	for _, f := range []struct {
		key string
		dst *float64
	}{{"results_number_input_tokens_mean", &l.MeanInput}, {"results_number_output_tokens_mean", &l.MeanOutput}} {
		if v, ok, err := get(f.key); err != nil {
			return err
		} else if ok {
			*f.dst = v
		}
	}
	if v, ok, err := get("results_num_completed_requests"); err != nil {
		return err
	} else if ok {
		l.Completed = int(math.Min(v, maxRequests))
	}
	if v, ok, err := get("results_number_errors"); err != nil {
		return err
	} else if ok {
		l.Failed = int(math.Min(v, maxRequests))
	}
	if v, ok, err := get("results_num_completed_requests_per_min"); err != nil {
		return err
	} else if ok {
		l.Throughput = v / 60
	}
	// Only the means convert: the percentiles of (e2e − ttft)/(out − 1)
	// cannot be had from those of e2e and ttft.
	if !math.IsNaN(l.E2E.Mean) && !math.IsNaN(l.TTFT.Mean) && l.MeanOutput > 1 {
		l.TPOT.Mean = (l.E2E.Mean - l.TTFT.Mean) / (l.MeanOutput - 1)
	}
	return nil
}

// readSibling reads another file of the run as an object.
func readSibling(path string) (*doc, map[string]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	d := &doc{file: path, data: sanitize(b)}
	m, ok := object(d.data)
	if !ok {
		return nil, nil, fmt.Errorf("not an object")
	}
	return d, m, nil
}

// readSiblingRows reads another file of the run as a list.
func readSiblingRows(path string) (*doc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &doc{file: path, data: sanitize(b)}, nil
}
