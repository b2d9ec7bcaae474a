package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/headroom-sim/headroom/workloads"
)

// clusterConfig is one workload at rate req/s with fixed tokens on one
// cluster with a measured step table.
func clusterConfig(rate float64, in, out int, per string, batches []float64, times []float64, maxSeqs, blocks int) Config {
	ts := make([]workloads.Duration, len(times))
	for i, t := range times {
		ts[i] = workloads.Duration(t)
	}
	return Config{Name: "cluster", Seed: 1, Duration: 1800, Interval: 60,
		Workloads: []WorkloadSpec{{Name: "w", Route: "gpu",
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: rate},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(float64(in)), Output: workloads.Fixed(float64(out))},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}}},
		Clusters: []ClusterSpec{{Name: "gpu", Replicas: 1, MaxNumSeqs: maxSeqs,
			Step: StepSpec{Kind: "table", Per: per, Batches: batches, Times: ts},
			KV:   KVSpec{Blocks: blocks}}},
	}
}

// steadyThroughput is completions per second over the second half of the run.
func steadyThroughput(r *Results) float64 {
	n := len(r.Series.Completed)
	var c int64
	for _, v := range r.Series.Completed[n/2:] {
		c += v
	}
	return float64(c) / (float64(n-n/2) * r.IntervalS)
}

// With a measured per-request table and one replica, the throughput
// plateau is max batch / time at that batch: seed 002's 64 / 0.548 s.
func TestStaticBatchPlateau(t *testing.T) {
	r := mustRun(t, clusterConfig(200, 500, 50, "request", []float64{1, 8, 64}, []float64{0.107, 0.156, 0.548}, 64, 100000))
	within(t, "plateau", steadyThroughput(r), 64/0.548, 0.01)
	r = mustRun(t, clusterConfig(200, 500, 50, "request", []float64{1, 8, 64}, []float64{0.107, 0.156, 0.548}, 8, 100000))
	within(t, "plateau at batch 8", steadyThroughput(r), 8/0.156, 0.01)
	// Below the plateau, throughput is the demand.
	r = mustRun(t, clusterConfig(20, 500, 50, "request", []float64{1, 8, 64}, []float64{0.107, 0.156, 0.548}, 64, 100000))
	within(t, "below the plateau", steadyThroughput(r), 20, 0.05)
}

// With continuous batching, each request takes one prefill iteration
// (which emits its first token) and out-1 decode iterations, so a full
// batch of B sequences completes B / (out * step(B)) requests a second.
func TestContinuousBatchingPlateau(t *testing.T) {
	const B, out, step = 32, 100, 0.040
	r := mustRun(t, clusterConfig(50, 64, out, "iteration", []float64{1, B}, []float64{0.010, step}, B, 100000))
	within(t, "plateau", steadyThroughput(r), B/(out*step), 0.02)
	if c := r.Backends[0].Cluster; c.PeakBatch != B {
		t.Errorf("peak batch %v, want %d", c.PeakBatch, B)
	}
	// TPOT at saturation is the step time at the full batch.
	within(t, "TPOT p50", r.Summary.Latency.TPOT.P50, step, 0.02)
}

// Paged KV holds what sequences use; contiguous reserves prompt +
// max_tokens for each. With the same memory, paged runs a larger batch and
// gets more throughput (the seeds cite 2-4x).
func TestPagedBeatsContiguous(t *testing.T) {
	mk := func(alloc string) *Results {
		c := clusterConfig(40, 200, 100, "iteration", []float64{1, 256}, []float64{0.010, 0.060}, 256, 4000)
		c.Workloads[0].Tokens.MaxTokens = 2000
		c.Workloads[0].Tokens.Output = workloads.Dist{Kind: "uniform", Min: 20, Max: 180}
		c.Clusters[0].KV.Allocation = alloc
		return mustRun(t, c)
	}
	paged, contig := mk("paged"), mk("contiguous")
	pb, cb := paged.Backends[0].Cluster.MeanBatch, contig.Backends[0].Cluster.MeanBatch
	pt, ct := steadyThroughput(paged), steadyThroughput(contig)
	if pt < 2*ct || pb < 2*cb {
		t.Fatalf("paged: batch %.1f, %.2f req/s; contiguous: batch %.1f, %.2f req/s; want paged at least 2x", pb, pt, cb, ct)
	}
	// Contiguous reserves ceil((200+2000)/16) = 138 blocks a sequence: at
	// most 28 fit in 4,000 blocks.
	if pk := contig.Backends[0].Cluster.PeakBatch; pk > 28 {
		t.Fatalf("contiguous peak batch %v, want at most 28", pk)
	}
	t.Logf("paged batch %.1f %.2f req/s; contiguous batch %.1f %.2f req/s", pb, pt, cb, ct)
}

