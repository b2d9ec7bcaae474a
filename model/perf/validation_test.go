package perf

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// The default roofline against the measurements in the public data it
// was fitted to (vidur: the efficiencies and per-layer cost; Splitwise: the
// collective latency only, in the ring form of its engine, which its decode
// steps are also predicted with). Run with -v for the table in
// model/CHECKS.md.
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
			// Its engine's all-reduce is a ring: the form its latency is fitted in.
			r.AllReduce = AllReduceRing
			group("Splitwise perf_model.csv", fmt.Sprintf("llama2-70b on %s TP%d, decode steps, all_reduce = ring", hw.gpu, tp), r, dec)
		}
	}
	t.Log("\n" + b.String())
}

// Calibrated on each Splitwise configuration (the default free parameters,
// 5-fold cross-validation), the roofline follows its own engine.
func TestValidationCalibratedSplitwise(t *testing.T) {
	var b strings.Builder
	b.WriteString("| Setup | Decode: in-sample | cross-validated | Prefill: in-sample | cross-validated | Held on a bound |\n|---|---|---|---|---|---|\n")
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
			for _, h := range f.Held {
				if h.Reason == HoldOnBound {
					at = append(at, h.Param.String())
				}
			}
			fmt.Fprintf(&b, "| llama2-70b on %s TP%d | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %s |\n", hw.gpu, tp, 100*dm, 100*dcm, 100*pm, 100*pcm, strings.Join(at, ", "))
			if dcm > 0.08 {
				t.Errorf("%s TP%d: cross-validated decode error %.1f%%", hw.gpu, tp, 100*dcm)
			}
		}
	}
	t.Log("\n" + b.String())
}
