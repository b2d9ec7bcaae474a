package model

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
	"pgregory.net/rapid"
)

// genConfig draws a random but valid scenario: one to three workloads
// (open, closed or a job), one or two providers with random limits,
// windows, keys, concurrency caps, caches, outages and clients.
func genConfig(t *rapid.T) Config {
	nProv := rapid.IntRange(1, 2).Draw(t, "providers")
	var provs []ProviderSpec
	window := func(label string) string {
		return rapid.SampledFrom([]string{WindowTokenBucket, WindowFixed, WindowSliding}).Draw(t, label)
	}
	limits := func(label string) LimitsSpec {
		l := LimitsSpec{Window: window(label + ".window"), Reserve: rapid.SampledFrom([]string{ReserveMaxTokens, ReserveNone}).Draw(t, label+".reserve")}
		if rapid.Bool().Draw(t, label+".rpm?") {
			l.RPM = rapid.Float64Range(5, 600).Draw(t, label+".rpm")
		}
		if rapid.Bool().Draw(t, label+".itpm?") {
			l.ITPM = rapid.Float64Range(2000, 200000).Draw(t, label+".itpm")
		}
		if rapid.Bool().Draw(t, label+".otpm?") {
			l.OTPM = rapid.Float64Range(500, 50000).Draw(t, label+".otpm")
		}
		if rapid.Bool().Draw(t, label+".tpm?") {
			l.TPM = rapid.Float64Range(2000, 300000).Draw(t, label+".tpm")
			if rapid.Bool().Draw(t, label+".weights?") {
				l.Weights = WeightsSpec{Input: 1, CachedInput: 0.25, Output: rapid.Float64Range(1, 8).Draw(t, label+".wout")}
			}
		}
		if rapid.Bool().Draw(t, label+".rpd?") {
			l.RPD = rapid.Float64Range(10, 5000).Draw(t, label+".rpd")
		}
		if l.Window != WindowTokenBucket && rapid.Bool().Draw(t, label+".quantum?") {
			l.Quantum = workloads.Duration(rapid.SampledFrom([]float64{1, 10}).Draw(t, label+".quantum"))
		}
		// Burst and cache_reads_count are set only where they have an
		// effect (a key without one is refused).
		burst := workloads.Duration(rapid.Float64Range(1, 120).Draw(t, label+".burst"))
		if l.Window == WindowTokenBucket && (l.RPM > 0 || l.ITPM > 0 || l.OTPM > 0 || l.TPM > 0) {
			l.Burst = burst
		}
		l.CountRejected = rapid.Bool().Draw(t, label+".countRejected")
		cr := rapid.Bool().Draw(t, label+".cacheReadsCount") && (l.ITPM > 0 || l.TPM > 0)
		l.CacheReadsCount = &cr
		return l
	}
	for i := 0; i < nProv; i++ {
		p := ProviderSpec{Name: "p" + strconv.Itoa(i), Limits: limits("p" + strconv.Itoa(i))}
		if rapid.Bool().Draw(t, "keys?") {
			p.Keys = []KeySpec{{Name: "k0", Limits: limits("k0")}, {Name: "k1", Limits: limits("k1")}}
		}
		if rapid.Bool().Draw(t, "concurrency?") {
			p.Concurrency = ConcurrencySpec{Max: rapid.IntRange(1, 20).Draw(t, "conmax"),
				WhenFull: rapid.SampledFrom([]string{"reject", "queue"}).Draw(t, "whenfull"), QueueLimit: rapid.IntRange(0, 30).Draw(t, "qlimit")}
			if p.Concurrency.WhenFull == "reject" {
				p.Concurrency.QueueLimit = 0 // a queue limit bounds the queue of when_full = "queue" only
			}
		}
		p.Latency = LatencySpec{
			TTFT: TTFTSpec{Base: workloads.Duration(rapid.Float64Range(0.001, 2).Draw(t, "ttft")), PerInputToken: 0.0001,
				Dist: rapid.SampledFrom([]string{"fixed", "exponential", "lognormal"}).Draw(t, "ttftdist")},
			TPOT: TPOTSpec{Mean: workloads.Duration(rapid.Float64Range(0.001, 0.05).Draw(t, "tpot"))},
		}
		if p.Latency.TTFT.Dist == "lognormal" {
			p.Latency.TTFT.CV = 0.5 // a cv has an effect only on a lognormal factor
		}
		p.Price = PriceSpec{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3, BatchDiscount: 0.5}
		if rapid.Bool().Draw(t, "commitment?") { // a tier's fixed price, in every cost figure
			p.Price.Commitment = rapid.Float64Range(1, 5000).Draw(t, "commitment")
			p.Price.CommitmentPer = rapid.SampledFrom([]string{"", "hour", "day", "month", "horizon"}).Draw(t, "commitment_per")
		}
		p.Cache = CacheSpec{MinTokens: 100}
		if rapid.Bool().Draw(t, "outage?") {
			p.Outages = []OutageSpec{{After: workloads.Duration(rapid.Float64Range(0, 500).Draw(t, "oat")),
				Duration: workloads.Duration(rapid.Float64Range(1, 200).Draw(t, "odur")),
				Status:   rapid.SampledFrom([]int{500, 503, 529}).Draw(t, "ostatus"), Fraction: rapid.Float64Range(0.1, 1).Draw(t, "ofrac")}}
		}
		if rapid.Bool().Draw(t, "errlat?") {
			d := workloads.Duration(0.05)
			p.ErrorTime = &d
		}
		if rapid.Bool().Draw(t, "spend?") {
			p.Limits.SpendLimitUSD = rapid.Float64Range(0.01, 1).Draw(t, "spend")
		}
		provs = append(provs, p)
	}
	var clusters []ClusterSpec
	if rapid.Bool().Draw(t, "cluster?") {
		chunked := rapid.Bool().Draw(t, "chunked")
		cl := ClusterSpec{Name: "gpu", Replicas: rapid.IntRange(1, 3).Draw(t, "replicas"),
			MaxNumSeqs:          rapid.IntRange(1, 64).Draw(t, "maxseqs"),
			MaxNumBatchedTokens: rapid.IntRange(16, 4096).Draw(t, "maxtokens"),
			ChunkedPrefill:      &chunked,
			Order:               rapid.SampledFrom([]string{"fcfs", "priority"}).Draw(t, "order"),
			MaxWaiting:          rapid.IntRange(0, 50).Draw(t, "maxwaiting"),
			PrefixCaching:       rapid.Bool().Draw(t, "prefixcache"),
			KV: KVSpec{Allocation: rapid.SampledFrom([]string{"paged", "contiguous"}).Draw(t, "alloc"),
				BlockSize: rapid.SampledFrom([]int{1, 16, 64}).Draw(t, "bs"), Blocks: rapid.IntRange(400, 5000).Draw(t, "blocks")},
			Price: ClusterPrice{PerGPUHour: 2}}
		if rapid.Bool().Draw(t, "roofline?") {
			cl.GPU, cl.Model = "H100-SXM", "llama-3.1-8b"
		} else {
			cl.Step = StepSpec{Kind: "table", Per: rapid.SampledFrom([]string{"iteration", "request"}).Draw(t, "per"),
				Batches: []float64{1, 64}, Times: []workloads.Duration{0.005, workloads.Duration(rapid.Float64Range(0.005, 0.2).Draw(t, "t64"))}}
		}
		if rapid.Bool().Draw(t, "fleet?") {
			genFleet(t, &cl) // routing, autoscaling, a CPU tier or pools (fleet_property_test.go)
		}
		clusters = append(clusters, cl)
	}
	var routes []RouteSpec
	if rapid.Bool().Draw(t, "route?") {
		var targets []string
		for _, p := range provs {
			targets = append(targets, p.Name)
		}
		if len(clusters) > 0 && rapid.Bool().Draw(t, "routeCluster?") {
			targets = append([]string{"gpu"}, targets...)
		}
		rt := RouteSpec{Name: "rt", Strategy: rapid.SampledFrom([]string{StrategyFallback, StrategyWeighted, StrategyOverflow}).Draw(t, "strategy"),
			Targets: targets, OverflowWaiting: rapid.IntRange(1, 10).Draw(t, "overflow"),
			Cooldown: workloads.Duration(rapid.SampledFrom([]float64{0, 1, 5}).Draw(t, "cooldown"))}
		if rt.Strategy == StrategyWeighted {
			for range targets {
				rt.Weights = append(rt.Weights, rapid.Float64Range(0.1, 5).Draw(t, "weight"))
			}
		}
		if rapid.Bool().Draw(t, "fallbackFlag?") {
			f := rapid.Bool().Draw(t, "fallback")
			rt.Fallback = &f
		}
		routes = append(routes, rt)
	}
	nW := rapid.IntRange(1, 3).Draw(t, "workloads")
	var wls []WorkloadSpec
	for i := 0; i < nW; i++ {
		p := provs[rapid.IntRange(0, nProv-1).Draw(t, "route")]
		w := WorkloadSpec{Name: "w" + strconv.Itoa(i), Route: p.Name, Tenant: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "tenant"),
			Priority: rapid.SampledFrom([]string{PriorityInteractive, PriorityBatch}).Draw(t, "priority")}
		toCluster := len(clusters) > 0 && rapid.Bool().Draw(t, "toCluster")
		if toCluster {
			w.Route = "gpu"
		}
		toRoute := len(routes) > 0 && rapid.Bool().Draw(t, "toRoute")
		if toRoute {
			w.Route = "rt"
			toCluster = false
			for _, tn := range routes[0].Targets {
				toCluster = toCluster || tn == "gpu"
			}
		}
		if len(p.Keys) > 0 && !toCluster && !toRoute {
			w.Key = rapid.SampledFrom([]string{"k0", "k1"}).Draw(t, "key")
		}
		switch rapid.IntRange(0, 2).Draw(t, "mode") {
		case 0:
			w.Demand = workloads.DemandSpec{Unit: "requests/s", Rate: rapid.Float64Range(0.1, 20).Draw(t, "rate"),
				Arrivals: workloads.ArrivalSpec{Kind: rapid.SampledFrom([]string{"poisson", "constant"}).Draw(t, "arr")}}
		case 1:
			w.Demand = workloads.DemandSpec{Users: rapid.IntRange(1, 40).Draw(t, "users"), Think: workloads.Fixed(rapid.Float64Range(0, 10).Draw(t, "think"))}
		default:
			w.Demand = workloads.DemandSpec{Count: rapid.IntRange(1, 300).Draw(t, "count"), At: workloads.Duration(rapid.Float64Range(0, 100).Draw(t, "at"))}
		}
		w.Tokens = workloads.TokenSpec{
			Input:        workloads.Dist{Kind: "uniform", Min: 1, Max: rapid.Float64Range(1, 5000).Draw(t, "inmax")},
			Output:       workloads.Dist{Kind: "uniform", Min: 1, Max: rapid.Float64Range(1, 800).Draw(t, "outmax")},
			MaxTokens:    rapid.IntRange(0, 1000).Draw(t, "maxtok"),
			SharedPrefix: rapid.IntRange(0, 600).Draw(t, "prefix"),
			Prefixes:     rapid.IntRange(1, 3).Draw(t, "prefixes"),
		}
		if w.Tokens.SharedPrefix == 0 {
			w.Tokens.Prefixes = 1
		}
		if !toCluster && !toRoute && rapid.Bool().Draw(t, "batch?") {
			w.Lane = LaneBatch
			w.Key = "" // the batch lane skips the limits a key would add
		}
		if (toCluster || toRoute) && w.Demand.Closed() && w.Demand.Think.MeanValue() == 0 {
			w.Demand.Think = workloads.Fixed(0.5)
		}
		w.Client = ClientSpec{MaxConcurrency: rapid.IntRange(0, 30).Draw(t, "maxconc"),
			Retry: RetrySpec{Preset: rapid.SampledFrom(RetryPresetNames()).Draw(t, "preset")}}
		if rapid.Bool().Draw(t, "jitter?") {
			w.Client.Retry.Jitter = rapid.SampledFrom([]string{"none", "full", "equal", "decorrelated", "sdk", "additive", "up"}).Draw(t, "jitter")
		}
		if rapid.Bool().Draw(t, "pace?") {
			w.Client.Pace = PaceSpec{RequestsPerMin: rapid.Float64Range(1, 600).Draw(t, "pace")}
		}
		w.SLO = SLOSpec{TTFT: 2}
		if rapid.Bool().Draw(t, "timeout?") {
			w.Client.Timeout = workloads.Duration(rapid.Float64Range(0.2, 30).Draw(t, "timeout"))
		}
		wls = append(wls, w)
	}
	cfg := Config{Name: "random", Seed: rapid.Uint64().Draw(t, "seed"), Duration: rapid.Float64Range(30, 300).Draw(t, "duration"),
		Interval: 30, Workloads: wls, Providers: provs, Clusters: clusters, Routes: routes}
	if rapid.Bool().Draw(t, "gateway?") {
		for i := range wls {
			if wls[i].Demand.Closed() && wls[i].Demand.Think.MeanValue() == 0 {
				wls[i].Demand.Think = workloads.Fixed(0.5)
			}
		}
		cfg.Gateway = genGateway(t, wls)
	}
	if len(cfg.Clusters) > 0 && cfg.Clusters[0].Prefill == nil && rapid.Bool().Draw(t, "failure?") {
		cl := &cfg.Clusters[0]
		cl.Failures = []FailureSpec{{After: workloads.Duration(rapid.Float64Range(0, cfg.Duration).Draw(t, "fail.after")),
			Duration: workloads.Duration(rapid.Float64Range(1, 100).Draw(t, "fail.for")), Replica: rapid.IntRange(0, cl.Replicas-1).Draw(t, "fail.replica"),
			Requests: rapid.SampledFrom([]string{"retry", "lose"}).Draw(t, "fail.requests")}}
	}
	if rapid.Bool().Draw(t, "idle cluster?") {
		// Provisioned, and no workload can reach it: billed all the same.
		cfg.Clusters = append(cfg.Clusters, ClusterSpec{Name: "idle", Replicas: rapid.IntRange(1, 2).Draw(t, "idle.replicas"), MaxNumSeqs: 8,
			KV:    KVSpec{Blocks: 1000, BlockSize: 16},
			Step:  StepSpec{Kind: "table", Per: "iteration", Batches: []float64{1, 64}, Times: []workloads.Duration{0.005, 0.05}},
			Price: ClusterPrice{PerGPUHour: rapid.Float64Range(0.5, 4).Draw(t, "idle.price")}})
	}
	return cfg
}