// When KV blocks run out mid-decode, sequences are preempted and
// recomputed, and every request still completes.
func TestPreemptionRecomputes(t *testing.T) {
	c := clusterConfig(30, 300, 400, "iteration", []float64{1, 256}, []float64{0.010, 0.050}, 256, 600)
	c.Duration = 600
	r := mustRun(t, c)
	cl := r.Backends[0].Cluster
	if cl.Preemptions == 0 {
		t.Fatal("expected preemptions with 600 blocks")
	}
	q := r.Summary.Requests
	if q.Failed != 0 || q.Offered != q.Completed+q.InFlightAtEnd {
		t.Fatalf("requests %+v", q)
	}
	if cl.MeanKVUse > 1 || cl.MeanKVUse < 0.5 {
		t.Fatalf("mean KV use %v, want high but at most 1", cl.MeanKVUse)
	}
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g within %.2g%%", what, got, want, 100*rel)
	}
}

// A failed replica's requests are refused back to their clients (retry)
// or lost; the results count each.
func TestReplicaFailure(t *testing.T) {
	for _, mode := range []string{"retry", "lose"} {
		c := clusterConfig(20, 200, 200, "iteration", []float64{1, 64}, []float64{0.01, 0.03}, 64, 100000)
		c.Clusters[0].Replicas = 2
		c.Clusters[0].Failures = []FailureSpec{{After: 600, Duration: 300, Replica: 0, Requests: mode}}
		c.Workloads[0].Client.Retry = RetrySpec{Preset: "anthropic-python"}
		r := mustRun(t, c)
		q := r.Summary.Requests
		if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd {
			t.Fatalf("%s: not conserved: %+v", mode, q)
		}
		switch mode {
		case "retry":
			if r.Summary.Attempts.Rejected["replica_failure"] == 0 || q.Failed != 0 {
				t.Errorf("retry: refused %d, failed %d; want refusals that the retries absorb", r.Summary.Attempts.Rejected["replica_failure"], q.Failed)
			}
		case "lose":
			if q.FailedBy["replica_lost"] == 0 || q.FailedBy["replica_lost"] != q.Failed {
				t.Errorf("lose: failed %+v; want only replica_lost", q.FailedBy)
			}
		}
		// While one replica is down the other carries everything.
		if u := r.Backends[0].Cluster.Series.Utilization[12]; u > 0.75 {
			t.Errorf("%s: utilization %.2f during the failure with half the replicas down", mode, u)
		}
	}
}

// The schedule provisions replicas by time of day and bills what is
// provisioned, idle or not.
func TestReplicaScheduleBillsProvisionedHours(t *testing.T) {
	c := clusterConfig(5, 200, 100, "iteration", []float64{1, 64}, []float64{0.01, 0.03}, 64, 100000)
	c.Duration = 86400
	c.Interval = 600
	c.Clusters[0].Replicas = 2
	c.Clusters[0].Price.PerGPUHour = 2
	c.Clusters[0].Startup = 300
	c.Clusters[0].Schedule = []ScheduleSpec{{At: "08:00", Replicas: 4, MaxNumSeqs: 16}, {At: "18:00", Replicas: 2}}
	r := mustRun(t, c)
	cl := r.Backends[0].Cluster
	// 2 replicas for 14 hours and 4 for 10: 68 GPU-hours, plus the
	// seconds the released replicas take to finish what they hold at 18:00.
	if cl.GPUHours < 68 || cl.GPUHours > 68.01 {
		t.Errorf("GPU hours %v, want 68 plus a drain of seconds", cl.GPUHours)
	}
	within(t, "GPU cost", r.Backends[0].Cost.Total, 2*cl.GPUHours, 1e-9)
	within(t, "total cost", r.Summary.Cost.Total, 2*cl.GPUHours, 1e-9)
	if got := cl.Series.Replicas[9*6]; got != 4 {
		t.Errorf("replicas at 09:00 = %v, want 4", got)
	}
	if got := cl.Series.Replicas[20*6]; got != 2 {
		t.Errorf("replicas at 20:00 = %v, want 2", got)
	}
}

