package perf

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// published is one figure an engine's maintainers or a benchmark report
// published, predicted at the defaults. Never fitted to.
type published struct {
	source, setup  string
	gpu, model     string
	tp             int
	weights, kv    float64 // bytes per weight and KV element
	fp8            bool
	metric         string // "ttft" (s, batch 1), "tpot" (s), "static" (output tok/s per GPU of a static batch)
	batch, in, out int
	measured       float64
}

const (
	srcTRT  = "TensorRT-LLM docs/source/performance.md (v0.5/v0.6.1, gptSessionBenchmark, static batches)"
	srcMusg = "J. Musgrave, \"vLLM throughput-latency sweep on NVIDIA A100\" (vLLM 0.23, random 1024 in / 128 out)"
	srcIB   = "InferenceBench concurrency-sweep recipe (vLLM 0.21, fp16, H100-80GB)"
)

var publishedFigures = []published{
	// TensorRT-LLM, first-token latency at batch 1 (H100 FP8 weights and KV; A100 and L40S as stated).
	{srcTRT, "LLaMA 7B, 1×H100, FP8, 128-token prompt", "H100-SXM", "llama-2-7b", 1, 1, 1, true, "ttft", 1, 128, 1, 0.007},
	{srcTRT, "LLaMA 7B, 1×H100, FP8, 2048-token prompt", "H100-SXM", "llama-2-7b", 1, 1, 1, true, "ttft", 1, 2048, 1, 0.036},
	{srcTRT, "LLaMA 70B, 4×H100, FP8, 128-token prompt", "H100-SXM", "llama-2-70b", 4, 1, 1, true, "ttft", 1, 128, 1, 0.026},
	{srcTRT, "LLaMA 70B, 4×H100, FP8, 2048-token prompt", "H100-SXM", "llama-2-70b", 4, 1, 1, true, "ttft", 1, 2048, 1, 0.109},
	{srcTRT, "LLaMA 7B, 1×A100, FP16, 128-token prompt", "A100-80GB", "llama-2-7b", 1, 2, 2, false, "ttft", 1, 128, 1, 0.016},
	{srcTRT, "LLaMA 7B, 1×A100, FP16, 2048-token prompt", "A100-80GB", "llama-2-7b", 1, 2, 2, false, "ttft", 1, 2048, 1, 0.133},
	{srcTRT, "LLaMA 70B, 4×A100, FP16, 128-token prompt", "A100-80GB", "llama-2-70b", 4, 2, 2, false, "ttft", 1, 128, 1, 0.047},
	{srcTRT, "LLaMA 70B, 4×A100, FP16, 2048-token prompt", "A100-80GB", "llama-2-70b", 4, 2, 2, false, "ttft", 1, 2048, 1, 0.377},
	{srcTRT, "LLaMA 7B, 1×L40S, FP8, 128-token prompt", "L40S", "llama-2-7b", 1, 1, 1, true, "ttft", 1, 128, 1, 0.014},
	{srcTRT, "LLaMA 7B, 1×L40S, FP8, 2048-token prompt", "L40S", "llama-2-7b", 1, 1, 1, true, "ttft", 1, 2048, 1, 0.073},
	// TensorRT-LLM v0.6.1, static-batch throughput, output tokens/s per GPU (H100 FP8).
	{srcTRT, "LLaMA 7B, 1×H100, FP8, batch 768, 128 in / 128 out", "H100-SXM", "llama-2-7b", 1, 1, 1, true, "static", 768, 128, 128, 19694},
	{srcTRT, "LLaMA 7B, 1×H100, FP8, batch 112, 128 in / 2048 out", "H100-SXM", "llama-2-7b", 1, 1, 1, true, "static", 112, 128, 2048, 6818},
	{srcTRT, "LLaMA 7B, 1×H100, FP8, batch 80, 2048 in / 128 out", "H100-SXM", "llama-2-7b", 1, 1, 1, true, "static", 80, 2048, 128, 2244},
	{srcTRT, "LLaMA 7B, 1×H100, FP8, batch 48, 2048 in / 2048 out", "H100-SXM", "llama-2-7b", 1, 1, 1, true, "static", 48, 2048, 2048, 2740},
	{srcTRT, "LLaMA 70B, 2×H100, FP8, batch 1024, 128 in / 128 out", "H100-SXM", "llama-2-70b", 2, 1, 1, true, "static", 1024, 128, 128, 2657},
	{srcTRT, "LLaMA 70B, 4×H100, FP8, batch 480, 128 in / 2048 out", "H100-SXM", "llama-2-70b", 4, 1, 1, true, "static", 480, 128, 2048, 1486},
	{srcTRT, "LLaMA 70B, 2×H100, FP8, batch 96, 2048 in / 128 out", "H100-SXM", "llama-2-70b", 2, 1, 1, true, "static", 96, 2048, 128, 306},
	{srcTRT, "LLaMA 70B, 2×H100, FP8, batch 64, 2048 in / 2048 out", "H100-SXM", "llama-2-70b", 2, 1, 1, true, "static", 64, 2048, 2048, 547},
	// TensorRT-LLM, A100 FP16, TP1 rows (output tokens/s).
	{srcTRT, "LLaMA 7B, 1×A100, FP16, batch 384, 128 in / 128 out", "A100-80GB", "llama-2-7b", 1, 2, 2, false, "static", 384, 128, 128, 5586},
	{srcTRT, "LLaMA 7B, 1×A100, FP16, batch 60, 128 in / 2048 out", "A100-80GB", "llama-2-7b", 1, 2, 2, false, "static", 60, 128, 2048, 1928},
	{srcTRT, "LLaMA 7B, 1×A100, FP16, batch 52, 2048 in / 128 out", "A100-80GB", "llama-2-7b", 1, 2, 2, false, "static", 52, 2048, 128, 591},
	// vLLM, time per output token at one request at a time.
	{srcMusg, "Llama-3.1-8B, 1×A100-40GB, BF16, concurrency 1 (about 75 tokens/s)", "A100-40GB", "llama-3.1-8b", 1, 2, 2, false, "tpot", 1, 1024, 128, 1.0 / 75},
	{srcIB, "Llama-3.1-8B, 1×H100, FP16, concurrency 1, TPOT p50", "H100-SXM", "llama-3.1-8b", 1, 2, 2, false, "tpot", 1, 512, 128, 0.00648},
}

