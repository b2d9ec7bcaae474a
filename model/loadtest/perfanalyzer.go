package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// genai-perf's raw profile_export.json is written by perf_analyzer, which
// genai-perf drives: {"service_kind": "openai" or "triton", "endpoint":
// "v1/chat/completions", "experiments": [{"experiment": {"mode":
// "concurrency" or "request_rate", "value": N}, "requests": [{"timestamp":
// ns, "request_inputs": {...}, "response_timestamps": [ns, ...],
// "response_outputs": [{"response": "data: {...}\n\n"} or {"text_output":
// "..."}, ...]}]}]}. Times are nanoseconds of one clock.
//
// genai-perf's own metrics from it, which these are converted to as it
// defines them: responses without text (the role-only first chunk, a
// usage-only chunk, "[DONE]") are dropped first; TTFT is the first
// remaining response's time minus the request's, request_latency the
// last's; inter_token_latency (request_latency − TTFT)/(output − 1),
// Headroom's TPOT; requests with no response left are skipped. genai-perf
// counts tokens with the model's tokenizer, which the file does not carry:
// here the counts are the server's own usage when a response reports it
// (stream_options.include_usage, vLLM's continuous usage stats), else the
// output is one token per streamed response carrying text (vLLM, TGI and
// TensorRT-LLM stream one token per event unless told otherwise) and the
// input one per four bytes of prompt text.

