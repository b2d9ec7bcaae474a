package model

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// routeConfig is one open-loop workload at rate req/s behind a route over
// two providers a and b.
func routeConfig(rate float64, rt RouteSpec, a, b LimitsSpec) Config {
	lat := LatencySpec{TTFT: TTFTSpec{Base: 0.2}, TPOT: TPOTSpec{Mean: 0.01}}
	return Config{Name: "route", Seed: 3, Duration: 1800, Interval: 60,
		Workloads: []WorkloadSpec{{Name: "w", Route: rt.Name,
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: rate},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(500), Output: workloads.Fixed(50), MaxTokens: 100},
			Client: ClientSpec{Retry: RetrySpec{Preset: "anthropic-python"}}}},
		Providers: []ProviderSpec{{Name: "a", Limits: a, Latency: lat}, {Name: "b", Limits: b, Latency: lat}},
		Routes:    []RouteSpec{rt},
	}
}

func routeStats(t *testing.T, r *Results) RouteResult {
	t.Helper()
	if len(r.Routes) != 1 {
		t.Fatalf("%d routes in results", len(r.Routes))
	}
	q := r.Summary.Requests
	if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd {
		t.Fatalf("requests not conserved: %+v", q)
	}
	return r.Routes[0]
}

// A weighted route splits attempts in proportion to its weights.
func TestWeightedRouteSplits(t *testing.T) {
	r := mustRun(t, routeConfig(10, RouteSpec{Name: "split", Strategy: StrategyWeighted, Targets: []string{"a", "b"}, Weights: []float64{3, 1}}, LimitsSpec{}, LimitsSpec{}))
	st := routeStats(t, r)
	a, b := float64(st.Targets[0].Sent), float64(st.Targets[1].Sent)
	// 18,000 attempts: the binomial share has a standard error of 0.3%.
	within(t, "share to a", a/(a+b), 0.75, 0.02)
	if r.Backends[0].Attempts != st.Targets[0].Sent || r.Backends[1].Attempts != st.Targets[1].Sent {
		t.Errorf("backend attempts %d/%d, route sent %d/%d", r.Backends[0].Attempts, r.Backends[1].Attempts, st.Targets[0].Sent, st.Targets[1].Sent)
	}
}

// A fallback chain moves what the first target refuses (429) to the next
// at once: nothing fails, and the first target serves up to its limit.
func TestFallbackRouteAbsorbsRefusals(t *testing.T) {
	r := mustRun(t, routeConfig(10, RouteSpec{Name: "chain", Targets: []string{"a", "b"}}, LimitsSpec{RPM: 300}, LimitsSpec{}))
	st := routeStats(t, r)
	if r.Summary.Requests.Failed != 0 {
		t.Errorf("%d failed; the fallback should absorb every refusal", r.Summary.Requests.Failed)
	}
	if st.Fallbacks == 0 || st.Fallbacks != st.Targets[0].Refused || st.Targets[1].Sent != st.Fallbacks {
		t.Errorf("fallbacks %d, a refused %d, b sent %d; want all equal and > 0", st.Fallbacks, st.Targets[0].Refused, st.Targets[1].Sent)
	}
	// a serves at its 300 RPM (5/s, plus the first minute's burst); b the rest.
	aDone := float64(r.Backends[0].Admitted) / r.DurationS
	within(t, "a's throughput", aDone, 5+300.0/1800, 0.03)
	if r.Summary.Attempts.Retries != 0 {
		t.Errorf("%d client retries; fallbacks are not client retries", r.Summary.Attempts.Retries)
	}
}

// After a refusal, a cooldown sends new attempts straight to the next
// target for a while, as LiteLLM's cooldown_time does.
func TestCooldownSkipsARefusingTarget(t *testing.T) {
	r := mustRun(t, routeConfig(10, RouteSpec{Name: "chain", Targets: []string{"a", "b"}, Cooldown: 5}, LimitsSpec{RPM: 300}, LimitsSpec{}))
	st := routeStats(t, r)
	if st.CooldownSkips == 0 {
		t.Fatal("no cooldown skips")
	}
	// With a cooldown, a is tried less often and refuses less.
	r0 := mustRun(t, routeConfig(10, RouteSpec{Name: "chain", Targets: []string{"a", "b"}}, LimitsSpec{RPM: 300}, LimitsSpec{}))
	if st.Targets[0].Refused >= r0.Routes[0].Targets[0].Refused {
		t.Errorf("a refused %d with cooldown, %d without", st.Targets[0].Refused, r0.Routes[0].Targets[0].Refused)
	}
}

