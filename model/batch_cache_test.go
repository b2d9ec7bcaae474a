package model

import (
	"context"
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// TestBatchLaneCacheHitIsNotQueued is the regression test of a failure
// TestRandomScenarioInvariants found once ("batch queue holds 12 tokens,
// its jobs 13"): a batch-lane request the gateway's response cache
// answered was marked as in service, so it looked like a job of the batch
// lane that the lane did not hold. Here the cache takes 5 s to answer and
// the workload repeats one request, so cache hits are in flight at the
// horizon; the batch lane must hold exactly the jobs it admitted.
func TestBatchLaneCacheHitIsNotQueued(t *testing.T) {
	cfg := Config{Name: "batch-cache", Seed: 2, Duration: 300, Interval: 30,
		Providers: []ProviderSpec{{Name: "p0",
			Latency: LatencySpec{TTFT: TTFTSpec{Base: 1, Dist: "fixed"}, TPOT: TPOTSpec{Mean: 0.05}},
			Price:   PriceSpec{Input: 3, Output: 15, BatchDiscount: 0.5}}},
		Workloads: []WorkloadSpec{{Name: "jobs", Route: "p0", Tenant: "a", Lane: LaneBatch,
			Demand:  workloads.DemandSpec{Unit: "requests/s", Rate: 1, Arrivals: workloads.ArrivalSpec{Kind: "poisson"}},
			Tokens:  workloads.TokenSpec{Input: workloads.Dist{Kind: "uniform", Min: 1, Max: 8}, Output: workloads.Dist{Kind: "uniform", Min: 1, Max: 4}},
			Repeats: RepeatSpec{Distinct: 1}}},
		Gateway: &GatewaySpec{Cache: GatewayCache{TTL: 100_000, Latency: 5},
			Tenants: []TenantSpec{{Name: "a"}}},
	}
	s, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.ran = true
	s.start()
	if err := s.eng.Run(context.Background(), cfg.Duration, s); err != nil {
		t.Fatal(err)
	}
	queued, hits := 0.0, 0
	for id := range s.reqs {
		r := &s.reqs[id]
		switch {
		case r.state == stService && r.batch:
			queued += float64(r.input)
		case r.state != stFree && r.gw&gwHit != 0:
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("no cache hit in flight at the horizon: the test does not test what it should")
	}
	if p := s.provs[0]; math.Abs(p.batchQ-queued) > 1e-6 {
		t.Fatalf("batch queue holds %.0f tokens, its jobs %.0f (%d cache hits in flight)", p.batchQ, queued, hits)
	}
}

// TestBatchPromptCache: with batch.prompt_cache, batch requests sharing a
// 1,500-token system prompt read it from the provider's cache, and their
// cache reads are priced at cache_read with the batch discount stacked on
// it (Anthropic's Message Batches); without it, every prompt is uncached
// input. One request a second keeps the refreshed 5-minute entry alive:
// the first request writes the prefix and every later one reads it.
func TestBatchPromptCache(t *testing.T) {
	run := func(on bool) *Results {
		cfg := Config{Name: "batch-prompt-cache", Seed: 3, Duration: 600, Interval: 60,
			Providers: []ProviderSpec{{Name: "p0",
				Latency: LatencySpec{TTFT: TTFTSpec{Base: 1, Dist: "fixed"}, TPOT: TPOTSpec{Mean: 0.01}},
				Cache:   CacheSpec{TTL: 300, MinTokens: 1024},
				Batch:   BatchSpec{Turnaround: workloads.Dist{Kind: "fixed", Value: 30}, Window: 3600, PromptCache: on},
				Price:   PriceSpec{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3, BatchDiscount: 0.5}}},
			Workloads: []WorkloadSpec{{Name: "jobs", Route: "p0", Lane: LaneBatch,
				Demand: workloads.DemandSpec{Unit: "requests/s", Rate: 1, Arrivals: workloads.ArrivalSpec{Kind: "constant"}},
				Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: "fixed", Value: 2000}, Output: workloads.Dist{Kind: "fixed", Value: 10}, SharedPrefix: 1500}}},
		}
		return mustRun(t, cfg)
	}
	off, on := run(false), run(true)
	n := on.Summary.Requests.Completed
	if n < 500 || off.Summary.Requests.Completed != n {
		t.Fatalf("completed %d with the cache, %d without", n, off.Summary.Requests.Completed)
	}
	if tk := off.Summary.Tokens; tk.CacheRead != 0 || tk.CacheWrite != 0 {
		t.Errorf("without batch.prompt_cache: %d read, %d written, want none", tk.CacheRead, tk.CacheWrite)
	}
	tk := on.Summary.Tokens
	if tk.CacheWrite != 1500 || tk.CacheRead != 1500*(n-1) {
		t.Errorf("with batch.prompt_cache: %d written, %d read; want 1500 and %d", tk.CacheWrite, tk.CacheRead, 1500*(n-1))
	}
	if want := float64(tk.CacheRead) * 0.3 * 0.5 / 1e6; math.Abs(on.Summary.Cost.CacheRead-want) > 1e-9 {
		t.Errorf("cache reads cost $%.6f, want $%.6f (cache_read × the batch discount)", on.Summary.Cost.CacheRead, want)
	}
	if on.Summary.Cost.Total >= off.Summary.Cost.Total {
		t.Errorf("the cache does not lower the batch's cost: $%.4f against $%.4f", on.Summary.Cost.Total, off.Summary.Cost.Total)
	}
}