// readPerfAnalyzerExport reads genai-perf's raw profile_export.json: one
// level per experiment, with its requests.
func readPerfAnalyzerExport(d *doc, m map[string]json.RawMessage) ([]Level, error) {
	var kind string
	if raw, ok := m["service_kind"]; ok {
		if err := json.Unmarshal(raw, &kind); err != nil {
			return nil, d.errAt("service_kind", "expected a string (openai or triton), got %s", short(raw))
		}
	}
	switch kind {
	case "openai", "triton":
	case "":
		kind = "openai"
	default:
		return nil, d.errAt("service_kind", "%q: expected openai or triton", kind)
	}
	var exps []json.RawMessage
	if err := json.Unmarshal(m["experiments"], &exps); err != nil {
		return nil, d.errAt("experiments", "expected a list of experiments, got %s", short(m["experiments"]))
	}
	if len(exps) == 0 {
		return nil, d.errAt("experiments", "empty: the run measured nothing")
	}
	var out []Level
	for i, raw := range exps {
		at := fmt.Sprintf("experiments[%d]", i)
		e, ok := object(raw)
		if !ok {
			return nil, d.errAt(at, "expected an object with experiment and requests")
		}
		l := Level{Tool: ToolGenAI, File: d.file, TTFT: nanStats(), TPOT: nanStats(), E2E: nanStats(),
			DurationS: math.NaN(), Throughput: math.NaN(), MeanInput: math.NaN(), MeanOutput: math.NaN(), Label: fmt.Sprintf("experiment %d", i+1)}
		if ex, ok := object(e["experiment"]); ok {
			var mode string
			json.Unmarshal(ex["mode"], &mode)
			v, ok, err := number(ex, "value")
			if err != nil || ok && (math.IsNaN(v) || v <= 0 || v > 1e7) {
				return nil, d.errAt(at+".experiment.value", "expected a load level > 0, got %s", short(ex["value"]))
			}
			switch {
			case !ok:
			case mode == "concurrency":
				l.Concurrency, l.Label = v, fmt.Sprintf("concurrency %g", v)
			case mode == "request_rate":
				l.Rate, l.Label = v, fmt.Sprintf("rate %g/s", v)
			default:
				return nil, d.errAt(at+".experiment.mode", "%q: expected concurrency or request_rate", mode)
			}
		}
		var reqs []json.RawMessage
		if err := json.Unmarshal(e["requests"], &reqs); err != nil {
			return nil, d.errAt(at+".requests", "expected a list of requests, got %s", short(e["requests"]))
		}
		counted := struct{ usageIn, usageOut, events, bytesIn, streamed, empty int }{}
		first, last := math.Inf(1), math.Inf(-1)
		for j, rr := range reqs {
			rat := fmt.Sprintf("%s.requests[%d]", at, j)
			r, ok := object(rr)
			if !ok {
				return nil, d.errAt(rat, "expected an object with timestamp, request_inputs, response_timestamps and response_outputs")
			}
			ts, ok, err := number(r, "timestamp")
			if err != nil || !ok || !(ts >= 0 && ts < 1e20) {
				return nil, d.errAt(rat+".timestamp", "expected the request's time in nanoseconds, got %s", short(r["timestamp"]))
			}
			var times []json.RawMessage
			var outs []json.RawMessage
			if err := json.Unmarshal(r["response_timestamps"], &times); err != nil {
				return nil, d.errAt(rat+".response_timestamps", "expected a list of times in nanoseconds, got %s", short(r["response_timestamps"]))
			}
			if err := json.Unmarshal(r["response_outputs"], &outs); err != nil || len(outs) != len(times) {
				return nil, d.errAt(rat+".response_outputs", "expected a list of %d responses, one per response timestamp", len(times))
			}
			firstT, lastT, texts := math.NaN(), math.NaN(), 0
			usageIn, usageOut := -1, -1
			prev := ts
			for k := range times {
				t, ok, err := numberValue(times[k])
				if err != nil || !ok || !(t >= prev && t < 1e20) {
					return nil, d.errAt(fmt.Sprintf("%s.response_timestamps[%d]", rat, k), "expected a time in nanoseconds, not before the request's or the previous response's, got %s", short(times[k]))
				}
				prev = t
				n, in, outTok, err := responseText(kind, outs[k])
				if err != nil {
					return nil, d.errAt(fmt.Sprintf("%s.response_outputs[%d]", rat, k), "%v", err)
				}
				if in >= 0 {
					usageIn = in
				}
				if outTok >= 0 {
					usageOut = outTok
				}
				if n > 0 {
					if texts == 0 {
						firstT = t
					}
					lastT = t
					texts += n
				}
			}
			if texts == 0 {
				counted.empty++
				continue
			}
			if len(l.Requests) >= maxRequests {
				return nil, d.errAt(rat, "more than %d requests", maxRequests)
			}
			ttft, e2e := (firstT-ts)/1e9, (lastT-ts)/1e9
			if err := checkTime(e2e); err != nil {
				return nil, d.errAt(rat+".response_timestamps", "%v", err)
			}
			out := texts
			if usageOut > 0 {
				out, counted.usageOut = usageOut, counted.usageOut+1
			} else {
				counted.events++
			}
			in := usageIn
			if in > 0 {
				counted.usageIn++
			} else {
				b, err := promptBytes(kind, r["request_inputs"])
				if err != nil {
					return nil, d.errAt(rat+".request_inputs", "%v", err)
				}
				in, counted.bytesIn = max(1, (b+3)/4), counted.bytesIn+1
			}
			if texts > 1 {
				counted.streamed++
			}
			q := newRequest(in, out, ttft, e2e)
			q.Start = ts / 1e9
			q.SourceLocation = rat
			l.Requests = append(l.Requests, q)
			first, last = math.Min(first, ts), math.Max(last, lastT)
		}
		if len(l.Requests) == 0 {
			return nil, d.errAt(at+".requests", "no request received a response with text")
		}
		if counted.streamed == 0 {
			return nil, d.errAt(at+".requests", "every request had a single response, so the time to the first token is unknown: run genai-perf with --streaming")
		}
		for k := range l.Requests {
			l.Requests[k].Start -= first / 1e9
		}
		l.DurationS = (last - first) / 1e9
		if l.DurationS > 0 {
			l.Throughput = float64(len(l.Requests)) / l.DurationS
		}
		l.estIn, l.estOut = counted.bytesIn == len(l.Requests), counted.events == len(l.Requests)
		l.summarize()
		if counted.events > 0 {
			l.Notes = append(l.Notes, fmt.Sprintf("%s output tokens counted as their streamed responses with text (one token each), as the server reported no usage; genai-perf's own count tokenizes the text", requestsOf(counted.events)))
		}
		if counted.bytesIn > 0 {
			l.Notes = append(l.Notes, fmt.Sprintf("%s input tokens estimated as one per four bytes of prompt text, as the server reported no usage: per_input_token is only as good as that estimate (genai-perf's own count, input_sequence_length in profile_export_genai_perf.json, uses the model's tokenizer)", requestsOf(counted.bytesIn)))
		}
		if counted.empty > 0 {
			l.Notes = append(l.Notes, fmt.Sprintf("%d request(s) with no response text skipped, as genai-perf skips them", counted.empty))
		}
		out = append(out, l)
	}
	return out, nil
}

// responseText reads one perf_analyzer response: how many pieces of text
// it carries (a response can hold several server-sent events when they
// arrived together) and the usage it reports (-1 when none).
func responseText(kind string, raw json.RawMessage) (pieces, in, out int, err error) {
	in, out = -1, -1
	o, ok := object(raw)
	if !ok {
		return 0, -1, -1, fmt.Errorf("expected an object with a response")
	}
	if kind == "triton" {
		var s string
		if err := json.Unmarshal(o["text_output"], &s); err != nil {
			return 0, -1, -1, fmt.Errorf("expected text_output, a string")
		}
		if s != "" {
			pieces = 1
		}
		return pieces, in, out, nil
	}
	var s string
	if err := json.Unmarshal(o["response"], &s); err != nil {
		return 0, -1, -1, fmt.Errorf("expected response, a string")
	}
	for _, ev := range strings.Split(strings.TrimSpace(s), "\n\n") {
		ev = strings.TrimSpace(ev)
		ev = strings.TrimSpace(strings.TrimPrefix(ev, "data:"))
		if ev == "" || ev == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta   *struct{ Content *string } `json:"delta"`
				Message *struct{ Content *string } `json:"message"`
				Text    *string                    `json:"text"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens     *float64 `json:"prompt_tokens"`
				CompletionTokens *float64 `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(ev), &chunk); err != nil {
			return 0, -1, -1, fmt.Errorf("an event is not an OpenAI response: %s", shortText(ev))
		}
		text := ""
		if len(chunk.Choices) > 0 {
			c := chunk.Choices[0]
			switch {
			case c.Delta != nil && c.Delta.Content != nil:
				text = *c.Delta.Content
			case c.Message != nil && c.Message.Content != nil:
				text = *c.Message.Content
			case c.Text != nil:
				text = *c.Text
			}
		}
		if text != "" {
			pieces++
		}
		if u := chunk.Usage; u != nil {
			if u.PromptTokens != nil {
				v, err := checkTokens(*u.PromptTokens)
				if err != nil {
					return 0, -1, -1, fmt.Errorf("usage.prompt_tokens: %w", err)
				}
				in = v
			}
			if u.CompletionTokens != nil {
				v, err := checkTokens(*u.CompletionTokens)
				if err != nil {
					return 0, -1, -1, fmt.Errorf("usage.completion_tokens: %w", err)
				}
				out = v
			}
		}
	}
	return pieces, in, out, nil
}

