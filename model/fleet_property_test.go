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

// genFleet draws the fleet options of a generated cluster: a routing
// policy (with a stale view sometimes), an autoscaler, a CPU tier for the
// KV cache, or prefill/decode pools. Pools exclude schedules, failures and
// autoscaling, as validation requires.
func genFleet(t *rapid.T, cl *ClusterSpec) {
	policies := []string{RouteLeastWork, RouteRoundRobin, RouteRandom, RoutePowerOfTwo, RouteLeastKV, RouteSession, RouteWeighted}
	if cl.PrefixCaching {
		policies = append(policies, RoutePrefix)
	}
	cl.Routing.Policy = rapid.SampledFrom(policies).Draw(t, "fleet.policy")
	if readsLoad := cl.Routing.Policy != RouteRoundRobin && cl.Routing.Policy != RouteRandom && cl.Routing.Policy != RouteSession; rapid.Bool().Draw(t, "fleet.stale?") && readsLoad {
		cl.Routing.Refresh = workloads.Duration(rapid.SampledFrom([]float64{0.05, 1, 5}).Draw(t, "fleet.refresh"))
	}
	if cl.Routing.Policy == RouteWeighted {
		w := func(l string) *float64 { return ptr(rapid.SampledFrom([]float64{0, 0.5, 1, 3}).Draw(t, l)) }
		cl.Routing.Weights = RoutingWeights{Queue: w("fleet.wq"), KV: w("fleet.wkv"), Prefix: w("fleet.wpre"), Session: w("fleet.wses")}
	}
	if cl.PrefixCaching && rapid.Bool().Draw(t, "fleet.cpu?") {
		cl.KV.CPU = &KVTierSpec{SizeGB: rapid.SampledFrom([]float64{0.01, 0.1, 10}).Draw(t, "fleet.cpusize"),
			BandwidthGBs: rapid.SampledFrom([]float64{1, 32}).Draw(t, "fleet.cpubw"), BytesPerToken: 131072}
	}
	static := cl.Step.Per == "request"
	switch rapid.IntRange(0, 2).Draw(t, "fleet.mode") {
	case 1:
		if static {
			return
		}
		mx := rapid.IntRange(max(cl.Replicas, 1), 4).Draw(t, "fleet.max")
		metric := rapid.SampledFrom([]string{MetricWaiting, MetricKVUse, MetricRunning, MetricUtilization, MetricArrivalRate}).Draw(t, "fleet.metric")
		target := rapid.Float64Range(0.05, 1).Draw(t, "fleet.target")
		if metric != MetricKVUse && metric != MetricUtilization {
			target *= 10
		}
		down := workloads.Duration(rapid.SampledFrom([]float64{0, 15, 60}).Draw(t, "fleet.down"))
		cl.Autoscale = &AutoscaleSpec{Metric: metric, Target: target, Max: mx, Min: ptr(rapid.IntRange(0, min(cl.Replicas, mx)).Draw(t, "fleet.min")),
			Period:       workloads.Duration(rapid.SampledFrom([]float64{1, 5, 15}).Draw(t, "fleet.period")),
			UpWindow:     workloads.Duration(rapid.SampledFrom([]float64{0, 15}).Draw(t, "fleet.up")),
			DownWindow:   &down,
			Provisioning: workloads.Duration(rapid.SampledFrom([]float64{0, 5, 20}).Draw(t, "fleet.prov")),
			ModelLoad:    workloads.Duration(rapid.SampledFrom([]float64{0, 3}).Draw(t, "fleet.load")),
			Cooldown:     workloads.Duration(rapid.SampledFrom([]float64{0, 10}).Draw(t, "fleet.cool"))}
		for i := range cl.Schedule {
			cl.Schedule[i].Replicas = min(cl.Schedule[i].Replicas, mx)
		}
	case 2:
		if static || cl.KV.Allocation == "contiguous" {
			return
		}
		cl.Replicas = 0
		cl.Schedule, cl.Failures = nil, nil
		cl.Prefill = &PoolSpec{Replicas: rapid.IntRange(1, 2).Draw(t, "fleet.prefill"), MaxNumSeqs: rapid.IntRange(0, 16).Draw(t, "fleet.pseqs")}
		cl.Decode = &PoolSpec{Replicas: rapid.IntRange(1, 2).Draw(t, "fleet.decode")}
		if cl.GPU != "" && rapid.Bool().Draw(t, "fleet.dgpu?") {
			cl.Decode.GPU = "A100-80GB" // its own hardware: other step times
		}
		cl.Transfer = TransferSpec{BandwidthGBs: rapid.SampledFrom([]float64{0.5, 50, 1e6}).Draw(t, "fleet.bw"),
			Latency: workloads.Duration(rapid.SampledFrom([]float64{0, 0.001}).Draw(t, "fleet.lat")), BytesPerToken: 131072}
		for _, p := range []struct {
			pool  *PoolSpec
			floor int // the decode pool keeps a replica
		}{{cl.Prefill, 0}, {cl.Decode, 1}} {
			if !rapid.Bool().Draw(t, "fleet.poolas?") {
				continue
			}
			mx := rapid.IntRange(p.pool.Replicas, 3).Draw(t, "fleet.poolmax")
			metric := rapid.SampledFrom([]string{MetricWaiting, MetricKVUse, MetricRunning, MetricUtilization, MetricArrivalRate}).Draw(t, "fleet.poolmetric")
			target := rapid.Float64Range(0.05, 1).Draw(t, "fleet.pooltarget")
			if metric != MetricKVUse && metric != MetricUtilization {
				target *= 10
			}
			down := workloads.Duration(rapid.SampledFrom([]float64{0, 15}).Draw(t, "fleet.pooldown"))
			p.pool.Autoscale = &AutoscaleSpec{Metric: metric, Target: target, Max: mx, Min: ptr(rapid.IntRange(p.floor, p.pool.Replicas).Draw(t, "fleet.poolmin")),
				Period:       workloads.Duration(rapid.SampledFrom([]float64{1, 5}).Draw(t, "fleet.poolperiod")),
				DownWindow:   &down,
				Provisioning: workloads.Duration(rapid.SampledFrom([]float64{0, 5}).Draw(t, "fleet.poolprov")),
				ModelLoad:    workloads.Duration(rapid.SampledFrom([]float64{0, 2}).Draw(t, "fleet.poolload"))}
		}
	}
}