// genGateway draws a gateway for tenants "a" and "b" (the tenants
// genConfig's workloads use): random buckets, keys, stream caps, a fair
// queue with shedding, crashes with or without leases, a store outage and
// a response cache.
func genGateway(t *rapid.T, wls []WorkloadSpec) *GatewaySpec {
	g := &GatewaySpec{Weights: GatewayWeights{Input: ptr(1.0), CachedInput: ptr(rapid.Float64Range(0, 1).Draw(t, "gw.wc")), Output: ptr(rapid.Float64Range(1, 8).Draw(t, "gw.wo"))},
		MaxOutput: rapid.SampledFrom([]int{0, 200, 2000}).Draw(t, "gw.maxout"),
		LeaseTTL:  workloads.Duration(rapid.SampledFrom([]float64{0, 5, 60}).Draw(t, "gw.lease")),
		CrashRate: rapid.SampledFrom([]float64{0, 0.05, 0.5}).Draw(t, "gw.crash")}
	if rapid.Bool().Draw(t, "gw.queue?") {
		g.Queue = GatewayQueue{MaxInFlight: rapid.IntRange(1, 20).Draw(t, "gw.inflight"), Quantum: rapid.Float64Range(100, 100_000).Draw(t, "gw.quantum"),
			ShedAfter: GatewayShed{Batch: workloads.Duration(rapid.SampledFrom([]float64{0, 1, 20}).Draw(t, "gw.shedb")),
				Interactive: workloads.Duration(rapid.SampledFrom([]float64{0, 5, 60}).Draw(t, "gw.shedi"))}}
	}
	if rapid.Bool().Draw(t, "gw.outage?") {
		g.Outages = []GatewayOutage{{From: rapid.SampledFrom([]workloads.Clock{"00:00:10", "00:01", "00:02"}).Draw(t, "gw.ofrom"),
			For: workloads.Duration(rapid.Float64Range(1, 100).Draw(t, "gw.ofor")), Mode: rapid.SampledFrom([]string{FailOpen, FailClosed}).Draw(t, "gw.omode")}}
	}
	if rapid.Bool().Draw(t, "gw.cache?") {
		g.Cache = GatewayCache{TTL: workloads.Duration(rapid.Float64Range(1, 300).Draw(t, "gw.cachettl")),
			Latency: workloads.Duration(rapid.SampledFrom([]float64{0.02, 5}).Draw(t, "gw.cachelat"))}
		for i := range wls {
			wls[i].Repeats = RepeatSpec{Distinct: rapid.IntRange(0, 50).Draw(t, "gw.distinct"), Zipf: rapid.SampledFrom([]float64{0, 1.2}).Draw(t, "gw.zipf")}
		}
	}
	for _, name := range []string{"a", "b"} {
		ts := TenantSpec{Name: name, Weight: ptr(rapid.Float64Range(0.5, 4).Draw(t, "gw.weight")), MaxStreams: rapid.IntRange(0, 12).Draw(t, "gw.streams")}
		if rapid.Bool().Draw(t, "gw.units?") {
			ts.UnitsPerMin = rapid.Float64Range(10_000, 2_000_000).Draw(t, "gw.units")
			ts.Burst = rapid.Float64Range(ts.UnitsPerMin/60, ts.UnitsPerMin*2).Draw(t, "gw.burst")
		}
		if rapid.Bool().Draw(t, "gw.key?") {
			k := TenantKeySpec{Name: "gk", MaxStreams: rapid.IntRange(0, 6).Draw(t, "gw.kstreams")}
			if rapid.Bool().Draw(t, "gw.kunits?") {
				k.UnitsPerMin = rapid.Float64Range(10_000, 1_000_000).Draw(t, "gw.kunits")
				k.Burst = k.UnitsPerMin
			}
			ts.Keys = []TenantKeySpec{k}
			for i := range wls {
				if wls[i].Tenant == name && rapid.Bool().Draw(t, "gw.usekey") {
					wls[i].GatewayKey = "gk"
				}
			}
		}
		g.Tenants = append(g.Tenants, ts)
	}
	return g
}

