package perf

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// dataDir is the public measurements (shared/data/SOURCES.md), located
// relative to this package; tests skip when it is absent.
var dataDir = filepath.Join("..", "..", "..", "shared", "data")

// vidurFiles are the operator profiles and what they measured.
var vidurFiles = []struct{ file, gpu, model string }{
	{"vidur_mlp_h100_meta-llama_Llama-2-7b-hf.csv", "H100-SXM", "llama-2-7b"},
	{"vidur_mlp_h100_meta-llama_Llama-2-70b-hf.csv", "H100-SXM", "llama-2-70b"},
	{"vidur_mlp_a100_meta-llama_Meta-Llama-3-8B.csv", "A100-80GB", "llama-3.1-8b"},
}

func readVidurFile(t *testing.T, file string, layers int) []Measurement {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, file))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s absent", file)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, _, err := ReadVidurMLP(f, layers, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// vidurGroups and splitwiseGroups are the data the defaults are fitted to.
func vidurGroups(t *testing.T) []fitGroup {
	var gs []fitGroup
	for _, f := range vidurFiles {
		m := mustModel(t, f.model)
		gs = append(gs, fitGroup{Roofline{GPU: mustGPU(t, f.gpu), Model: m, TP: 1, SmoothKnee: true}, readVidurFile(t, f.file, m.Layers)})
	}
	return gs
}

func splitwiseGroups(t *testing.T, base Roofline) []fitGroup {
	var gs []fitGroup
	for _, hw := range []struct{ hw, gpu string }{{"a100-80gb", "A100-80GB"}, {"h100-80gb", "H100-SXM"}} {
		pts, err := usable(readSplitwiseFile(t, "llama2-70b", hw.hw, 0))
		if err != nil {
			t.Fatal(err)
		}
		st := base
		st.GPU, st.Model, st.TP = mustGPU(t, hw.gpu), mustModel(t, "llama-2-70b"), 8
		gs = append(gs, fitGroup{st, pts})
	}
	return gs
}

// The defaults are what fitting the public data gives (within 1 %).
func TestDefaultsAreTheFit(t *testing.T) {
	r1, err := fitGroups(vidurGroups(t), []Param{ParamComputeEff, ParamBandwidthEff, ParamOverheadPerLayer, ParamElementwiseEff},
		map[Param]Bound{ParamComputeEff: {0.05, 1}, ParamBandwidthEff: {0.05, 1}, ParamOverheadPerLayer: {0, 1e-3}, ParamElementwiseEff: {0.05, 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vidur: compute %.4f bandwidth %.4f element-wise %.4f per-layer kernel cost %.2f µs", r1.ComputeEff, r1.BandwidthEff, r1.ElementwiseEff, r1.OverheadPerLayer*1e6)
	// The latency of one step is fitted as the ring's, the algorithm of
	// the 2023 engine those profiles timed (its steps grow with TP); the
	// default algorithm pays it once an all-reduce (see AllReduce).
	base := Roofline{SmoothKnee: true, ComputeEff: r1.ComputeEff, BandwidthEff: r1.BandwidthEff, ElementwiseEff: r1.ElementwiseEff, AllReduce: AllReduceRing}
	r2, err := fitGroups(splitwiseGroups(t, base), []Param{ParamOverheadPerLayer, ParamOverheadPerSeq, ParamCollectiveLatency},
		map[Param]Bound{ParamOverheadPerLayer: {0, 1e-3}, ParamOverheadPerSeq: {0, 1e-3}, ParamCollectiveLatency: {0, 50e-6}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("splitwise: ring step %.2f µs (its engine's per-layer %.1f µs and per-sequence %.1f µs are not used)", r2.CollectiveLatency*1e6, r2.OverheadPerLayer*1e6, r2.OverheadPerSeq*1e6)
	if DefaultOverheadPerSeq != 0 {
		t.Errorf("per-sequence default %g: no engine-neutral data tells it", DefaultOverheadPerSeq)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"compute efficiency", r1.ComputeEff, DefaultComputeEff},
		{"bandwidth efficiency", r1.BandwidthEff, DefaultBandwidthEff},
		{"overhead per layer", r1.OverheadPerLayer, DefaultOverheadPerLayer},
		{"element-wise efficiency", r1.ElementwiseEff, DefaultElementwiseEff},
		{"collective latency", r2.CollectiveLatency, DefaultCollectiveLatency},
	} {
		if math.Abs(c.got-c.want) > 0.01*c.want {
			t.Errorf("%s: fit gives %g, default is %g", c.name, c.got, c.want)
		}
	}
}