// fleetChecker adds the fleet's invariants to the checker's, after every
// event: an autoscaled cluster's count stays within [min, max] (draining
// replicas included, it never exceeds max), and the provisioned GPUs are
// integrated, to compare with the GPU-hours billed.
type fleetChecker struct {
	checker
	last, gpuSec float64
	// the provisioned GPUs since the last event
	gpus float64
}

func (f *fleetChecker) Handle(e sim.Event) {
	now := e.Time
	f.gpuSec += f.gpus * (now - f.last)
	f.last = now
	f.checker.Handle(e)
	f.gpus = 0
	for _, cl := range f.s.clus {
		active, prov := 0, 0
		for _, rep := range cl.replicas {
			if rep.state == repUp || rep.state == repStarting {
				active++
			}
			if rep.state != repDown {
				prov++
			}
			if rep.incoming < 0 || rep.outgoing < 0 {
				f.t.Fatalf("replica %d: %d blocks incoming, %d outgoing", rep.idx, rep.incoming, rep.outgoing)
			}
		}
		f.gpus += float64(prov * cl.spec.TensorParallel)
		if a := cl.as; a != nil {
			if active != cl.target || active < min(*a.spec.Min, a.spec.Max) || active > a.spec.Max || prov > a.spec.Max {
				f.t.Fatalf("%s: %d active (target %d), %d provisioned, outside [%d, %d]", cl.spec.Name, active, cl.target, prov, *a.spec.Min, a.spec.Max)
			}
		}
	}
}

// TestFleetInvariants: on random scenarios with fleet options, requests
// are conserved, replicas stay within the autoscaler's bounds, KV blocks
// (transfers in and out included) add up, and the GPU-hours billed are the
// integral of the GPUs provisioned.
func TestFleetInvariants(t *testing.T) {
	kept := keepFailing(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		for i := range cfg.Clusters[0].Schedule {
			cfg.Clusters[0].Schedule[i].MaxNumSeqs = 0 // the checker holds batches to max_num_seqs
		}
		genFleet(t, &cfg.Clusters[0])
		kept.watch(t, cfg)
		checkFleet(t, cfg)
	})
}