// promptBytes is the length of a request's prompt text: an OpenAI
// payload's messages (every text part) or prompt, or Triton's text_input.
func promptBytes(kind string, raw json.RawMessage) (int, error) {
	o, ok := object(raw)
	if !ok {
		return 0, fmt.Errorf("expected an object with the request's payload")
	}
	if kind == "triton" {
		var s string
		if err := json.Unmarshal(o["text_input"], &s); err != nil {
			return 0, fmt.Errorf("expected text_input, a string")
		}
		return len(s), nil
	}
	var payload string
	if err := json.Unmarshal(o["payload"], &payload); err != nil {
		return 0, fmt.Errorf("expected payload, the request body as a string")
	}
	var p struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Prompt json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return 0, fmt.Errorf("payload is not a JSON request body: %s", shortText(payload))
	}
	n := 0
	add := func(c json.RawMessage) {
		var s string
		if json.Unmarshal(c, &s) == nil {
			n += len(s)
			return
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &parts) == nil {
			for _, pt := range parts {
				n += len(pt.Text)
			}
		}
	}
	for _, m := range p.Messages {
		add(m.Content)
	}
	if len(p.Prompt) > 0 {
		add(p.Prompt)
	}
	if n == 0 && len(p.Messages) == 0 && len(bytes.TrimSpace(p.Prompt)) == 0 {
		return 0, fmt.Errorf("the payload has neither messages nor a prompt")
	}
	return n, nil
}

// shortText shortens a text for messages.
func shortText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// requestsOf is "1 request's" or "N requests'".
func requestsOf(n int) string {
	if n == 1 {
		return "1 request's"
	}
	return fmt.Sprintf("%d requests'", n)
}

// genaiSummaryName is the summary genai-perf writes beside its raw export.
const genaiSummaryName = "profile_export_genai_perf.json"

// pairGenAIPerf corrects a raw export's estimated token counts with
// genai-perf's own means, from the summary it wrote beside the export
// (its tokenizer's counts): every request's estimate is scaled so that
// their mean is genai-perf's. Only a single-experiment export whose load
// level the summary shares is paired.
func pairGenAIPerf(path string, ls []Level) {
	if len(ls) != 1 || !(ls[0].estIn || ls[0].estOut) {
		return
	}
	sib := filepath.Join(filepath.Dir(path), genaiSummaryName)
	b, err := os.ReadFile(sib)
	if err != nil {
		return
	}
	sum, err := parse(sib, b, ToolGenAI)
	if err != nil || len(sum) != 1 || sum[0].Requests != nil {
		return
	}
	l, g := &ls[0], sum[0]
	if g.Concurrency != l.Concurrency || g.Rate != l.Rate {
		return
	}
	scale := func(est bool, want, have float64) float64 {
		if !est || math.IsNaN(want) || !(want >= 1) || !(have > 0) {
			return 1
		}
		return want / have
	}
	fi, fo := scale(l.estIn, g.MeanInput, l.MeanInput), scale(l.estOut, g.MeanOutput, l.MeanOutput)
	if fi == 1 && fo == 1 {
		return
	}
	for i, r := range l.Requests {
		in := max(1, int(math.Round(float64(r.Input)*fi)))
		out := max(1, int(math.Round(float64(r.Output)*fo)))
		q := newRequest(in, out, r.TTFT, r.E2E)
		q.Start, q.SourceLocation = r.Start, r.SourceLocation
		l.Requests[i] = q
	}
	l.MeanInput, l.MeanOutput, l.TPOT = math.NaN(), math.NaN(), nanStats()
	l.summarize()
	l.Notes = append(l.Notes, fmt.Sprintf("token estimates scaled to genai-perf's own means in %s (its tokenizer's): input ×%.3g, output ×%.3g", genaiSummaryName, fi, fo))
}
