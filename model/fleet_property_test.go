package model

import (
	"context"
	"math"
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
	if rapid.Bool().Draw(t, "fleet.stale?") {
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
		cl.Transfer = TransferSpec{BandwidthGBs: rapid.SampledFrom([]float64{0.5, 50, 1e6}).Draw(t, "fleet.bw"),
			Latency: workloads.Duration(rapid.SampledFrom([]float64{0, 0.001}).Draw(t, "fleet.lat")), BytesPerToken: 131072}
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
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		for i := range cfg.Clusters[0].Schedule {
			cfg.Clusters[0].Schedule[i].MaxNumSeqs = 0 // the checker holds batches to max_num_seqs
		}
		genFleet(t, &cfg.Clusters[0])
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
			t.Fatal(err)
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
		// Hits are counted at admission, reads at completion: a request
		// lost, abandoned or still running after its hit adds none.
		if pc := b.Cluster.PrefixCache; pc != nil && pc.GPUTokens+pc.CPUTokens < b.Tokens.CacheRead {
			t.Fatalf("prefix cache %+v, cache reads %d", pc, b.Tokens.CacheRead)
		}
	})
}

// TestFleetSteppingEqualsReference: the fast stepping and spans give the
// reference's bytes with the fleet's options on (spans on one replica, or
// one replica per pool, as elsewhere).
func TestFleetSteppingEqualsReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		cl := &cfg.Clusters[0]
		genFleet(t, cl)
		one := len(cl.Schedule) == 0 && cl.Autoscale == nil && (cl.Replicas == 1 || cl.Prefill != nil && cl.Prefill.Replicas == 1 && cl.Decode.Replicas == 1)
		sameAcrossModes(t, cfg, one)
	})
}

func TestFleetKeysInGenConfig(t *testing.T) {
	// genConfig's clusters draw fleet options too, so the conservation and
	// equivalence properties elsewhere cover them: make sure they build.
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		if _, err := Build(cfg); err != nil {
			t.Fatalf("build: %v", err)
		}
	})
}