// checkFleet runs cfg under the fleet's checker and checks its results.
func checkFleet(t fataler, cfg Config) *Results {
	s, err := Build(cfg)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	s.ran = true
	s.start()
	fc := &fleetChecker{checker: checker{s, t, &sameTime{}}}
	for _, cl := range s.clus {
		for _, rep := range cl.replicas {
			if rep.state != repDown {
				fc.gpus += float64(cl.spec.TensorParallel)
			}
		}
	}
	if err := s.eng.Run(context.Background(), cfg.Duration, fc); err != nil {
		t.Fatalf("run: %v", err)
	}
	fc.gpuSec += fc.gpus * (cfg.Duration - fc.last)
	r := s.results(false)
	q := r.Summary.Requests
	if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd || q.InFlightAtEnd != s.live {
		t.Fatalf("requests %+v, %d live", q, s.live)
	}
	b := r.Backends[len(r.Backends)-1]
	var rej int64
	for _, v := range b.Rejected {
		rej += v
	}
	if b.Attempts != b.Admitted+rej {
		t.Fatalf("%s: attempts %d != admitted %d + refused %d", b.Name, b.Attempts, b.Admitted, rej)
	}
	if hours := b.Cluster.GPUHours; math.Abs(hours*3600-fc.gpuSec) > 1e-6*math.Max(1, fc.gpuSec) {
		t.Fatalf("GPU-hours %.9f, integral of provisioned GPUs %.9f", hours, fc.gpuSec/3600)
	}
	var routed int64
	for _, v := range b.Cluster.Routing.Routed {
		routed += v
	}
	if routed > b.Attempts {
		t.Fatalf("routed %d of %d attempts", routed, b.Attempts)
	}
	// Hits are counted at an attempt's first admission to a batch, reads
	// when the cluster finishes it; an attempt a replica failure refuses
	// takes its hit back. So the tokens hit are the tokens read plus those
	// of the attempts still held at the end, unless a client gave up on an
	// attempt the cluster then dropped (hit, never read): then only at
	// least.
	if pc := b.Cluster.PrefixCache; pc != nil {
		hit, read := pc.GPUTokens+pc.CPUTokens, b.Tokens.CacheRead
		held := heldCacheTokens(s)
		if hit < read || b.Abandoned == 0 && hit != read+held {
			t.Fatalf("prefix-cache tokens %d (%+v) against cache reads %d + %d held at the end (abandoned %d)", hit, pc, read, held, b.Abandoned)
		}
	}
	return r
}

// TestFailureTakesBackPrefixHits replays a drawn scenario: a replica
// fails a second into the run and its clients retry what it held. The
// hits of the attempts it refused were once left counted, so the cluster
// reported more prefix-cache tokens than its requests read (96 against
// 95) though every request completed.
func TestFailureTakesBackPrefixHits(t *testing.T) {
	chunked := false
	one := workloads.Dist{Kind: "uniform", Min: 1, Max: 1}
	wl := func(name string, rate float64, prefix int) WorkloadSpec {
		return WorkloadSpec{Name: name, Route: "gpu", Priority: PriorityInteractive,
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: rate},
			Tokens: workloads.TokenSpec{Input: one, Output: one, MaxTokens: 1, SharedPrefix: prefix, Prefixes: 1},
			Client: ClientSpec{Retry: RetrySpec{Preset: "anthropic-python"}}}
	}
	cfg := Config{Name: "failure", Seed: 0x1b, Duration: 30, Interval: 30,
		Workloads: []WorkloadSpec{wl("w0", 1, 0), wl("w1", 3.5, 2)},
		Clusters: []ClusterSpec{{Name: "gpu", Replicas: 2, MaxNumSeqs: 1, MaxNumBatchedTokens: 64, ChunkedPrefill: &chunked,
			Order: "fcfs", Scheduler: "vllm", PrefixCaching: true, GPU: "H100-SXM", Model: "llama-3.1-8b",
			KV:       KVSpec{Allocation: "paged", BlockSize: 1, Blocks: 200},
			Failures: []FailureSpec{{After: 1, Duration: 30, Replica: 0, Requests: "retry"}},
			Routing:  RoutingSpec{Policy: RouteLeastWork}}}}
	r := checkFleet(t, cfg)
	b := r.Backends[len(r.Backends)-1]
	q := r.Summary.Requests
	if b.Rejected["replica_failure"] == 0 || q.Failed != 0 || q.InFlightAtEnd != 0 {
		t.Fatalf("the failure should refuse attempts that all complete on retry: refused %v, requests %+v", b.Rejected, q)
	}
	if pc := b.Cluster.PrefixCache; pc.GPUTokens != b.Tokens.CacheRead {
		t.Fatalf("prefix-cache GPU tokens %d against cache reads %d", pc.GPUTokens, b.Tokens.CacheRead)
	}
}

// heldCacheTokens sums the prefix-cache tokens of the attempts a cluster
// still holds, admitted to a batch at least once (running, preempted, in
// transfer or waiting to decode).
func heldCacheTokens(s *Sim) int64 {
	var n int64
	for id := range s.reqs {
		r := &s.reqs[id]
		if r.state != stBackendQueue && r.state != stService {
			continue
		}
		c := s.wls[r.wl].targets[r.tgt].clus
		if sq := &s.seqs[id]; c != nil && sq.started && c.spec.PrefixCaching && s.hasPrefix(c, int32(id)) {
			n += int64(sq.cached)
		}
	}
	return n
}

