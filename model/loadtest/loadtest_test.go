package loadtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(math.Abs(want), 1e-12) {
		t.Errorf("%s = %v, want %v (±%g%%)", what, got, want, 100*tol)
	}
}

func read1(t *testing.T, path, tool string) Level {
	t.Helper()
	ls, err := Read(path, tool)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 {
		t.Fatalf("%d levels", len(ls))
	}
	return ls[0]
}

func TestReadVLLMDetailed(t *testing.T) {
	l := read1(t, "testdata/vllm_rate4.json", "")
	if l.Tool != ToolVLLM || l.Rate != 4 || l.Label != "rate 4/s" || l.Completed != 3 || l.Failed != 1 || len(l.Requests) != 3 {
		t.Fatalf("%+v", l)
	}
	// E2E = ttft + Σ itls (the file has no latencies); TPOT = (E2E − TTFT)/9.
	for i, r := range l.Requests {
		near(t, "tpot", r.TPOT, 0.01*float64(i+1), 1e-9)
		near(t, "e2e", r.E2E, 0.1*float64(i+1)+0.09*float64(i+1), 1e-9)
	}
	near(t, "mean ttft", l.TTFT.Mean, 0.2, 1e-9)
	near(t, "mean input", l.MeanInput, 1000, 1e-9)
	if !strings.Contains(strings.Join(l.Notes, " "), "itl") {
		t.Errorf("notes %v", l.Notes)
	}
}

func TestReadVLLMInfinity(t *testing.T) {
	l := read1(t, "testdata/vllm_inf.json", ToolVLLM)
	if !math.IsInf(l.Rate, 1) || l.Concurrency != 16 || l.Label != "concurrency 16" {
		t.Errorf("rate %v concurrency %v label %q", l.Rate, l.Concurrency, l.Label)
	}
	near(t, "tpot", l.TPOT.Mean, 0.035, 1e-9)
	near(t, "p99 ttft", l.TTFT.P99, 1.2, 1e-9)
	near(t, "mean output", l.MeanOutput, 200, 1e-9)
}

// TestGuideLLMUsesITL: GuideLLM's time_per_output_token_ms includes the
// first token; TPOT is its inter_token_latency_ms.
func TestGuideLLMUsesITL(t *testing.T) {
	ls, err := Read("testdata/guidellm_report.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Label != "synchronous" || ls[0].Concurrency != 1 || ls[1].Concurrency != 8 {
		t.Fatalf("%+v", ls)
	}
	near(t, "sync TPOT", ls[0].TPOT.Mean, 0.020, 1e-9)
	near(t, "c8 TPOT", ls[1].TPOT.Mean, 0.030, 1e-9)
	near(t, "c8 throughput", ls[1].Throughput, 10, 1e-9)
	// Per request: (0.5 − 0.09)/20 and (0.5 − 0.11)/20.
	near(t, "request TPOT", ls[0].Requests[0].TPOT, 0.41/20, 1e-9)
	near(t, "c8 TTFT p99", ls[1].TTFT.P99, 0.26, 1e-9)
}

// TestLLMPerfInterTokenIncludesFirst: LLMPerf's inter_token_latency_s is
// about E2E/output; TPOT is recomputed from ttft_s and end_to_end_latency_s.
func TestLLMPerfInterTokenIncludesFirst(t *testing.T) {
	for _, f := range []string{"testdata/llmperf-c2_summary.json", "testdata/llmperf-c2_individual_responses.json"} {
		l := read1(t, f, "")
		if l.Concurrency != 2 || len(l.Requests) != 3 || l.Failed != 1 {
			t.Fatalf("%s: %+v", f, l)
		}
		// (12.42 − 0.5)/149 etc.: mean 11.92/149 = 0.0800, not 0.0806.
		near(t, "TPOT", l.TPOT.Mean, 11.92/149, 1e-9)
		if l.TPOT.Mean > 0.0801 {
			t.Errorf("TPOT %v includes the first token", l.TPOT.Mean)
		}
	}
	// Both files given: one level.
	ls, err := ReadFiles([]string{"testdata/llmperf-c2_summary.json", "testdata/llmperf-c2_individual_responses.json"}, "")
	if err != nil || len(ls) != 1 {
		t.Fatalf("%d levels, %v", len(ls), err)
	}
	// The summary alone converts its means.
	dir := t.TempDir()
	b, _ := os.ReadFile("testdata/llmperf-c2_summary.json")
	p := filepath.Join(dir, "x_summary.json")
	os.WriteFile(p, b, 0o644)
	l := read1(t, p, ToolLLMPerf)
	near(t, "summary TPOT", l.TPOT.Mean, (12.0-0.55)/149, 1e-9)
	if !math.IsNaN(l.TPOT.P99) {
		t.Errorf("TPOT p99 %v cannot be had from the summary", l.TPOT.P99)
	}
}

