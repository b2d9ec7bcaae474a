package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
)

// readGuideLLM reads a GuideLLM benchmark report: one level per entry of
// "benchmarks", each with its strategy (config.strategy, or args.strategy
// in older reports), metrics (distributions split by successful,
// incomplete and errored requests) and, when saved, per-request rows under
// requests.successful.
func readGuideLLM(d *doc, m map[string]json.RawMessage) ([]Level, error) {
	var benches []json.RawMessage
	if err := json.Unmarshal(m["benchmarks"], &benches); err != nil {
		return nil, d.errAt("benchmarks", "expected a list of benchmarks")
	}
	if len(benches) == 0 {
		return nil, d.errAt("benchmarks", "is empty: the report has no benchmark")
	}
	var out []Level
	for i, raw := range benches {
		at := fmt.Sprintf("benchmarks[%d]", i)
		b, ok := object(raw)
		if !ok {
			return nil, d.errAt(at, "expected a benchmark object")
		}
		l := Level{Tool: ToolGuideLLM, File: d.file, TTFT: nanStats(), TPOT: nanStats(), E2E: nanStats(),
			DurationS: math.NaN(), Throughput: math.NaN(), MeanInput: math.NaN(), MeanOutput: math.NaN()}
		if err := guideStrategy(d, b, at, &l); err != nil {
			return nil, err
		}
		if mt, ok := object(b["metrics"]); ok {
			for _, f := range []struct {
				key   string
				dst   *Stats
				scale float64
			}{{"time_to_first_token_ms", &l.TTFT, 1e-3}, {"inter_token_latency_ms", &l.TPOT, 1e-3}, {"request_latency", &l.E2E, 1}} {
				if err := guideDist(d, mt, at+".metrics."+f.key, f.key, f.dst, f.scale); err != nil {
					return nil, err
				}
			}
			var tmp Stats
			for _, f := range []struct {
				key string
				dst *float64
			}{{"prompt_token_count", &l.MeanInput}, {"output_token_count", &l.MeanOutput}, {"requests_per_second", &l.Throughput}} {
				tmp = nanStats()
				if err := guideDist(d, mt, at+".metrics."+f.key, f.key, &tmp, 1); err != nil {
					return nil, err
				}
				if !math.IsNaN(tmp.Mean) {
					*f.dst = tmp.Mean
				}
			}
			if _, ok := mt["time_per_output_token_ms"]; ok {
				l.Notes = append(l.Notes, "time_per_output_token_ms (which includes the first token) is not used; TPOT is inter_token_latency_ms, the decode time per token after the first")
			}
		}
		if err := guideRequests(d, b, at, &l); err != nil {
			return nil, err
		}
		if math.IsNaN(l.TTFT.Mean) && len(l.Requests) == 0 {
			return nil, d.errAt(at, "no time_to_first_token_ms in its metrics and no per-request rows")
		}
		l.summarize()
		out = append(out, l)
	}
	return out, nil
}

// guideStrategy reads a benchmark's load strategy.
func guideStrategy(d *doc, b map[string]json.RawMessage, at string, l *Level) error {
	var st map[string]json.RawMessage
	path := ""
	for _, parent := range []string{"config", "args"} {
		if p, ok := object(b[parent]); ok {
			if s, ok := object(p["strategy"]); ok {
				st, path = s, at+"."+parent+".strategy"
				break
			}
		}
	}
	l.Label = "benchmark"
	if st == nil {
		return nil
	}
	var kind string
	json.Unmarshal(st["type_"], &kind)
	if streams, ok, err := number(st, "streams"); err != nil {
		return d.errAt(path+".streams", "%v", err)
	} else if ok {
		if !(streams >= 1 && streams <= 1e7) {
			return d.errAt(path+".streams", "%v: want a concurrency of at least 1", streams)
		}
		l.Concurrency = streams
	}
	if rate, ok, err := number(st, "rate"); err != nil {
		return d.errAt(path+".rate", "%v", err)
	} else if ok {
		if !(rate > 0) {
			return d.errAt(path+".rate", "%v: want a rate > 0", rate)
		}
		l.Rate = rate
	}
	switch {
	case kind == "synchronous":
		l.Concurrency = 1
		l.Label = "synchronous"
	case l.Concurrency > 0:
		l.Label = fmt.Sprintf("concurrency %g", l.Concurrency)
	case l.Rate > 0:
		l.Label = fmt.Sprintf("%s rate %g/s", kind, l.Rate)
	case kind != "":
		l.Label = kind
	}
	return nil
}

