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
