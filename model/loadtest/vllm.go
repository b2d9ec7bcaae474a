package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
)

// readVLLM reads a `vllm bench serve --save-result` JSON: the run's
// figures, and with --save-detailed the per-request input_lens,
// output_lens, ttfts, itls (chunk gaps) and, in recent versions,
// latencies, all in seconds. Failed requests have a non-empty error.
func readVLLM(d *doc, m map[string]json.RawMessage) ([]Level, error) {
	l := Level{Tool: ToolVLLM, File: d.file, TTFT: nanStats(), TPOT: nanStats(), E2E: nanStats(),
		DurationS: math.NaN(), Throughput: math.NaN(), MeanInput: math.NaN(), MeanOutput: math.NaN()}
	get := func(key string) (float64, bool, error) {
		v, ok, err := number(m, key)
		if err != nil {
			return v, ok, d.errAt(key, "%v", err)
		}
		return v, ok, nil
	}
	if v, ok, err := get("request_rate"); err != nil {
		return nil, err
	} else if ok {
		if !(v > 0) {
			return nil, d.errAt("request_rate", "%v: want a rate > 0 (or inf)", v)
		}
		l.Rate = v
	}
	if v, ok, err := get("max_concurrency"); err != nil {
		return nil, err
	} else if ok {
		if !(v >= 1 && v <= 1e7) {
			return nil, d.errAt("max_concurrency", "%v: want a concurrency of at least 1", v)
		}
		l.Concurrency = v
	}
	switch {
	case l.Concurrency > 0 && !math.IsInf(l.Rate, 1) && l.Rate > 0:
		l.Label = fmt.Sprintf("rate %g/s, concurrency %g", l.Rate, l.Concurrency)
	case l.Concurrency > 0:
		l.Label = fmt.Sprintf("concurrency %g", l.Concurrency)
	case l.Rate > 0 && !math.IsInf(l.Rate, 1):
		l.Label = fmt.Sprintf("rate %g/s", l.Rate)
	default:
		l.Label = "all at once"
	}
	for _, f := range []struct {
		key string
		dst *float64
	}{{"duration", &l.DurationS}, {"request_throughput", &l.Throughput}} {
		v, ok, err := get(f.key)
		if err != nil {
			return nil, err
		}
		if ok {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return nil, d.errAt(f.key, "%v: want a finite number >= 0", v)
			}
			*f.dst = v
		}
	}
	var completed float64
	if v, ok, err := get("completed"); err != nil {
		return nil, err
	} else if ok {
		n, err := checkTokens(v)
		if err != nil {
			return nil, d.errAt("completed", "%v: want a count", v)
		}
		l.Completed, completed = n, v
	}
	if v, ok, err := get("failed"); err != nil {
		return nil, err
	} else if ok {
		n, err := checkTokens(v)
		if err != nil {
			return nil, d.errAt("failed", "%v: want a count", v)
		}
		l.Failed = n
	}
	for _, f := range []struct {
		key string
		dst *float64
	}{{"total_input_tokens", &l.MeanInput}, {"total_output_tokens", &l.MeanOutput}} {
		v, ok, err := get(f.key)
		if err != nil {
			return nil, err
		}
		if ok && completed > 0 {
			if math.IsNaN(v) || v < 0 || math.IsInf(v, 0) {
				return nil, d.errAt(f.key, "%v: want a token count", v)
			}
			*f.dst = v / completed
		}
	}
	for _, f := range []struct {
		metric string
		dst    *Stats
	}{{"ttft", &l.TTFT}, {"tpot", &l.TPOT}, {"e2el", &l.E2E}} {
		for _, q := range []struct {
			key string
			dst *float64
		}{{"mean_" + f.metric + "_ms", &f.dst.Mean}, {"median_" + f.metric + "_ms", &f.dst.P50},
			{"p50_" + f.metric + "_ms", &f.dst.P50}, {"p90_" + f.metric + "_ms", &f.dst.P90}, {"p99_" + f.metric + "_ms", &f.dst.P99}} {
			v, ok, err := get(q.key)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if err := checkTime(v / 1000); err != nil {
				return nil, d.errAt(q.key, "%v ms is not a time between 0 and a day", v)
			}
			*q.dst = v / 1000
		}
	}
	if _, ok := m["mean_itl_ms"]; ok {
		l.Notes = append(l.Notes, "itl (the gap between streamed chunks, which can carry several tokens) is not used; tpot is (e2el − ttft)/(output − 1) as vLLM defines it")
	}
	if err := readVLLMDetail(d, m, &l); err != nil {
		return nil, err
	}
	if math.IsNaN(l.TTFT.Mean) && len(l.Requests) == 0 {
		return nil, &Error{File: d.file, Msg: "no TTFT: expected mean_ttft_ms (vLLM computes it for streaming endpoints), or per-request ttfts from --save-detailed"}
	}
	l.summarize()
	return []Level{l}, nil
}

