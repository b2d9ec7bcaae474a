package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// drrHarness is a gateway with two tenants' interactive queues filled by
// hand, to exercise the deficit round robin on its own.
func drrHarness(quantum float64, weights ...float64) (*gateway, unitMap) {
	spec := &GatewaySpec{Queue: GatewayQueue{Quantum: quantum}}
	g := &gateway{spec: spec}
	for i, w := range weights {
		g.tenants = append(g.tenants, &gwTenant{index: i, weight: w})
	}
	return g, unitMap{}
}

// unitMap is the units of hand-made requests by id.
type unitMap map[int32]float64

func (u unitMap) reqs() []request {
	n := int32(0)
	for id := range u {
		n = max(n, id+1)
	}
	out := make([]request, n)
	for id, v := range u {
		out[id].gwRes = v
	}
	return out
}

func (g *gateway) push(t int, id int32) {
	tn := g.tenants[t]
	tn.q[classInteractive].pushBack(id)
	if !tn.inActive[classInteractive] {
		tn.inActive[classInteractive] = true
		g.active[classInteractive] = append(g.active[classInteractive], tn)
	}
}

// TestDRRSharesByWeight: two saturated tenants with weights 1 and 3 get
// weighted units in a 1:3 ratio, whatever their request sizes.
func TestDRRSharesByWeight(t *testing.T) {
	g, units := drrHarness(50_000, 1, 3)
	id := int32(0)
	for k := 0; k < 20000; k++ {
		units[id] = 10_000 // tenant 0: seed 004's documents
		g.push(0, id)
		id++
		units[id] = 1_500 + float64(k%7)*700 // tenant 1: chat of varying size
		g.push(1, id)
		id++
	}
	served := [2]float64{}
	owner := func(i int32) int { return int(i % 2) }
	rq := units.reqs()
	for n := 0; n < 8000; n++ {
		i := g.gwNext(rq)
		if i < 0 {
			t.Fatal("queues ran dry")
		}
		served[owner(i)] += units[i]
	}
	ratio := served[1] / served[0]
	if math.Abs(ratio-3) > 0.03*3 {
		t.Errorf("weighted units served %v: ratio %.3f, want 3 within 3%%", served, ratio)
	}
}

// TestDRRIdleTenantBanksNoCredit: a tenant that was idle while another
// was served starts with one quantum, not with the credit of the rounds
// it missed.
func TestDRRIdleTenantBanksNoCredit(t *testing.T) {
	g, units := drrHarness(10_000, 1, 1)
	id := int32(0)
	for k := 0; k < 1000; k++ {
		units[id] = 1000
		g.push(0, id)
		id++
	}
	rq := units.reqs()
	for n := 0; n < 500; n++ { // tenant 1 idle: tenant 0 alone
		g.gwNext(rq)
	}
	first := id
	for k := 0; k < 500; k++ {
		units[id] = 1000
		g.push(1, id)
		id++
	}
	// From now on the two alternate in rounds of one quantum (10 requests)
	// each: tenant 1 never gets more than 10 in a row.
	run, most := 0, 0
	rq = units.reqs()
	for n := 0; n < 400; n++ {
		i := g.gwNext(rq)
		if i >= first {
			run++
			most = max(most, run)
		} else {
			run = 0
		}
	}
	if most != 10 {
		t.Errorf("the returning tenant got %d requests in a row, want exactly one quantum's 10", most)
	}
	// And a tenant whose queue empties loses its leftover deficit.
	g2, u2 := drrHarness(10_000, 1, 1)
	u2[0] = 1
	g2.push(0, 0)
	g2.gwNext(u2.reqs())
	g2.gwNext(u2.reqs()) // finds the queue empty
	if d := g2.tenants[0].deficit[classInteractive]; d != 0 {
		t.Errorf("deficit %v left after the queue emptied, want 0", d)
	}
}

// fairConfig: two tenants (weights 1 and 3) with large backlogs at t = 0
// behind a gateway that lets 4 requests through at a time to a provider
// that takes 1 s per request.
func fairConfig() Config {
	job := func(name, tenant string, in int) WorkloadSpec {
		return WorkloadSpec{Name: name, Route: "api", Tenant: tenant,
			Demand: workloads.DemandSpec{Count: 5000, At: 0},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(float64(in)), Output: workloads.Fixed(1), MaxTokens: 1},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}}
	}
	return Config{Name: "fair", Seed: 1, Duration: 600, Interval: 60,
		Workloads: []WorkloadSpec{job("a-docs", "a", 999), job("b-docs", "b", 2999)},
		Providers: []ProviderSpec{{Name: "api", Latency: LatencySpec{TTFT: TTFTSpec{Base: 1}}}},
		Gateway: &GatewaySpec{Weights: GatewayWeights{Input: ptr(1.0), CachedInput: ptr(1.0), Output: ptr(1.0)},
			Queue:   GatewayQueue{MaxInFlight: 4, Quantum: 20_000},
			Tenants: []TenantSpec{{Name: "a", Weight: ptr(1.0)}, {Name: "b", Weight: ptr(3.0)}}}}
}

// TestGatewayFairShareEndToEnd: under saturation the simulated gateway
// hands out weighted units 1:3, and completions follow.
func TestGatewayFairShareEndToEnd(t *testing.T) {
	res := mustRun(t, fairConfig())
	gw := res.Gateway
	if gw == nil || gw.Queue == nil {
		t.Fatal("no gateway results")
	}
	a, b := gw.Tenants[0].FairQueueUnits["interactive"], gw.Tenants[1].FairQueueUnits["interactive"]
	if ratio := b / a; math.Abs(ratio-3) > 0.09 {
		t.Errorf("fair-queue units a %.0f b %.0f: ratio %.3f, want 3 within 3%%", a, b, ratio)
	}
	// Units completed follow the same ratio: a's requests are 1,000 units,
	// b's 3,000, so b completes as many requests as a.
	ca, cb := res.Workloads[0].Summary.Requests.Completed, res.Workloads[1].Summary.Requests.Completed
	if ca == 0 || math.Abs(float64(cb)/float64(ca)-1) > 0.05 {
		t.Errorf("completed a %d b %d: want equal counts (1:3 in units)", ca, cb)
	}
	// 4 slots of 1 s over 600 s: about 2,400 served in all.
	if n := ca + cb; n < 2390 || n > 2404 {
		t.Errorf("completed %d, want about 2,400 (4 slots x 600 s)", n)
	}
}

func ptr[T any](v T) *T { return &v }

// TestDRRTinyWeightsDoNotSpin: weights of 0.001 and 0.003 with a quantum
// of 1 need millions of rounds per 10,000-unit request; the rounds in
// which nothing fits are credited at once, and the shares stay 1:3.
func TestDRRTinyWeightsDoNotSpin(t *testing.T) {
	g, units := drrHarness(1, 0.001, 0.003)
	id := int32(0)
	for k := 0; k < 4000; k++ {
		units[id] = 10_000
		g.push(0, id)
		id++
		units[id] = 10_000
		g.push(1, id)
		id++
	}
	rq := units.reqs()
	served := [2]float64{}
	for n := 0; n < 4000; n++ {
		i := g.gwNext(rq)
		served[i%2] += units[i]
	}
	if ratio := served[1] / served[0]; math.Abs(ratio-3) > 0.03 {
		t.Errorf("shares %v: ratio %.3f, want 3", served, ratio)
	}
}
