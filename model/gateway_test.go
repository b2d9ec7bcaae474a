package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// gwConfig is one open-loop workload of tenant "t" through a gateway to a
// quick provider with no limits.
func gwConfig(rate, duration float64, g GatewaySpec) Config {
	return Config{Name: "gw", Seed: 3, Duration: duration, Interval: 60,
		Workloads: []WorkloadSpec{{Name: "w", Route: "api", Tenant: "t",
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: rate},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(1000), Output: workloads.Fixed(100), MaxTokens: 500},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}}},
		Providers: []ProviderSpec{{Name: "api", Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.001}}}},
		Gateway:   &g}
}

// TestResponseCacheHitRate: with N equally likely requests arriving at
// rate λ and answers kept for T, each answer is written by a miss and then
// serves the repeats that arrive within T: a renewal cycle of T plus an
// exponential wait, with λT/N hits per miss, so the hit rate is
// (λT/N) / (1 + λT/N), 50% here.
func TestResponseCacheHitRate(t *testing.T) {
	cfg := gwConfig(10, 20000, GatewaySpec{Cache: GatewayCache{TTL: 100}, Tenants: []TenantSpec{{Name: "t"}}})
	cfg.Workloads[0].Repeats = RepeatSpec{Distinct: 1000}
	res := mustRun(t, cfg)
	c := res.Gateway.Cache
	x := 10.0 * 100 / 1000
	want := x / (1 + x)
	if math.Abs(c.HitRate-want) > 0.01 {
		t.Errorf("hit rate %.4f over %d lookups, want %.4f", c.HitRate, c.Lookups, want)
	}
	// Hits cost nothing and answer at the cache's latency.
	if res.Summary.Requests.Completed < res.Summary.Requests.Offered-5 {
		t.Errorf("completed %d of %d", res.Summary.Requests.Completed, res.Summary.Requests.Offered)
	}
	if got := res.Backends[0].Attempts; got != c.Lookups-c.Hits {
		t.Errorf("backend saw %d attempts, want the %d misses", got, c.Lookups-c.Hits)
	}
}

// TestLeasesReconcileCrashedStreams: crashed streams without leases keep
// their whole reservation; with leases the unused part comes back after
// the TTL. Either way the books balance.
func TestLeasesReconcileCrashedStreams(t *testing.T) {
	base := GatewaySpec{Weights: GatewayWeights{Input: ptr(1.0), CachedInput: ptr(1.0), Output: ptr(8.0)}, CrashRate: 0.1,
		Tenants: []TenantSpec{{Name: "t", UnitsPerMin: 1e9, Burst: 1e9}}}
	withLease := base
	withLease.LeaseTTL = 30
	// Every request reserves 1000 + 8 x 500 = 5000 and uses 1000 + 8 x 100
	// = 1800: a crash strands 3200 units.
	for _, c := range []struct {
		name string
		g    GatewaySpec
	}{{"no leases", base}, {"leases", withLease}} {
		res := mustRun(t, gwConfig(5, 3600, c.g))
		tn := res.Gateway.Tenants[0]
		if tn.Crashes == 0 {
			t.Fatalf("%s: no crashes", c.name)
		}
		lostWant := 0.0
		if c.g.LeaseTTL == 0 {
			lostWant = float64(tn.Crashes) * 3200
		}
		if math.Abs(tn.UnitsLost-lostWant) > 1e-6 {
			t.Errorf("%s: %d crashes lost %.0f units, want %.0f", c.name, tn.Crashes, tn.UnitsLost, lostWant)
		}
		// Leases of the last 30 s have not expired by the end.
		if c.g.LeaseTTL > 0 && (tn.LeaseRefunded < float64(tn.Crashes-40)*3200 || tn.LeaseRefunded > float64(tn.Crashes)*3200) {
			t.Errorf("%s: leases refunded %.0f for %d crashes", c.name, tn.LeaseRefunded, tn.Crashes)
		}
		if sum := tn.UnitsUsed + tn.UnitsRefunded + tn.UnitsLost + tn.UnitsOutstanding; math.Abs(sum-tn.UnitsReserved) > 1e-3 {
			t.Errorf("%s: used+refunded+lost+outstanding %.0f != reserved %.0f", c.name, sum, tn.UnitsReserved)
		}
		// Each crash is a 502 the client may retry: preset none gives up.
		if got := res.Summary.Requests.FailedBy["gw_crash_502"]; got != tn.Crashes {
			t.Errorf("%s: %d failed by crash, %d crashes", c.name, got, tn.Crashes)
		}
	}
}