// predictPublished is the default roofline's figure for p.
func predictPublished(t *testing.T, p published) float64 {
	m := mustModel(t, p.model)
	m.DtypeBytes, m.KVDtypeBytes, m.FP8Compute = p.weights, p.kv, p.fp8
	r := DefaultRoofline(mustGPU(t, p.gpu), m, p.tp)
	r.Prepare()
	switch p.metric {
	case "ttft":
		return r.StepTime(Batch{PrefillSeqs: 1, Prefill: p.in, Context: float64(p.in)})
	case "tpot":
		// The mean decode step over the generation.
		var s float64
		for j := 1; j < p.out; j++ {
			s += r.StepTime(Batch{Decode: 1, Context: float64(p.in + j)})
		}
		return s / float64(p.out-1)
	case "static":
		// One context phase for the whole batch, then out−1 decode steps.
		s := r.StepTime(Batch{PrefillSeqs: p.batch, Prefill: p.batch * p.in, Context: float64(p.batch * p.in)})
		for j := 1; j < p.out; j++ {
			s += r.StepTime(Batch{Decode: p.batch, Context: float64(p.batch * (p.in + j))})
		}
		per := float64(p.batch*p.out) / s
		if p.gpu == "H100-SXM" { // the H100 table gives tokens/s per GPU
			per /= float64(p.tp)
		}
		return per
	}
	t.Fatalf("unknown metric %q", p.metric)
	return 0
}

// validationRow is one figure, measured against predicted.
type validationRow struct {
	source, setup, unit string
	measured, predicted float64
}

func (v validationRow) err() float64 { return (v.predicted - v.measured) / v.measured }

// The default roofline against published serving measurements it was not
// fitted to. Run with -v to print the README's table. The bounds are the
// figures the README states (rounded up), so a change that makes the
// defaults worse fails here and a change that makes them better says so.
func TestValidationPublished(t *testing.T) {
	var rows []validationRow
	for _, p := range publishedFigures {
		pred := predictPublished(t, p)
		unit := map[string]string{"ttft": "first-token latency", "tpot": "time per output token", "static": "output tokens/s"}[p.metric]
		rows = append(rows, validationRow{p.source, p.setup, unit, p.measured, pred})
	}
	med, worst := summarizeValidation(t, rows)
	if med > 0.22 || worst > 1.35 {
		t.Errorf("published figures: median error %.1f%%, worst %.1f%%; the README states at most 22%% and 135%%", 100*med, 100*worst)
	}
}