// checker wraps a Sim and checks invariants after every event.
type checker struct {
	s    *Sim
	t    fataler
	same *sameTime
}

// fataler is what the checkers need of a test: a *rapid.T, or a
// *testing.T in the regression tests that replay one drawn scenario.
type fataler interface {
	Fatalf(format string, args ...any)
}

// sameTime counts events at one instant, to catch loops in which time
// never advances.
type sameTime struct {
	at float64
	n  int
}

func (c checker) Handle(e sim.Event) {
	c.s.Handle(e)
	now := c.s.eng.Now()
	if now != c.same.at {
		c.same.at, c.same.n = now, 0
	}
	if c.same.n++; c.same.n > 1_000_000 {
		c.t.Fatalf("a million events at t = %v without time passing (last kind %d)", now, e.Kind)
	}
	for _, p := range c.s.provs {
		sets := append([]*limitSet{p.org}, p.keys...)
		for _, ls := range sets {
			for d, w := range ls.win {
				if w == nil {
					continue
				}
				rem := w.remaining(now)
				if rem > w.capacity()+1e-6 {
					c.t.Fatalf("%s %s: remaining %v above capacity %v", p.spec.Name, dimNames[d], rem, w.capacity())
				}
				// With max_tokens reserved up front, nothing is ever taken
				// without a check, so levels never go below zero.
				if ls.reserve && !ls.countRejected && rem < -1e-6 {
					c.t.Fatalf("%s %s: remaining %v below zero", p.spec.Name, dimNames[d], rem)
				}
			}
		}
		if p.conCap > 0 && p.conUsed > p.conCap {
			c.t.Fatalf("%s: %d in service, cap %d", p.spec.Name, p.conUsed, p.conCap)
		}
	}
	for _, cl := range c.s.clus {
		for _, rep := range cl.replicas {
			if len(rep.running) > cl.spec.MaxNumSeqs {
				c.t.Fatalf("replica %d: %d running, max_num_seqs %d", rep.idx, len(rep.running), cl.spec.MaxNumSeqs)
			}
			if cl.static {
				continue
			}
			used := 0
			for _, id := range rep.running {
				used += c.s.privateBlocks(cl, rep, id)
			}
			used += rep.cachedKV()
			for _, e := range rep.prefixes.all() {
				used += int(e.blocks)
				if e.refs < 0 {
					c.t.Fatalf("prefix entry with %d references", e.refs)
				}
			}
			// KV held for transfers between disaggregated pools is held too.
			used += rep.incoming + rep.outgoing
			if rep.free < 0 || used+rep.free != cl.blocks {
				c.t.Fatalf("replica %d: %d blocks in use + %d free != %d capacity", rep.idx, used, rep.free, cl.blocks)
			}
		}
	}
	if g := c.s.gw; g != nil {
		if g.maxInFlight > 0 && (g.inFlight > g.maxInFlight || g.inFlight < 0) {
			c.t.Fatalf("gateway: %d in flight, max %d", g.inFlight, g.maxInFlight)
		}
		for _, tn := range g.tenants {
			scopes := append([]*gwScope{&tn.gwScope}, tn.keys...)
			for _, sc := range scopes {
				if sc.streams < 0 || (sc.maxStreams > 0 && sc.streams > sc.maxStreams) {
					c.t.Fatalf("tenant %s: %d streams, cap %d", tn.spec.Name, sc.streams, sc.maxStreams)
				}
				for _, b := range []*tokenBucket{sc.bucket, sc.local} {
					if b != nil && b.remaining(now) > b.size+1e-6 {
						c.t.Fatalf("tenant %s: bucket at %v above its size %v", tn.spec.Name, b.level, b.size)
					}
				}
			}
		}
	}
	for _, w := range c.s.wls {
		if w.semCap > 0 && w.semUsed > w.semCap {
			c.t.Fatalf("%s: %d client slots used, cap %d", w.spec.Name, w.semUsed, w.semCap)
		}
	}
}