// TestStoreOutageFailOpenAndClosed: during a ten-minute limiter-store
// outage, failing closed refuses every attempt with 503; failing open
// admits at the local caps (half the tenant's rate), so the tenant gets
// through about half its usual share.
func TestStoreOutageFailOpenAndClosed(t *testing.T) {
	// 2 requests/s, each reserving 1,000 + 8 x 500 = 5,000 units.
	mk := func(mode string) GatewaySpec {
		return GatewaySpec{Weights: GatewayWeights{Input: ptr(1.0), CachedInput: ptr(1.0), Output: ptr(8.0)},
			Outages: []GatewayOutage{{From: "00:10", For: 600, Mode: mode, LocalFraction: 0.5}},
			Tenants: []TenantSpec{{Name: "t", UnitsPerMin: 300_000, Burst: 10_000}}}
	}
	closed := mustRun(t, gwConfig(2, 1800, mk(FailClosed)))
	open := mustRun(t, gwConfig(2, 1800, mk(FailOpen)))
	if n := closed.Gateway.FailClosedRejects; n < 1100 || n > 1300 {
		t.Errorf("fail closed: %d refused in a 600 s outage at 2/s, want about 1,200", n)
	}
	if closed.Gateway.FailOpenAdmits != 0 || open.Gateway.FailClosedRejects != 0 {
		t.Errorf("modes mixed: closed admitted %d locally, open refused %d", closed.Gateway.FailOpenAdmits, open.Gateway.FailClosedRejects)
	}
	// During it, fail-open local buckets hold 5,000 units refilled at
	// 2,500/s. A request reserves 5,000 (a full bucket) and refunds 3,200
	// a millisecond later (it used 1,000 + 8 x 100): the next one fits
	// 1,800/2,500 = 0.72 s later, at the next arrival (0.5 s on average,
	// memoryless): one admission per 1.22 s, about 492 in 600 s.
	if n := open.Gateway.FailOpenAdmits; n < 443 || n > 541 {
		t.Errorf("fail open: %d admitted by local caps, want about 492", n)
	}
	cc, oc := closed.Summary.Requests.Completed, open.Summary.Requests.Completed
	if !(oc > cc+400) {
		t.Errorf("completed: fail open %d, fail closed %d; open should serve ~490 more", oc, cc)
	}
}