func summarizeValidation(t *testing.T, rows []validationRow) (median, worst float64) {
	var b strings.Builder
	b.WriteString("| Source | Setup | Figure | Measured | Predicted | Error |\n|---|---|---|---|---|---|\n")
	var abs []float64
	for _, r := range rows {
		f := func(v float64) string {
			if r.unit == "output tokens/s" {
				return fmt.Sprintf("%.0f", v)
			}
			return fmt.Sprintf("%.1f ms", v*1e3)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %+.0f%% |\n", r.source, r.setup, r.unit, f(r.measured), f(r.predicted), 100*r.err())
		abs = append(abs, math.Abs(r.err()))
	}
	sort.Float64s(abs)
	median = abs[len(abs)/2]
	if len(abs)%2 == 0 {
		median = (abs[len(abs)/2-1] + abs[len(abs)/2]) / 2
	}
	worst = abs[len(abs)-1]
	fmt.Fprintf(&b, "\n%d figures: median |error| %.1f%%, worst %.1f%%\n", len(rows), 100*median, 100*worst)
	t.Log("\n" + b.String())
	return median, worst
}

// The default roofline against the measurements in the public data it
// was fitted to (vidur: the efficiencies and per-layer cost; Splitwise: the
// collective latency only). Run with -v for the README's table.
func TestValidationSharedData(t *testing.T) {
	var b strings.Builder
	b.WriteString("| Data | Setup | Points | Median error | Worst error | Mean signed error |\n|---|---|---|---|---|---|\n")
	group := func(data, setup string, r Roofline, ms []Measurement) (med, worst float64) {
		pts, err := usable(ms)
		if err != nil {
			t.Fatal(err)
		}
		r.Prepare()
		pe := pointErrors(&r, pts)
		var abs []float64
		var signed float64
		for _, p := range pe {
			abs = append(abs, math.Abs(p.RelErr))
			signed += p.RelErr
		}
		sort.Float64s(abs)
		med, worst = abs[len(abs)/2], abs[len(abs)-1]
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f%% | %.1f%% | %+.1f%% |\n", data, setup, len(pe), 100*med, 100*worst, 100*signed/float64(len(pe)))
		return med, worst
	}
	for _, f := range vidurFiles {
		m := mustModel(t, f.model)
		ms := readVidurFile(t, f.file, m.Layers)
		med, _ := group("vidur mlp.csv", fmt.Sprintf("%s on %s, linear layers, TP 1–8", f.model, f.gpu), DefaultRoofline(mustGPU(t, f.gpu), m, 1), ms)
		if med > 0.06 {
			t.Errorf("vidur %s: median error %.1f%% at the defaults it was fitted to", f.file, 100*med)
		}
	}
	for _, hw := range []struct{ hw, gpu string }{{"a100-80gb", "A100-80GB"}, {"h100-80gb", "H100-SXM"}} {
		for _, tp := range []int{2, 4, 8} {
			ms := readSplitwiseFile(t, "llama2-70b", hw.hw, tp)
			var dec, pre []Measurement
			for _, m := range ms {
				if isPrefill(m) {
					pre = append(pre, m)
				} else {
					dec = append(dec, m)
				}
			}
			r := DefaultRoofline(mustGPU(t, hw.gpu), mustModel(t, "llama-2-70b"), tp)
			group("Splitwise perf_model.csv", fmt.Sprintf("llama2-70b on %s TP%d, decode steps", hw.gpu, tp), r, dec)
			group("Splitwise perf_model.csv", fmt.Sprintf("llama2-70b on %s TP%d, prefill steps", hw.gpu, tp), r, pre)
		}
	}
	t.Log("\n" + b.String())
}

// Calibrated on each Splitwise configuration (the default free parameters,
// 5-fold cross-validation), the roofline follows its own engine.
func TestValidationCalibratedSplitwise(t *testing.T) {
	var b strings.Builder
	b.WriteString("| Setup | Decode: in-sample | cross-validated | Prefill: in-sample | cross-validated | On a bound |\n|---|---|---|---|---|---|\n")
	for _, hw := range []struct{ hw, gpu string }{{"a100-80gb", "A100-80GB"}, {"h100-80gb", "H100-SXM"}} {
		for _, tp := range []int{2, 4, 8} {
			ms := readSplitwiseFile(t, "llama2-70b", hw.hw, tp)
			f, err := FitRooflineWith(DefaultRoofline(mustGPU(t, hw.gpu), mustModel(t, "llama-2-70b"), tp), ms, FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d, p := splitErrors(f.Points)
			dc, pc := splitErrors(f.CV)
			dm, _, _ := ErrorSummary(d)
			pm, _, _ := ErrorSummary(p)
			dcm, _, _ := ErrorSummary(dc)
			pcm, _, _ := ErrorSummary(pc)
			var at []string
			for _, a := range f.AtBounds {
				at = append(at, a.Param.String())
			}
			fmt.Fprintf(&b, "| llama2-70b on %s TP%d | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %s |\n", hw.gpu, tp, 100*dm, 100*dcm, 100*pm, 100*pcm, strings.Join(at, ", "))
			if dcm > 0.08 {
				t.Errorf("%s TP%d: cross-validated decode error %.1f%%", hw.gpu, tp, 100*dcm)
			}
		}
	}
	t.Log("\n" + b.String())
}