func TestGenAIPerfAndAIPerf(t *testing.T) {
	l := read1(t, "testdata/profile_export_genai_perf.json", "")
	if l.Tool != ToolGenAI || l.Concurrency != 4 {
		t.Fatalf("%+v", l)
	}
	near(t, "TTFT", l.TTFT.Mean, 0.25, 1e-9)
	near(t, "TPOT", l.TPOT.Mean, 0.015, 1e-9)
	near(t, "E2E p99", l.E2E.P99, 3.1, 1e-9)
	near(t, "throughput", l.Throughput, 3.2, 1e-9)
	r := read1(t, "testdata/aiperf_records.jsonl", ToolGenAI)
	if len(r.Requests) != 2 || r.Failed != 1 {
		t.Fatalf("%+v", r)
	}
	near(t, "record TPOT", r.Requests[0].TPOT, 1.0/100, 1e-9)
}

// TestPerfAnalyzerExport: genai-perf's raw profile_export.json converted
// as genai-perf defines its metrics: responses without text (the role
// chunk, a usage-only chunk, [DONE]) dropped, TTFT the first response with
// text, E2E the last, a request with none skipped; tokens from the
// server's usage when reported, else one per streamed text response and
// one per four bytes of prompt.
func TestPerfAnalyzerExport(t *testing.T) {
	l := read1(t, "testdata/profile_export.json", "")
	if l.Tool != ToolGenAI || l.Concurrency != 2 || l.Label != "concurrency 2" || len(l.Requests) != 3 {
		t.Fatalf("%+v", l)
	}
	want := []struct {
		in, out         int
		ttft, e2e, tpot float64
	}{
		{100, 4, 0.2, 0.22, 0.02 / 3}, // 400 bytes; Hello, world, and two merged events
		{812, 5, 0.3, 0.32, 0.02 / 4}, // the server's usage; the usage-only chunk is no token
		{10, 2, 0.15, 0.2, 0.05},      // a text part of 40 bytes
	}
	for i, w := range want {
		r := l.Requests[i]
		if r.Input != w.in || r.Output != w.out {
			t.Errorf("request %d: %d in, %d out; want %d, %d", i, r.Input, r.Output, w.in, w.out)
		}
		near(t, fmt.Sprintf("request %d TTFT", i), r.TTFT, w.ttft, 1e-9)
		near(t, fmt.Sprintf("request %d E2E", i), r.E2E, w.e2e, 1e-9)
		near(t, fmt.Sprintf("request %d TPOT", i), r.TPOT, w.tpot, 1e-9)
	}
	near(t, "duration", l.DurationS, 2.7, 1e-9)
	near(t, "throughput", l.Throughput, 3/2.7, 1e-9)
	notes := strings.Join(l.Notes, " ")
	for _, w := range []string{"2 requests' output tokens counted as their streamed responses", "2 requests' input tokens estimated", "1 request(s) with no response text skipped"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q: %v", w, l.Notes)
		}
	}
	// Triton's responses are text_output pieces.
	tri := `{"service_kind": "triton", "experiments": [{"experiment": {"mode": "request_rate", "value": 4}, "requests": [
{"timestamp": 0, "request_inputs": {"text_input": "abcdefgh"}, "response_timestamps": [100000000, 150000000, 200000000],
 "response_outputs": [{"text_output": "a"}, {"text_output": ""}, {"text_output": "b"}]}]}]}`
	p := filepath.Join(t.TempDir(), "profile_export.json")
	os.WriteFile(p, []byte(tri), 0o644)
	tl := read1(t, p, ToolGenAI)
	if tl.Rate != 4 || len(tl.Requests) != 1 || tl.Requests[0].Input != 2 || tl.Requests[0].Output != 2 {
		t.Fatalf("triton: %+v", tl)
	}
	near(t, "triton E2E", tl.Requests[0].E2E, 0.2, 1e-9)
}