// Reserved billing charges the most replicas around the clock.
func TestReservedBilling(t *testing.T) {
	c := clusterConfig(5, 200, 100, "iteration", []float64{1, 64}, []float64{0.01, 0.03}, 64, 100000)
	c.Duration = 86400
	c.Interval = 3600
	c.Clusters[0].Replicas = 2
	c.Clusters[0].Price = ClusterPrice{PerGPUHour: 2, Billing: "reserved"}
	c.Clusters[0].Schedule = []ScheduleSpec{{At: "08:00", Replicas: 4}, {At: "18:00", Replicas: 2}}
	r := mustRun(t, c)
	within(t, "reserved GPU hours", r.Backends[0].Cluster.GPUHours, 96, 1e-9)
	within(t, "reserved cost", r.Summary.Cost.Total, 192, 1e-9)
}

// N requests arriving at the same instant at an idle replica with room for
// all join one iteration and get the same TTFT: one prefill step of all
// N prompts (a batch of 2 does not give the second twice the first's).
func TestSameInstantArrivalsShareAnIteration(t *testing.T) {
	c := clusterConfig(0, 256, 4, "iteration", []float64{1, 64}, []float64{0.010, 0.020}, 64, 100000)
	c.Duration = 10
	c.Workloads[0].Demand = workloads.DemandSpec{Count: 8, At: 1}
	c.Workloads[0].Client.MaxConcurrency = 0
	c.Clusters[0].Step.PrefillPerToken = 0
	r := mustRun(t, c)
	q := r.Summary.Latency.TTFT
	if q.Count != 8 || q.P50 != q.Max || math.Abs(q.Max-(0.010+0.010*7/63)) > 1e-9 {
		t.Fatalf("TTFT %+v, want 8 identical of 11.1 ms (one iteration of batch 8 on the table)", q)
	}
}

// Inter-token latency pools the iteration times over the sequences that
// decode in them: with a flat 20 ms step, every gap is 20 ms.
func TestITLIsTheIterationTime(t *testing.T) {
	c := clusterConfig(5, 100, 50, "iteration", []float64{1, 64}, []float64{0.020, 0.020}, 64, 100000)
	c.Duration = 120
	r := mustRun(t, c)
	itl := r.Backends[0].Cluster.ITL
	if itl.Count == 0 || math.Abs(itl.P50-0.020) > 0.0002 || math.Abs(itl.P99-0.020) > 0.0002 {
		t.Fatalf("ITL %+v, want every gap 20 ms", itl)
	}
	if math.Abs(itl.Mean-0.020) > 1e-9 { // exact: the sum of the gaps over their count
		t.Errorf("ITL mean %v, want exactly 20 ms", itl.Mean)
	}
	// Each of ~600 requests has 49 gaps after its first token.
	if n := float64(itl.Count) / float64(r.Summary.Requests.Completed); n < 48 || n > 50 {
		t.Errorf("%.1f gaps per request, want about 49", n)
	}
}

// Long contexts under paged KV: vLLM-style scheduling preempts, the
// no-evict scheduler (admit only what can finish) never does, and both
// lose no request.
func TestNoEvictNeverPreempts(t *testing.T) {
	for _, sched := range []string{"vllm", "no-evict"} {
		c := clusterConfig(2, 4000, 800, "iteration", []float64{1, 64}, []float64{0.010, 0.030}, 64, 3000)
		c.Workloads[0].Tokens.MaxTokens = 1000
		c.Duration = 600
		c.Clusters[0].Scheduler = sched
		r := mustRun(t, c)
		cl := r.Backends[0].Cluster
		q := r.Summary.Requests
		if q.Offered != q.Completed+q.InFlightAtEnd+q.Failed || q.Failed != 0 {
			t.Fatalf("%s: requests %+v", sched, q)
		}
		if sched == "no-evict" && cl.Preemptions != 0 {
			t.Errorf("no-evict preempted %d times", cl.Preemptions)
		}
		if sched == "vllm" && cl.Preemptions == 0 {
			t.Errorf("vllm never preempted; the test does not exercise eviction")
		}
		t.Logf("%s: %d preemptions, %d completed", sched, cl.Preemptions, q.Completed)
	}
}