// readVLLMDetail reads the per-request lists of --save-detailed.
func readVLLMDetail(d *doc, m map[string]json.RawMessage, l *Level) error {
	if _, ok := m["ttfts"]; !ok {
		return nil
	}
	lists := map[string][]json.RawMessage{}
	for _, k := range []string{"input_lens", "output_lens", "ttfts", "latencies", "itls", "errors", "start_times"} {
		raw, ok := m[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var a []json.RawMessage
		if err := json.Unmarshal(raw, &a); err != nil {
			return d.errAt(k, "expected a list, one entry per request")
		}
		if len(a) > maxRequests {
			return d.errAt(k, "more than %d requests", maxRequests)
		}
		lists[k] = a
	}
	n := len(lists["ttfts"])
	for _, k := range []string{"input_lens", "output_lens"} {
		if len(lists[k]) != n {
			return d.errAt(k, "has %d entries, ttfts has %d; --save-detailed writes one per request in each", len(lists[k]), n)
		}
	}
	for _, k := range []string{"latencies", "itls", "errors", "start_times"} {
		if a, ok := lists[k]; ok && len(a) != n {
			return d.errAt(k, "has %d entries, ttfts has %d", len(a), n)
		}
	}
	if _, ok := lists["latencies"]; !ok {
		if _, ok := lists["itls"]; !ok {
			return d.errAt("ttfts", "per-request times need latencies or itls beside ttfts (vLLM writes both with --save-detailed)")
		}
		l.Notes = append(l.Notes, "per-request E2E is ttft plus the sum of its itls (the file has no latencies)")
	}
	for i := 0; i < n; i++ {
		at := func(k string) string { return fmt.Sprintf("%s[%d]", k, i) }
		if e, ok := lists["errors"]; ok {
			var msg string
			if json.Unmarshal(e[i], &msg) == nil && msg != "" {
				continue // failed
			}
		}
		num := func(k string) (float64, error) {
			v, ok, err := numberValue(lists[k][i])
			if err != nil || !ok {
				return 0, d.errAt(at(k), "expected a number")
			}
			return v, nil
		}
		inF, err := num("input_lens")
		if err != nil {
			return err
		}
		outF, err := num("output_lens")
		if err != nil {
			return err
		}
		in, err1 := checkTokens(inF)
		out, err2 := checkTokens(outF)
		if err1 != nil {
			return d.errAt(at("input_lens"), "%v", err1)
		}
		if err2 != nil {
			return d.errAt(at("output_lens"), "%v", err2)
		}
		ttft, err := num("ttfts")
		if err != nil {
			return err
		}
		if err := checkTime(ttft); err != nil {
			return d.errAt(at("ttfts"), "%v", err)
		}
		if out == 0 && ttft == 0 {
			continue // a failed request in a file without errors
		}
		var e2e float64
		if _, ok := lists["latencies"]; ok {
			if e2e, err = num("latencies"); err != nil {
				return err
			}
		} else {
			var gaps []float64
			if err := json.Unmarshal(lists["itls"][i], &gaps); err != nil {
				return d.errAt(at("itls"), "expected a list of gaps in seconds")
			}
			e2e = ttft
			for _, g := range gaps {
				e2e += g
			}
		}
		if err := checkTime(e2e); err != nil || e2e < ttft {
			return d.errAt(at("latencies"), "%v s: want a time between the request's ttft (%v s) and a day", e2e, ttft)
		}
		r := newRequest(in, out, ttft, e2e)
		r.SourceLocation = at("ttfts")
		l.Requests = append(l.Requests, r)
	}
	return nil
}