// guideDist reads a distribution's successful mean, median and
// percentiles, times scale.
func guideDist(d *doc, mt map[string]json.RawMessage, path, key string, dst *Stats, scale float64) error {
	m, ok := object(mt[key])
	if !ok {
		return nil
	}
	if s, ok := object(m["successful"]); ok {
		m, path = s, path+".successful"
	}
	pct, _ := object(m["percentiles"])
	for _, f := range []struct {
		src  map[string]json.RawMessage
		key  string
		dst  *float64
		path string
	}{{m, "mean", &dst.Mean, path + ".mean"}, {m, "median", &dst.P50, path + ".median"},
		{pct, "p50", &dst.P50, path + ".percentiles.p50"}, {pct, "p90", &dst.P90, path + ".percentiles.p90"}, {pct, "p99", &dst.P99, path + ".percentiles.p99"}} {
		if f.src == nil {
			continue
		}
		v, ok, err := number(f.src, f.key)
		if err != nil {
			return d.errAt(f.path, "%v", err)
		}
		if !ok {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v*scale > 1e9 {
			return d.errAt(f.path, "%v: want a finite number >= 0", v)
		}
		*f.dst = v * scale
	}
	return nil
}

// guideRequests reads the successful requests' rows.
func guideRequests(d *doc, b map[string]json.RawMessage, at string, l *Level) error {
	reqs, ok := object(b["requests"])
	if !ok {
		return nil
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(reqs["successful"], &rows); err != nil {
		return nil
	}
	if len(rows) > maxRequests {
		return d.errAt(at+".requests.successful", "more than %d requests", maxRequests)
	}
	if errored, ok := reqs["errored"]; ok {
		var e []json.RawMessage
		if json.Unmarshal(errored, &e) == nil {
			l.Failed = len(e)
		}
	}
	for j, raw := range rows {
		path := fmt.Sprintf("%s.requests.successful[%d]", at, j)
		r, ok := object(raw)
		if !ok {
			return d.errAt(path, "expected a request object")
		}
		get := func(key string) (float64, error) {
			v, ok, err := number(r, key)
			if err != nil {
				return 0, d.errAt(path+"."+key, "%v", err)
			}
			if !ok {
				return 0, d.errAt(path+"."+key, "missing")
			}
			return v, nil
		}
		inF, err := get("prompt_tokens")
		if err != nil {
			return err
		}
		outF, err := get("output_tokens")
		if err != nil {
			return err
		}
		in, err := checkTokens(inF)
		if err != nil {
			return d.errAt(path+".prompt_tokens", "%v", err)
		}
		outN, err := checkTokens(outF)
		if err != nil {
			return d.errAt(path+".output_tokens", "%v", err)
		}
		ttftMs, err := get("time_to_first_token_ms")
		if err != nil {
			return err
		}
		e2e, err := get("request_latency")
		if err != nil {
			return err
		}
		if err := checkTime(ttftMs / 1000); err != nil {
			return d.errAt(path+".time_to_first_token_ms", "%v ms: want a time between 0 and a day", ttftMs)
		}
		if err := checkTime(e2e); err != nil || e2e < ttftMs/1000 {
			return d.errAt(path+".request_latency", "%v s: want a time between its TTFT and a day", e2e)
		}
		rq := newRequest(in, outN, ttftMs/1000, e2e)
		rq.SourceLocation = path
		l.Requests = append(l.Requests, rq)
	}
	return nil
}