// An overflow route keeps a self-hosted cluster first and sends the excess
// to a hosted API once the cluster's queue reaches the threshold.
func TestOverflowToHosted(t *testing.T) {
	mk := func(rate float64) *Results {
		c := clusterConfig(rate, 200, 50, "iteration", []float64{1, 16}, []float64{0.01, 0.02}, 16, 100000)
		c.Providers = []ProviderSpec{{Name: "api", Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.3}, TPOT: TPOTSpec{Mean: 0.01}}}}
		c.Routes = []RouteSpec{{Name: "hybrid", Strategy: StrategyOverflow, Targets: []string{"gpu", "api"}, OverflowWaiting: 4}}
		c.Workloads[0].Route = "hybrid"
		return mustRun(t, c)
	}
	// The cluster's plateau: 16 / (50 x 20 ms) = 16 requests/s.
	low, high := mk(8), mk(40)
	if n := low.Routes[0].Overflows; n > low.Summary.Requests.Offered/100 {
		t.Errorf("at 8 req/s, %d overflows; the cluster should take nearly everything", n)
	}
	st := routeStats(t, high)
	if st.Overflows == 0 || high.Summary.Requests.Failed != 0 {
		t.Fatalf("at 40 req/s: %d overflows, %d failed", st.Overflows, high.Summary.Requests.Failed)
	}
	gpu := float64(high.Backends[1].Admitted) / high.DurationS
	if gpu < 14 || gpu > 17 {
		t.Errorf("cluster took %.1f req/s, want about its 16 req/s plateau", gpu)
	}
	if w := high.Backends[1].Cluster.Series.Waiting; maxOf(w) > 6 {
		t.Errorf("cluster waiting peaked at %.1f, above the overflow threshold", maxOf(w))
	}
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func TestRouteValidation(t *testing.T) {
	base := func() Config {
		return routeConfig(1, RouteSpec{Name: "r", Targets: []string{"a", "b"}}, LimitsSpec{}, LimitsSpec{})
	}
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Routes[0].Targets = []string{"a", "nope"} }, `route[0].targets[1]: no provider or cluster named "nope"`},
		{func(c *Config) {
			c.Routes = append(c.Routes, RouteSpec{Name: "outer", Targets: []string{"r", "a"}})
		}, `route[1].targets[0]: "r" is a route`},
		{func(c *Config) { c.Routes[0].Strategy = StrategyWeighted; c.Routes[0].Weights = []float64{1} }, "one weight per target"},
		{func(c *Config) { c.Routes[0].Strategy = StrategyWeighted; c.Routes[0].Weights = []float64{1, 0} }, "weights[1]: must be a finite number > 0"},
		{func(c *Config) { c.Routes[0].Name = "a" }, `duplicate name "a"`},
		{func(c *Config) { c.Workloads[0].Route = "x" }, `no provider, cluster or route named "x"`},
	}
	for _, tc := range cases {
		c := base()
		tc.edit(&c)
		_, err := Build(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want error containing %q, got %v", tc.want, err)
		}
	}
}

// A route across two API keys of one provider: each key has its own RPM
// under the org's aggregate, and the fallback moves a key's refusals to the
// other key until the org limit binds.
func TestRouteAcrossKeys(t *testing.T) {
	c := routeConfig(10, RouteSpec{Name: "keys", Targets: []string{"a:k1", "a:k2"}}, LimitsSpec{RPM: 450}, LimitsSpec{})
	c.Providers[0].Keys = []KeySpec{{Name: "k1", Limits: LimitsSpec{RPM: 300}}, {Name: "k2", Limits: LimitsSpec{RPM: 300}}}
	r := mustRun(t, c)
	st := routeStats(t, r)
	if st.Fallbacks == 0 {
		t.Fatal("no fallback from k1 to k2")
	}
	// Together the keys could pass 600/min; the org passes 450/min (7.5/s).
	within(t, "admitted per second", float64(r.Backends[0].Admitted)/r.DurationS, 7.5+450.0/1800, 0.03)
	var keyRPM, orgRPM int64
	for _, l := range r.Backends[0].Limits {
		if l.Dimension == "rpm" && l.Scope == "org" {
			orgRPM = l.Rejected
		} else if l.Dimension == "rpm" {
			keyRPM += l.Rejected
		}
	}
	if keyRPM == 0 || orgRPM == 0 {
		t.Errorf("rpm refusals: keys %d, org %d; want both", keyRPM, orgRPM)
	}
	c.Routes[0].Targets = []string{"a:k1", "a:nope"}
	if _, err := Build(c); err == nil || !strings.Contains(err.Error(), `provider "a" has no key named "nope"; have: k1, k2`) {
		t.Errorf("bad key target: %v", err)
	}
}