// No-evict scheduling never preempts, on random loaded clusters.
func TestNoEvictNeverPreemptsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		cfg.Clusters[0].Scheduler = "no-evict"
		cfg.Clusters[0].Failures = nil
		s, err := Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if p := r.Backends[0].Cluster.Preemptions; p != 0 {
			t.Fatalf("no-evict preempted %d times", p)
		}
	})
}

// tensor_parallel must split the model's heads (and KV heads), as vLLM requires.
func TestTensorParallelMustDivideHeads(t *testing.T) {
	c := clusterConfig(1, 100, 10, "iteration", []float64{1}, []float64{0.01}, 8, 1000)
	c.Clusters[0].GPU, c.Clusters[0].Model, c.Clusters[0].TensorParallel = "H100-SXM", "llama-3.1-70b", 3
	_, err := Build(c)
	if err == nil || !strings.Contains(err.Error(), "tensor_parallel") || !strings.Contains(err.Error(), "64 attention heads") {
		t.Fatalf("TP 3 of a 64-head model: %v", err)
	}
	c.Clusters[0].TensorParallel = 16 // 8 KV heads, each replicated on 2 ranks: allowed
	if _, err := Build(c); err != nil {
		t.Fatalf("TP 16: %v", err)
	}
}

// Results count hardware: replicas × TP = GPUs, at the peak of a schedule
// too, and GPU-hours come from GPUs.
func TestClusterResultCountsGPUs(t *testing.T) {
	c := clusterConfig(1, 100, 10, "iteration", []float64{1}, []float64{0.01}, 8, 1000)
	c.Duration, c.Interval = 7200, 600
	c.Clusters[0].GPU, c.Clusters[0].Model, c.Clusters[0].TensorParallel, c.Clusters[0].Replicas = "H100-SXM", "llama-3.1-70b", 8, 6
	c.Clusters[0].ModelSpec = ModelOverride{Name: "our-70b-finetune"}
	r := mustRun(t, c)
	cl := r.Backends[0].Cluster
	if cl.GPUs != 48 || cl.TensorParallel != 8 || cl.PeakGPUs != 48 || cl.Model != "our-70b-finetune" || cl.GPU != "H100-SXM" {
		t.Fatalf("cluster %d GPUs, TP %d, peak %d, model %q", cl.GPUs, cl.TensorParallel, cl.PeakGPUs, cl.Model)
	}
	within(t, "GPU-hours", cl.GPUHours, 48*2, 1e-9)
	c.Clusters[0].ModelSpec = ModelOverride{Layers: 40}
	if r := mustRun(t, c); r.Backends[0].Cluster.Model != "llama-3.1-70b (modified by model_spec)" {
		t.Errorf("a modified model is labelled %q", r.Backends[0].Cluster.Model)
	}
}

// Long contexts (20,000 in, 2,000 out) on one H100 under paged KV: with
// the whole prompt's blocks taken at admission and no admission in an
// iteration that preempted, vLLM-style scheduling preempts rarely, and
// serves within 5% of what guaranteed-no-evict scheduling serves.
func TestLongContextsDoNotThrash(t *testing.T) {
	done := map[string]int64{}
	for _, sched := range []string{"vllm", "no-evict"} {
		c := clusterConfig(1, 20000, 2000, "iteration", nil, nil, 256, 0)
		c.Clusters[0].Step = StepSpec{}
		c.Clusters[0].KV = KVSpec{}
		c.Clusters[0].GPU, c.Clusters[0].Model, c.Clusters[0].Scheduler = "H100-SXM", "llama-3.1-8b", sched
		c.Workloads[0].Tokens.MaxTokens = 2000
		r := mustRun(t, c)
		cl := r.Backends[0].Cluster
		q := r.Summary.Requests
		done[sched] = q.Completed
		if per := float64(cl.Preemptions) / float64(q.Completed); per > 0.5 {
			t.Errorf("%s: %.2f preemptions per completed request", sched, per)
		}
		t.Logf("%s: %d preemptions, %d completed", sched, cl.Preemptions, q.Completed)
	}
	if float64(done["vllm"]) < 0.95*float64(done["no-evict"]) {
		t.Errorf("vllm completed %d, no-evict %d", done["vllm"], done["no-evict"])
	}
}
