package loadtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// readGenAIPerf reads genai-perf's profile_export_genai_perf.json: one
// object per metric ({"unit": "ms", "avg": …, "p50": …, "p90": …, "p99":
// …}) and the run's input_config.
func readGenAIPerf(d *doc, m map[string]json.RawMessage) ([]Level, error) {
	l := Level{Tool: ToolGenAI, File: d.file, TTFT: nanStats(), TPOT: nanStats(), E2E: nanStats(),
		DurationS: math.NaN(), Throughput: math.NaN(), MeanInput: math.NaN(), MeanOutput: math.NaN(), Label: "run"}
	for _, f := range []struct {
		key string
		dst *Stats
	}{{"time_to_first_token", &l.TTFT}, {"inter_token_latency", &l.TPOT}, {"request_latency", &l.E2E}} {
		if err := genaiStat(d, m, f.key, f.dst, true); err != nil {
			return nil, err
		}
	}
	var tmp Stats
	for _, f := range []struct {
		key string
		dst *float64
	}{{"input_sequence_length", &l.MeanInput}, {"output_sequence_length", &l.MeanOutput}, {"request_throughput", &l.Throughput}} {
		tmp = nanStats()
		if err := genaiStat(d, m, f.key, &tmp, false); err != nil {
			return nil, err
		}
		*f.dst = tmp.Mean
	}
	if ic, ok := object(m["input_config"]); ok {
		find := func(key string) (float64, bool) {
			if v, ok, err := number(ic, key); err == nil && ok {
				return v, true
			}
			if pa, ok := object(ic["perf_analyzer"]); ok {
				if st, ok := object(pa["stimulus"]); ok {
					if v, ok, err := number(st, key); err == nil && ok {
						return v, true
					}
				}
			}
			return 0, false
		}
		if v, ok := find("concurrency"); ok && v >= 1 && v <= 1e7 {
			l.Concurrency = v
			l.Label = fmt.Sprintf("concurrency %g", v)
		}
		if v, ok := find("request_rate"); ok && v > 0 && !math.IsInf(v, 0) {
			l.Rate = v
			l.Label = fmt.Sprintf("rate %g/s", v)
		}
	}
	if math.IsNaN(l.TTFT.Mean) {
		return nil, &Error{File: d.file, Msg: "no time_to_first_token: genai-perf reports it for streaming endpoints (--streaming)"}
	}
	return []Level{l}, nil
}

// genaiStat reads one metric object; times convert by their unit.
func genaiStat(d *doc, m map[string]json.RawMessage, key string, dst *Stats, isTime bool) error {
	o, ok := object(m[key])
	if !ok {
		return nil
	}
	scale := 1.0
	if isTime {
		var unit string
		json.Unmarshal(o["unit"], &unit)
		switch unit {
		case "ms", "":
			scale = 1e-3
		case "s", "sec":
			scale = 1
		case "us":
			scale = 1e-6
		case "ns":
			scale = 1e-9
		default:
			return d.errAt(key+".unit", "unit %q: expected ms, s, us or ns", unit)
		}
	}
	for _, q := range []struct {
		k   string
		dst *float64
	}{{"avg", &dst.Mean}, {"p50", &dst.P50}, {"p90", &dst.P90}, {"p99", &dst.P99}} {
		v, ok, err := number(o, q.k)
		if err != nil {
			return d.errAt(key+"."+q.k, "%v", err)
		}
		if !ok {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (isTime && v*scale > maxSeconds) || v > 1e12 {
			return d.errAt(key+"."+q.k, "%v: want a finite number >= 0 (times under a day)", v)
		}
		*q.dst = v * scale
	}
	return nil
}

// readAIPerfRecords reads AIPerf's per-request profile export (JSON lines,
// each with metrics {"time_to_first_token": {"value": …, "unit": "ms"},
// …} and an error or null).
func readAIPerfRecords(d *doc) ([]Level, error) {
	l := Level{Tool: ToolGenAI, File: d.file, TTFT: nanStats(), TPOT: nanStats(), E2E: nanStats(),
		DurationS: math.NaN(), Throughput: math.NaN(), MeanInput: math.NaN(), MeanOutput: math.NaN(), Label: "per-request records"}
	sc := bufio.NewScanner(bytes.NewReader(d.data))
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		bad := func(format string, a ...any) error {
			return &Error{File: d.file, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		rec, ok := object(text)
		if !ok {
			return nil, bad("expected a JSON record with metrics")
		}
		if e, ok := rec["error"]; ok && string(e) != "null" {
			l.Failed++
			continue
		}
		mt, ok := object(rec["metrics"])
		if !ok {
			return nil, bad("expected a metrics object")
		}
		val := func(key string, isTime bool) (float64, error) {
			o, ok := object(mt[key])
			if !ok {
				return 0, bad("metrics.%s: missing", key)
			}
			v, ok, err := number(o, "value")
			if err != nil || !ok {
				return 0, bad("metrics.%s.value: expected a number", key)
			}
			if isTime {
				var unit string
				json.Unmarshal(o["unit"], &unit)
				switch unit {
				case "ms", "":
					v /= 1e3
				case "s":
				case "us":
					v /= 1e6
				case "ns":
					v /= 1e9
				default:
					return 0, bad("metrics.%s.unit %q: expected ms, s, us or ns", key, unit)
				}
				if err := checkTime(v); err != nil {
					return 0, bad("metrics.%s: %v", key, err)
				}
			}
			return v, nil
		}
		ttft, err := val("time_to_first_token", true)
		if err != nil {
			return nil, err
		}
		e2e, err := val("request_latency", true)
		if err != nil {
			return nil, err
		}
		inF, err := val("input_sequence_length", false)
		if err != nil {
			return nil, err
		}
		outF, err := val("output_sequence_length", false)
		if err != nil {
			return nil, err
		}
		in, err1 := checkTokens(inF)
		out, err2 := checkTokens(outF)
		if err1 != nil || err2 != nil || e2e < ttft {
			return nil, bad("want whole token counts and request_latency >= time_to_first_token")
		}
		r := newRequest(in, out, ttft, e2e)
		r.SourceLocation = fmt.Sprintf("line %d", line)
		l.Requests = append(l.Requests, r)
		if len(l.Requests) > maxRequests {
			return nil, bad("more than %d requests", maxRequests)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: d.file, Line: line + 1, Msg: err.Error()}
	}
	if len(l.Requests) == 0 {
		return nil, &Error{File: d.file, Msg: "no successful request records"}
	}
	l.summarize()
	return []Level{l}, nil
}