// TestPerfAnalyzerPairedWithSummary: genai-perf's summary beside its raw
// export corrects the estimated token counts to genai-perf's own means
// (its tokenizer's), and is not read as a second level.
func TestPerfAnalyzerPairedWithSummary(t *testing.T) {
	dir := t.TempDir()
	req := func(ts int64, prompt string, n int) string {
		var times, outs []string
		for k := 0; k < n; k++ {
			times = append(times, fmt.Sprint(ts+int64(100+10*k)*1e6))
			outs = append(outs, `{"response": "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n"}`)
		}
		payload, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": prompt}}})
		pl, _ := json.Marshal(string(payload))
		return fmt.Sprintf(`{"timestamp": %d, "request_inputs": {"payload": %s}, "response_timestamps": [%s], "response_outputs": [%s]}`,
			ts, pl, strings.Join(times, ","), strings.Join(outs, ","))
	}
	export := fmt.Sprintf(`{"service_kind": "openai", "endpoint": "v1/chat/completions", "experiments": [{"experiment": {"mode": "concurrency", "value": 4}, "requests": [%s, %s]}]}`,
		req(0, strings.Repeat("x", 400), 3), req(1e9, strings.Repeat("y", 1200), 5))
	os.WriteFile(filepath.Join(dir, "profile_export.json"), []byte(export), 0o644)
	summary, _ := os.ReadFile("testdata/profile_export_genai_perf.json") // concurrency 4, input 2000, output 151 on average
	os.WriteFile(filepath.Join(dir, "profile_export_genai_perf.json"), summary, 0o644)
	ls, err := ReadFiles([]string{filepath.Join(dir, "profile_export.json"), filepath.Join(dir, "profile_export_genai_perf.json")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 {
		t.Fatalf("%d levels, want the export alone", len(ls))
	}
	l := ls[0]
	// Estimates 100 and 300 input tokens (mean 200) scaled ×10; outputs 3
	// and 5 (mean 4) scaled ×151/4.
	if l.Requests[0].Input != 1000 || l.Requests[1].Input != 3000 || l.Requests[0].Output != 113 || l.Requests[1].Output != 189 {
		t.Fatalf("requests %+v", l.Requests)
	}
	near(t, "TPOT", l.Requests[0].TPOT, 0.02/112, 1e-12)
	if !strings.Contains(strings.Join(l.Notes, " "), "scaled to genai-perf's own means") {
		t.Errorf("notes %v", l.Notes)
	}
}

// synthRequests draws requests from a known hosted latency model.
func synthRequests(n int, seed uint64) []Request {
	r := rand.New(rand.NewPCG(seed, 3))
	sT, sP := lognormalSigma(0.3), lognormalSigma(0.1)
	var out []Request
	for i := 0; i < n; i++ {
		in := 200 + r.IntN(4000)
		o := 50 + r.IntN(300)
		ttft := (0.3 + 0.0002*float64(in)) * math.Exp(sT*r.NormFloat64()-sT*sT/2)
		tpot := 0.02 * math.Exp(sP*r.NormFloat64()-sP*sP/2)
		out = append(out, newRequest(in, o, ttft, ttft+tpot*float64(o-1)))
	}
	return out
}

// writeVLLM writes requests as a vllm bench serve --save-detailed file.
func writeVLLM(t *testing.T, dir string, rate float64, rs []Request) string {
	m := map[string]any{"request_rate": rate, "duration": 100.0, "completed": len(rs)}
	var in, out []int
	var ttft, lat []float64
	for _, r := range rs {
		in, out, ttft, lat = append(in, r.Input), append(out, r.Output), append(ttft, r.TTFT), append(lat, r.E2E)
	}
	m["input_lens"], m["output_lens"], m["ttfts"], m["latencies"] = in, out, ttft, lat
	b, _ := json.Marshal(m)
	p := filepath.Join(dir, fmt.Sprintf("vllm-%g.json", rate))
	os.WriteFile(p, b, 0o644)
	return p
}

// TestFitHostedRecoversModel: requests drawn from TTFT = (0.3 s + 0.2 ms ×
// input) × lognormal(cv 0.3) and TPOT = 20 ms × lognormal(cv 0.1) are fitted
// back within 5% (cvs within 10%).
func TestFitHostedRecoversModel(t *testing.T) {
	dir := t.TempDir()
	paths := []string{writeVLLM(t, dir, 1, synthRequests(4000, 1)), writeVLLM(t, dir, 2, synthRequests(4000, 2))}
	ls, err := ReadFiles(paths, "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := FitHosted(ls)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "base", f.TTFTBase, 0.3, 0.05)
	near(t, "per token", f.TTFTPerToken, 0.0002, 0.05)
	near(t, "ttft cv", f.TTFTCV, 0.3, 0.1)
	near(t, "tpot", f.TPOT, 0.02, 0.05)
	near(t, "tpot cv", f.TPOTCV, 0.1, 0.1)
	if !f.PerTokenFitted || f.Requests != 8000 || len(f.Levels) != 2 {
		t.Errorf("%+v", f)
	}
	for _, c := range f.Levels {
		near(t, c.Label+" mean TTFT fit", c.TTFTMeanFit, c.TTFTMean, 0.05)
		near(t, c.Label+" p99 TTFT fit", c.TTFTP99Fit, c.TTFTP99, 0.15)
	}
}

// TestFitHostedAggregates: from summaries only, with constant prompts, the
// base absorbs the prompt time and the cv comes from p99 / median.
func TestFitHostedAggregates(t *testing.T) {
	ls, err := ReadFiles([]string{"testdata/profile_export_genai_perf.json"}, "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := FitHosted(ls)
	if err != nil {
		t.Fatal(err)
	}
	if f.PerTokenFitted || f.TTFTPerToken != 0 || f.TTFTBase != 0.25 || f.TPOT != 0.015 {
		t.Errorf("%+v", f)
	}
	want := cvOfSigma(math.Log(380.0/240) / z99)
	near(t, "ttft cv", f.TTFTCV, want, 1e-9)
	if !strings.Contains(strings.Join(f.Notes, " "), "per_input_token cannot be told apart") {
		t.Errorf("notes %v", f.Notes)
	}
	// Load growth is noted.
	ls, _ = ReadFiles([]string{"testdata/guidellm_report.json"}, "")
	f, _ = FitHosted(ls)
	if !strings.Contains(strings.Join(f.Notes, " "), "TTFT grows with load") {
		t.Errorf("notes %v", f.Notes)
	}
}

// TestStepMeasurements: each level gives a decode step sized by Little's
// law, and the lightest level prefill steps.
func TestStepMeasurements(t *testing.T) {
	ls, err := ReadFiles([]string{"testdata/guidellm_report.json"}, "")
	if err != nil {
		t.Fatal(err)
	}
	ms, notes := StepMeasurements(ls)
	// Synchronous: 2 req/s × (0.5 − 0.1) s = 0.8 → batch 1; concurrent:
	// 10 × (0.75 − 0.15) = 6.
	var decode []int
	for _, m := range ms {
		if m.Batch.Prefill == 0 {
			decode = append(decode, m.Batch.Decode)
		}
	}
	if fmt.Sprint(decode) != "[1 6]" || len(notes) != 0 {
		t.Fatalf("decode batches %v, notes %v", decode, notes)
	}
	last := ms[len(ms)-1]
	if last.Batch.Prefill != 1000 || last.Seconds != 0.1 {
		t.Errorf("prefill step %+v", last)
	}
}

func TestLoadTestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty.json", "", "empty file"},
		{"syntax.json", "{\n\"mean_ttft_ms\": 1,\n\"x\": }", "syntax.json:3: not valid JSON"},
		{"unknown.json", `{"a": 1}`, "cannot tell which load tester"},
		{"neg.json", "{\n  \"mean_ttft_ms\": -5\n}", "neg.json:2: mean_ttft_ms: -5 ms is not a time"},
		{"len.json", `{"ttfts": [0.1], "input_lens": [1, 2], "output_lens": [1], "latencies": [0.2]}`, "input_lens: has 2 entries, ttfts has 1"},
		{"lat.json", "{\"ttfts\": [0.1, 0.2],\n \"input_lens\": [1, 2], \"output_lens\": [3, 4],\n \"latencies\": [0.5,\n 0.1]}", "lat.json:4: latencies[1]: 0.1 s: want a time between the request's ttft"},
		{"g.json", `{"benchmarks": []}`, "benchmarks: is empty"},
		{"g2.json", "{\"benchmarks\": [{\"requests\": {\"successful\": [\n{\"prompt_tokens\": 1.5, \"output_tokens\": 2, \"time_to_first_token_ms\": 1, \"request_latency\": 1}]}}]}", "g2.json:2: benchmarks[0].requests.successful[0].prompt_tokens: 1.5 is not a whole number"},
		{"l.json", `[{"ttft_s": 1, "end_to_end_latency_s": 0.5, "number_input_tokens": 1, "number_output_tokens": 1, "error_code": null}]`, "[0].end_to_end_latency_s: 0.5 s"},
		{"a.jsonl", "{\"metadata\": {}, \"metrics\": {}, \"error\": null}\n{\"metadata\": {}, \"metrics\": {}, \"error\": null}\n", "a.jsonl:1: metrics.time_to_first_token: missing"},
		{"gp.json", `{"time_to_first_token": {"unit": "minutes", "avg": 1}}`, `time_to_first_token.unit: unit "minutes"`},
		{"pa.json", "{\"experiments\": [{\"requests\": [\n{\"timestamp\": 10, \"request_inputs\": {}, \"response_timestamps\": [5], \"response_outputs\": [{\"response\": \"\"}]}]}]}",
			"pa.json:2: experiments[0].requests[0].response_timestamps[0]: expected a time in nanoseconds, not before the request's"},
		{"pa2.json", `{"experiments": [{"requests": [{"timestamp": 1, "request_inputs": {}, "response_timestamps": [5, 6], "response_outputs": [{"response": ""}]}]}]}`,
			"experiments[0].requests[0].response_outputs: expected a list of 2 responses"},
		{"pa3.json", `{"experiments": [{"requests": [{"timestamp": 1, "request_inputs": {"payload": "{\"prompt\": \"hi\"}"}, "response_timestamps": [5], "response_outputs": [{"response": "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}"}]}]}]}`,
			"every request had a single response, so the time to the first token is unknown: run genai-perf with --streaming"},
		{"pa4.json", `{"service_kind": "grpc", "experiments": []}`, `service_kind: "grpc": expected openai or triton`},
		{"pa5.json", `{"experiments": [{"requests": [{"timestamp": 1, "request_inputs": {}, "response_timestamps": [5], "response_outputs": [{"response": "data: {nope"}]}]}]}`,
			"response_outputs[0]: an event is not an OpenAI response"},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), c.name)
		os.WriteFile(p, []byte(c.src), 0o644)
		_, err := Read(p, "")
		var le *Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &le) {
			t.Errorf("%s:\n got %v\nwant %q", c.name, err, c.want)
		}
	}
	if _, err := Read("testdata/vllm_inf.json", ToolGuideLLM); err == nil || !strings.Contains(err.Error(), "looks like vllm output") {
		t.Errorf("wrong format: %v", err)
	}
}

func FuzzLoadTestParse(f *testing.F) {
	for _, p := range []string{"vllm_rate4.json", "vllm_inf.json", "guidellm_report.json", "llmperf-c2_summary.json", "llmperf-c2_individual_responses.json", "profile_export_genai_perf.json", "aiperf_records.jsonl", "profile_export.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := parse("fuzz.json", b, "")
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		for _, l := range ls {
			for _, r := range l.Requests {
				if r.TTFT < 0 || r.E2E < r.TTFT || r.Input < 0 || r.Output < 0 {
					t.Fatalf("bad request %+v", r)
				}
			}
		}
		FitHosted(ls)
		StepMeasurements(ls)
	})
}
