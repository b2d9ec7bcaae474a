package model_test

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/workloads"
)

// fitBackend is a self-hosted replica loaded to about 60% by the traces
// below, so that queueing, batching and the token mix all shape latency.
func fitBackend() model.ClusterSpec {
	return model.ClusterSpec{Name: "gpu", Replicas: 1, MaxNumSeqs: 128,
		KV: model.KVSpec{Blocks: 1 << 20},
		Step: model.StepSpec{Kind: "table", Batches: []float64{1, 32, 128}, Times: []workloads.Duration{0.006, 0.010, 0.022},
			PrefillPerToken: 30e-6, PerContextToken: 1e-8}}
}

// replayVersusFit runs a trace replayed and its fit through fitBackend and
// returns both results.
func replayVersusFit(t *testing.T, spec workloads.TraceSpec, horizon float64) (replay, fitted *model.Results, fit *workloads.Fit) {
	t.Helper()
	fit, err := workloads.FitTrace(spec, workloads.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := fit.Groups[0]
	client := model.ClientSpec{Retry: model.RetrySpec{Preset: "none"}}
	maxTok := g.MaxOutput
	base := model.Config{Name: "agreement", Seed: 3, Duration: horizon, Interval: 60, Clusters: []model.ClusterSpec{fitBackend()}}
	r := base
	r.Workloads = []model.WorkloadSpec{{Name: "w", Route: "gpu", Demand: workloads.DemandSpec{Trace: &spec},
		Tokens: workloads.TokenSpec{MaxTokens: maxTok}, Client: client}}
	f := base
	f.StartClock = g.Demand.From.Seconds()
	f.Workloads = []model.WorkloadSpec{{Name: "w", Route: "gpu", Demand: g.Demand,
		Tokens: workloads.TokenSpec{Input: g.Input.Dist, Output: g.Output.Dist, MaxTokens: maxTok}, Client: client}}
	return run(t, r), run(t, f), fit
}

func run(t *testing.T, cfg model.Config) *model.Results {
	t.Helper()
	s, err := model.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// agreement compares the figures a planner reads, with their tolerances.
func agreement(t *testing.T, name string, a, b *model.Results, tputTol, latTol float64) {
	t.Helper()
	cmp := func(what string, x, y, tol float64) {
		d := y/x - 1
		t.Logf("%s %-22s replay %10.4g  fitted %10.4g  (%+.1f%%)", name, what, x, y, 100*d)
		if math.Abs(d) > tol {
			t.Errorf("%s: %s differs by %+.1f%%, beyond ±%.0f%%", name, what, 100*d, 100*tol)
		}
	}
	sa, sb := a.Summary, b.Summary
	cmp("throughput req/s", sa.Throughput.RequestsPerS, sb.Throughput.RequestsPerS, tputTol)
	cmp("output tokens/s", sa.Throughput.OutputTokensPerS, sb.Throughput.OutputTokensPerS, tputTol)
	cmp("TTFT p50", sa.Latency.TTFT.P50, sb.Latency.TTFT.P50, latTol)
	cmp("TTFT p95", sa.Latency.TTFT.P95, sb.Latency.TTFT.P95, latTol)
	cmp("E2E p50", sa.Latency.E2E.P50, sb.Latency.E2E.P50, latTol)
	cmp("E2E p95", sa.Latency.E2E.P95, sb.Latency.E2E.P95, latTol)
	cmp("TPOT p50", sa.Latency.TPOT.P50, sb.Latency.TPOT.P50, latTol)
	t.Logf("%s utilization replay %.2f fitted %.2f", name, a.Backends[0].Cluster.Utilization, b.Backends[0].Cluster.Utilization)
}

// TestFittedAgreesWithReplaySynthetic: a trace drawn from the model's own
// families (an hourly curve, gamma arrivals of cv 2, lognormal tokens)
// replayed, and its fit simulated, on the same replica give throughput
// within 2% and TTFT, E2E and TPOT percentiles within 10%.
func TestFittedAgreesWithReplaySynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates six hours twice")
	}
	hourly := []float64{180, 300, 420, 360, 240, 300}
	d := workloads.DemandSpec{Unit: workloads.UnitPerMinute, Hourly: hourly, Arrivals: workloads.ArrivalSpec{Kind: workloads.ArrivalGamma, CV: 2}}
	c, err := d.BuildCurve(0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	arr := workloads.NewArrivals(c, d.Arrivals, r)
	in := workloads.Dist{Kind: workloads.KindLogNormal, Median: 800, P95: 3000}
	out := workloads.Dist{Kind: workloads.KindLogNormal, Median: 150, P95: 600}
	p := filepath.Join(t.TempDir(), "synth.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "t,in,out")
	for x := arr.Next(); x < 6*3600; x = arr.Next() {
		fmt.Fprintf(w, "%.6f,%d,%d\n", x, max(1, int(math.Round(in.Sample(r)))), max(1, int(math.Round(out.Sample(r)))))
	}
	w.Flush()
	f.Close()
	spec := workloads.TraceSpec{File: p, Format: workloads.FormatCSV, Columns: workloads.TraceColumns{Time: "t", Input: "in", Output: "out"}}
	a, b, _ := replayVersusFit(t, spec, 6*3600+600)
	agreement(t, "synthetic", a, b, 0.02, 0.10)
}

// TestFittedAgreesWithReplayAzure does the same on the public Azure
// conversation trace, whose tokens are not lognormal (the fit uses
// histograms) and whose input and output lengths are slightly correlated:
// throughput within 2%, latency percentiles within 15%.
func TestFittedAgreesWithReplayAzure(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "AzureLLMInferenceTrace_conv.csv")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s absent", path)
	}
	a, b, _ := replayVersusFit(t, workloads.TraceSpec{File: path}, 3600+600)
	agreement(t, "azure-conv", a, b, 0.02, 0.15)
}