// TestRandomScenarioInvariants: on random scenarios, requests are
// conserved (offered = completed + failed + in flight, overall, per
// workload and per tenant), every attempt is admitted or refused, bucket
// levels stay within [0, capacity], caps are respected, nothing panics.
func TestRandomScenarioInvariants(t *testing.T) {
	kept := keepFailing(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		kept.watch(t, cfg)
		checkInvariants(t, cfg)
	})
}

// checkInvariants runs cfg under the checker and checks its results.
func checkInvariants(t fataler, cfg Config) {
	s, err := Build(cfg)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	s.ran = true
	s.start()
	if err := s.eng.Run(context.Background(), cfg.Duration, checker{s, t, &sameTime{}}); err != nil {
		t.Fatalf("run: %v", err)
	}
	r := s.results(false)
	check := func(name string, sm Summary) {
		q := sm.Requests
		if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd || q.InFlightAtEnd < 0 {
			t.Fatalf("%s: offered %d != completed %d + failed %d + in flight %d", name, q.Offered, q.Completed, q.Failed, q.InFlightAtEnd)
		}
		var fb int64
		for _, v := range q.FailedBy {
			fb += v
		}
		if fb != q.Failed {
			t.Fatalf("%s: failures by reason sum to %d, failed %d", name, fb, q.Failed)
		}
		if sm.Attempts.Retries > sm.Attempts.Total || sm.Attempts.Total < q.Completed {
			t.Fatalf("%s: %d retries of %d attempts for %d completed", name, sm.Attempts.Retries, sm.Attempts.Total, q.Completed)
		}
	}
	check("total", r.Summary)
	if r.Summary.Requests.InFlightAtEnd != s.live {
		t.Fatalf("in flight %d, live slots %d", r.Summary.Requests.InFlightAtEnd, s.live)
	}
	for _, g := range r.Workloads {
		check(g.Name, g.Summary)
	}
	for _, g := range r.Tenants {
		check("tenant "+g.Name, g.Summary)
	}
	var att int64
	for _, b := range r.Backends {
		var rej int64
		for _, v := range b.Rejected {
			rej += v
		}
		if b.Attempts != b.Admitted+rej {
			t.Fatalf("%s: attempts %d != admitted %d + refused %d", b.Name, b.Attempts, b.Admitted, rej)
		}
		att += b.Attempts
	}
	var fallbacks int64
	for _, rt := range r.Routes {
		fallbacks += rt.Fallbacks
		var sent int64
		for _, tg := range rt.Targets {
			sent += tg.Sent
			if tg.Refused > tg.Sent {
				t.Fatalf("route %s target %s: %d refused of %d sent", rt.Name, tg.Name, tg.Refused, tg.Sent)
			}
		}
	}
	// Every attempt the router got reaches a backend once, plus once
	// more per fallback hop; without a gateway, that is every client
	// attempt.
	if att != s.routed+fallbacks {
		t.Fatalf("backend attempts %d, routed %d + fallbacks %d", att, s.routed, fallbacks)
	}
	if s.gw == nil && s.routed != r.Summary.Attempts.Total {
		t.Fatalf("routed %d of %d client attempts without a gateway", s.routed, r.Summary.Attempts.Total)
	}
	if s.gw != nil {
		checkGateway(t, s, r)
	}
	// The batch lane's enqueued tokens are those of the jobs it holds,
	// abandoned ones included.
	queued := map[*provider]float64{}
	for id := range s.reqs {
		rq := &s.reqs[id]
		if rq.state == stService && rq.batch {
			queued[s.tgt(rq).prov] += float64(rq.input)
		}
	}
	for _, p := range s.provs {
		if math.Abs(p.batchQ-queued[p]) > 1e-6 {
			t.Fatalf("%s: batch queue holds %.0f tokens, its jobs %.0f", p.spec.Name, p.batchQ, queued[p])
		}
	}
	checkCosts(t, r)
	var sc int64
	for _, v := range r.Series.Completed {
		sc += v
	}
	if sc != r.Summary.Requests.Completed {
		t.Fatalf("series completed %d, summary %d", sc, r.Summary.Requests.Completed)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("results do not marshal: %v", err)
	}
	for _, v := range r.Series.QueueLength {
		if v < -1e-9 || math.IsNaN(v) {
			t.Fatalf("queue length %v", v)
		}
	}
}