// TestFleetSteppingEqualsReference: the fast stepping and spans give the
// reference's bytes with the fleet's options on. Spans are compared on one
// replica, as elsewhere, or on one replica per pool when the pools' GPUs
// differ: a transfer's end starts both pools' replicas at once, and on the
// same hardware a one-token prefill and a one-sequence decode can take
// exactly the same time, so both iterations end at the same instant, a
// tie spans may take in the other order (TestPoolsTieIsOnlyOrder).
func TestFleetSteppingEqualsReference(t *testing.T) {
	kept := keepFailing(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		cl := &cfg.Clusters[0]
		genFleet(t, cl)
		kept.watch(t, cfg)
		sameAcrossModes(t, cfg, spansComparable(cl))
	})
}

// spansComparable reports whether spans can be compared on a generated
// cluster (see TestFleetSteppingEqualsReference).
func spansComparable(cl *ClusterSpec) bool {
	return len(cl.Schedule) == 0 && cl.Autoscale == nil && cl.Replicas == 1 || onePerPool(cl) && cl.Decode.GPU != ""
}

// onePerPool reports whether a cluster has pools of one replica each,
// never more (no autoscaler).
func onePerPool(cl *ClusterSpec) bool {
	return cl.Prefill != nil && cl.Prefill.Replicas == 1 && cl.Decode.Replicas == 1 && cl.Prefill.Autoscale == nil && cl.Decode.Autoscale == nil
}

func TestFleetKeysInGenConfig(t *testing.T) {
	kept := keepFailing(t)
	// genConfig's clusters draw fleet options too, so the conservation and
	// equivalence properties elsewhere cover them: make sure they build.
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		kept.watch(t, cfg)
		if _, err := Build(cfg); err != nil {
			t.Fatalf("build: %v", err)
		}
	})
}

// TestPoolsTieIsOnlyOrder replays a drawn scenario in which a one-token
// prefill and a one-sequence decode on the same GPU end at the same
// instant: the iteration stepping gives the reference's bytes, and spans
// give them too but for the order of two completions at that instant, so
// a latency mean differs in its last bits.
func TestPoolsTieIsOnlyOrder(t *testing.T) {
	chunked := false
	wl := func(name string, rate, out float64, maxtok, prefix, conc int) WorkloadSpec {
		return WorkloadSpec{Name: name, Route: "gpu", Priority: PriorityInteractive,
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: rate},
			Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: "uniform", Min: 1, Max: 1}, Output: workloads.Dist{Kind: "uniform", Min: 1, Max: out},
				MaxTokens: maxtok, SharedPrefix: prefix, Prefixes: 1},
			Client: ClientSpec{MaxConcurrency: conc, Retry: RetrySpec{Preset: "anthropic-python"}}}
	}
	cfg := Config{Name: "pools", Seed: 0x249cb6d7f, Duration: 30, Interval: 30,
		Workloads: []WorkloadSpec{wl("w0", 1, 1, 0, 0, 0), wl("w1", 53.84375, 9, 3, 43, 2)},
		Clusters: []ClusterSpec{{Name: "gpu", MaxNumSeqs: 1, MaxNumBatchedTokens: 64, ChunkedPrefill: &chunked,
			Order: "fcfs", Scheduler: "vllm", GPU: "H100-SXM", Model: "llama-3.1-8b",
			KV:      KVSpec{Allocation: "paged", BlockSize: 1, Blocks: 200},
			Prefill: &PoolSpec{Replicas: 1}, Decode: &PoolSpec{Replicas: 1},
			Transfer: TransferSpec{BandwidthGBs: 0.5, Latency: 0.001, BytesPerToken: 131072}}}}
	ref := runStepping(t, cfg, modeReference)
	if it := runStepping(t, cfg, modeIteration); !bytes.Equal(it, ref) {
		t.Fatalf("iteration stepping differs from the reference:\ngot %s\nref %s", firstDiff(it, ref), firstDiff(ref, it))
	}
	sp := runStepping(t, cfg, modeSpans)
	if bytes.Equal(sp, ref) {
		t.Fatalf("spans equal the reference: the tie this test keeps is gone")
	}
	var a, b any
	if err := json.Unmarshal(sp, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ref, &b); err != nil {
		t.Fatal(err)
	}
	if path := nearlyEqual(a, b, "", 1e-14); path != "" {
		t.Fatalf("spans differ from the reference beyond rounding at %s", path)
	}
}

// nearlyEqual compares two decoded JSON values, numbers within rel; it
// returns the path of the first difference, or "".
func nearlyEqual(a, b any, path string, rel float64) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return path
		}
		for k, v := range x {
			if p := nearlyEqual(v, y[k], path+"."+k, rel); p != "" {
				return p
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return path
		}
		for i := range x {
			if p := nearlyEqual(x[i], y[i], path+"["+strconv.Itoa(i)+"]", rel); p != "" {
				return p
			}
		}
	case float64:
		y, ok := b.(float64)
		if !ok || math.Abs(x-y) > rel*math.Max(math.Abs(x), math.Abs(y)) {
			return path
		}
	default:
		if a != b {
			return path
		}
	}
	return ""
}