// TestFittedKeepsMooncakeHitRate: the fit of the public Mooncake
// conversation trace carries its prefix reuse over: on a replica with ample
// KV memory the fitted workload's prefix-cache hit rate is within 2 points
// of the replayed trace's.
func TestFittedKeepsMooncakeHitRate(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "mooncake_conversation_trace.jsonl")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s absent", path)
	}
	if testing.Short() {
		t.Skip("replays 12,031 long-context requests twice")
	}
	spec := workloads.TraceSpec{File: path}
	fit, err := workloads.FitTrace(spec, workloads.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := fit.Groups[0]
	if g.SharedPrefix == 0 {
		t.Fatalf("no shared prefix fitted: %+v", fit.Notes)
	}
	cl := model.ClusterSpec{Name: "gpu", Replicas: 1, PrefixCaching: true, MaxNumSeqs: 1024, MaxNumBatchedTokens: 1 << 20,
		KV:   model.KVSpec{BlockSize: 16, Blocks: 16 << 20},
		Step: model.StepSpec{Kind: "table", Batches: []float64{1, 1024}, Times: []workloads.Duration{0.001, 0.002}, PrefillPerToken: 1e-6}}
	base := model.Config{Name: "mooncake", Seed: 1, Duration: 7200, Interval: 60, Clusters: []model.ClusterSpec{cl}}
	r := base
	r.Workloads = []model.WorkloadSpec{{Name: "w", Route: "gpu", Demand: workloads.DemandSpec{Trace: &spec}, Tokens: workloads.TokenSpec{MaxTokens: 1 << 20}}}
	f := base
	f.Workloads = []model.WorkloadSpec{{Name: "w", Route: "gpu", Demand: g.Demand,
		Tokens: workloads.TokenSpec{Input: g.Input.Dist, Output: g.Output.Dist, MaxTokens: 1 << 20, SharedPrefix: g.SharedPrefix, Prefixes: g.Prefixes}}}
	hr := run(t, r).Backends[0].Tokens.CacheHitRate
	hf := run(t, f).Backends[0].Tokens.CacheHitRate
	t.Logf("hit rate replayed %.4f, fitted %.4f (trace share %.4f, shared_prefix %d)", hr, hf, g.PrefixShare, g.SharedPrefix)
	if math.Abs(hr-hf) > 0.02 {
		t.Errorf("hit rate replayed %.4f, fitted %.4f", hr, hf)
	}
}