// TestSameSeedSameBytes: a scenario and seed give byte-identical JSON,
// whatever the number of workers running variants.
func TestSameSeedSameBytes(t *testing.T) {
	kept := keepFailing(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		kept.watch(t, cfg)
		checkSameBytes(t, cfg)
	})
}

// checkSameBytes runs cfg and a copy with one worker and with two.
func checkSameBytes(t fataler, cfg Config) {
	cfg2 := cfg
	cfg2.Variant = "copy"
	run := func(workers int) []byte {
		res, err := RunAll(context.Background(), []Config{cfg, cfg2}, workers, nil)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		return b
	}
	a, b := run(1), run(2)
	if !bytes.Equal(a, b) {
		t.Fatalf("outputs differ between runs")
	}
}

// checkCosts checks that every cost figure agrees: the summary's total,
// its parts, the backends', the cost series' and the clusters' own series.
func checkCosts(t fataler, r *Results) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) }
	c := r.Summary.Cost
	if parts := c.Input + c.CacheWrite + c.CacheRead + c.Output + c.GPU + c.Commitment; !near(parts, c.Total) {
		t.Fatalf("cost parts %v add to %v, total %v", c, parts, c.Total)
	}
	var backends, gpu, fixed, series float64
	for _, b := range r.Backends {
		backends += b.Cost.Total
		fixed += b.Cost.Commitment
		if b.Cluster != nil && b.Cost.Commitment != 0 {
			t.Fatalf("%s: a cluster with a commitment %v", b.Name, b.Cost.Commitment)
		}
		if cl := b.Cluster; cl != nil {
			gpu += b.Cost.GPU
			var cs float64
			for _, v := range cl.Series.CostUSD {
				cs += v
			}
			if !near(cs, b.Cost.GPU) {
				t.Fatalf("%s: GPU cost %v, its series %v", b.Name, b.Cost.GPU, cs)
			}
		}
	}
	for _, v := range r.Series.CostUSD {
		series += v
	}
	if !near(backends, c.Total) || !near(series, c.Total) || !near(gpu, c.GPU) || !near(fixed, c.Commitment) {
		t.Fatalf("cost: summary %v (GPU %v, commitment %v), backends %v (GPU %v, commitment %v), series %v", c.Total, c.GPU, c.Commitment, backends, gpu, fixed, series)
	}
	var wl, wlFixed float64
	for _, w := range r.Workloads {
		wl += w.Summary.Cost.Total
		wlFixed += w.Summary.Cost.Commitment
	}
	if wl > c.Total*(1+1e-9)+1e-9 || wlFixed > c.Commitment*(1+1e-9)+1e-9 {
		t.Fatalf("workloads cost %v (commitments %v), more than the total %v (%v)", wl, wlFixed, c.Total, c.Commitment)
	}
}