// TestTimeoutFallsBackAndWastesWork: a backend slower than the client's
// timeout: the route falls back to the next backend at the timeout, and
// the abandoned attempt is still finished (and billed) by the first.
func TestTimeoutFallsBackAndWastesWork(t *testing.T) {
	slow := ProviderSpec{Name: "slow", Latency: LatencySpec{TTFT: TTFTSpec{Base: 20}}, Price: PriceSpec{Input: 1, Output: 1}}
	fast := ProviderSpec{Name: "fast", Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.5}}, Price: PriceSpec{Input: 1, Output: 1}}
	cfg := Config{Name: "timeout", Seed: 1, Duration: 600, Interval: 60,
		Workloads: []WorkloadSpec{{Name: "w", Route: "chain", Demand: workloads.DemandSpec{Unit: "requests/s", Rate: 1},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(1000), Output: workloads.Fixed(10)},
			Client: ClientSpec{Timeout: 5, Retry: RetrySpec{Preset: "none"}}}},
		Providers: []ProviderSpec{slow, fast},
		Routes:    []RouteSpec{{Name: "chain", Targets: []string{"slow", "fast"}}}}
	res := mustRun(t, cfg)
	sm := res.Summary
	if sm.Requests.Failed != 0 || sm.Requests.Completed < sm.Requests.Offered-10 {
		t.Fatalf("requests %+v", sm.Requests)
	}
	// Every request times out on "slow" after 5 s and completes on "fast"
	// 0.5 s later.
	if got := sm.Latency.E2E.P50; math.Abs(got-5.5) > 0.06 {
		t.Errorf("E2E p50 %.3fs, want 5.5 s (timeout + fast backend)", got)
	}
	if got := sm.Attempts.Rejected["timeout"]; got < sm.Requests.Completed {
		t.Errorf("%d timeouts for %d completed", got, sm.Requests.Completed)
	}
	var slowRes BackendResult
	for _, b := range res.Backends {
		if b.Name == "slow" {
			slowRes = b
		}
	}
	if slowRes.Abandoned < sm.Requests.Completed || slowRes.Tokens.Input < 1000*(sm.Requests.Completed-30) {
		t.Errorf("slow backend: %d abandoned, %d input tokens billed; want every request's work wasted there", slowRes.Abandoned, slowRes.Tokens.Input)
	}
	if res.Routes[0].Fallbacks < sm.Requests.Completed {
		t.Errorf("%d fallbacks for %d requests", res.Routes[0].Fallbacks, sm.Requests.Completed)
	}
}

// TestNeverFitsIs400: a reservation larger than the bucket can never
// succeed, so it is refused with a 400 that is not retried, never a 429.
func TestNeverFitsIs400(t *testing.T) {
	g := GatewaySpec{Weights: GatewayWeights{Input: ptr(1.0), CachedInput: ptr(1.0), Output: ptr(8.0)},
		Tenants: []TenantSpec{{Name: "t", UnitsPerMin: 300_000, Burst: 4_000}}}
	cfg := gwConfig(1, 60, g)
	cfg.Workloads[0].Client.Retry = RetrySpec{Preset: "openai-python"}
	res := mustRun(t, cfg)
	sm := res.Summary
	if sm.Requests.Completed != 0 || sm.Requests.FailedBy["gw_too_large_400"] != sm.Requests.Failed || sm.Attempts.Retries != 0 {
		t.Errorf("requests %+v, retries %d: want every one refused once with 400", sm.Requests, sm.Attempts.Retries)
	}
	if n := sm.Attempts.Rejected["gw_units"]; n != 0 {
		t.Errorf("%d 429s for requests that can never fit", n)
	}
}

// TestStreamCap: a tenant capped at 4 concurrent streams in front of a
// slow backend never holds more, and the excess gets 429 stream refusals.
func TestStreamCap(t *testing.T) {
	g := GatewaySpec{Tenants: []TenantSpec{{Name: "t", MaxStreams: 4}}}
	cfg := gwConfig(2, 600, g)
	cfg.Providers[0].Latency.TTFT.Base = 5 // 10 in flight on average without the cap
	res := mustRun(t, cfg)
	tn := res.Gateway.Tenants[0]
	if tn.PeakStreams != 4 || tn.StreamCapHits == 0 || tn.Rejected["gw_streams"] != tn.StreamCapHits {
		t.Errorf("peak streams %d, cap hits %d, stream 429s %d", tn.PeakStreams, tn.StreamCapHits, tn.Rejected["gw_streams"])
	}
	// At most 4 served per 5 s: 0.8/s.
	if thr := res.Summary.Throughput.RequestsPerS; thr > 0.8+1e-9 {
		t.Errorf("throughput %.3f/s above the 4 streams / 5 s bound", thr)
	}
}