// checkGateway checks the gateway's books at the end of a run: every
// client attempt was routed or decided at the gateway; every reserved unit
// was used, refunded, lost to a crash without a lease, or is still held by
// a live request or a pending lease; streams held match live requests.
func checkGateway(t fataler, s *Sim, r *Results) {
	g := s.gw
	var decided int64
	for _, w := range r.Workloads {
		for k, v := range w.Summary.Attempts.Rejected {
			if k != "gw_crash_502" && len(k) > 3 && k[:3] == "gw_" {
				decided += v
			}
		}
	}
	queued := int64(0)
	for _, tn := range g.tenants {
		for c := range tn.q {
			for i := 0; i < tn.q[c].len(); i++ {
				if !s.reqs[tn.q[c].buf[(tn.q[c].head+i)%len(tn.q[c].buf)]].orphan {
					queued++
				}
			}
		}
	}
	if got := s.routed + decided + g.st.cacheHits + g.st.abandonedQueued + queued; got != r.Summary.Attempts.Total {
		t.Fatalf("client attempts %d != routed %d + refused at the gateway %d + cache hits %d + abandoned in its queue %d + still queued %d",
			r.Summary.Attempts.Total, s.routed, decided, g.st.cacheHits, g.st.abandonedQueued, queued)
	}
	// With a fair queue, every request at a backend holds one of its
	// slots (abandoned ones excepted: their slot went with their client).
	if g.maxInFlight > 0 {
		for id := range s.reqs {
			rq := &s.reqs[id]
			atBackend := rq.state == stService || rq.state == stBackendQueue
			if atBackend && !rq.orphan && rq.gw&gwHit == 0 && rq.gw&gwSlot == 0 {
				t.Fatalf("request %d at a backend without a gateway slot", id)
			}
		}
	}
	held := map[*gwScope]float64{}
	streams := map[*gwScope]int{}
	for id := range s.reqs {
		rq := &s.reqs[id]
		if rq.state == stFree || rq.gw&gwHeld == 0 {
			continue
		}
		w := s.wls[rq.wl]
		s.gwScopes(w, func(sc *gwScope) { held[sc] += rq.gwRes; streams[sc]++ })
	}
	pending := map[int32]bool{}
	for li := range g.leases {
		pending[int32(li)] = true
	}
	for _, li := range g.freeLeases {
		delete(pending, li)
	}
	for li := range pending {
		l := g.leases[li]
		tn := g.tenants[l.tenant]
		held[&tn.gwScope] += l.units
		if l.key >= 0 {
			held[tn.keys[l.key]] += l.units
		}
	}
	for _, tn := range g.tenants {
		for _, sc := range append([]*gwScope{&tn.gwScope}, tn.keys...) {
			st := sc.st
			sum := st.actual + st.refunded + st.lost + held[sc]
			if math.Abs(st.reserved-sum) > 1e-6*math.Max(1, st.reserved) {
				t.Fatalf("tenant %s: reserved %.3f != used %.3f + refunded %.3f + lost %.3f + held %.3f",
					tn.spec.Name, st.reserved, st.actual, st.refunded, st.lost, held[sc])
			}
			if sc.streams != streams[sc] {
				t.Fatalf("tenant %s: %d stream slots held, %d live requests hold one", tn.spec.Name, sc.streams, streams[sc])
			}
			if g.spec.CrashRate == 0 && st.lost != 0 {
				t.Fatalf("tenant %s: %.0f units lost without crashes", tn.spec.Name, st.lost)
			}
		}
	}
}
