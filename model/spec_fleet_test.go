package model

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// Fleet tables that cannot work together are refused naming the key and
// what to do; ranges and enums come from the tags.
func TestFleetValidation(t *testing.T) {
	base := func() Config {
		c := clusterConfig(1, 100, 10, "iteration", []float64{1, 64}, []float64{0.01, 0.02}, 64, 10000)
		return c
	}
	down := workloads.Duration(60)
	cases := []struct {
		name, key, msg string
		edit           func(c *ClusterSpec)
	}{
		{"prefix routing without a cache", "routing.policy", "prefix_caching", func(c *ClusterSpec) { c.Routing.Policy = RoutePrefix }},
		{"unknown policy", "routing.policy", "unknown routing policy", func(c *ClusterSpec) { c.Routing.Policy = "fastest" }},
		{"load bound below 1", "routing.load_bound", "must be", func(c *ClusterSpec) { c.Routing.LoadBound = 0.5 }},
		{"negative weight", "routing.weights.kv", "must be", func(c *ClusterSpec) { c.Routing.Weights.KV = ptr(-1.0) }},
		{"load bound without prefix routing", "routing.load_bound", `applies to policy = "prefix" only (policy is "least-work")`, func(c *ClusterSpec) { c.Routing.LoadBound = 2 }},
		{"weights without weighted routing", "routing.weights.session", `policy = "weighted" only (policy is "session")`, func(c *ClusterSpec) {
			c.Routing.Policy = RouteSession
			c.Routing.Weights.Session = ptr(1.0)
		}},
		{"refresh under round robin", "routing.refresh", "reads no load", func(c *ClusterSpec) { c.Routing.Policy = RouteRoundRobin; c.Routing.Refresh = 5 }},
		{"autoscale without target", "autoscale.target", "must be", func(c *ClusterSpec) { c.Autoscale = &AutoscaleSpec{Max: 4} }},
		{"autoscale without max", "autoscale.max", "must be", func(c *ClusterSpec) { c.Autoscale = &AutoscaleSpec{Target: 1} }},
		{"kv_use above 1", "autoscale.target", "at most 1", func(c *ClusterSpec) { c.Autoscale = &AutoscaleSpec{Metric: MetricKVUse, Target: 2, Max: 4} }},
		{"min above max", "autoscale.min", "exceeds max", func(c *ClusterSpec) { c.Autoscale = &AutoscaleSpec{Target: 1, Max: 2, Min: ptr(3)} }},
		{"replicas above max", "replicas", "exceeds autoscale.max", func(c *ClusterSpec) { c.Replicas = 5; c.Autoscale = &AutoscaleSpec{Target: 1, Max: 2} }},
		{"schedule above max", "schedule[0].replicas", "sets the floor", func(c *ClusterSpec) {
			c.Autoscale = &AutoscaleSpec{Target: 1, Max: 2}
			c.Schedule = []ScheduleSpec{{At: "08:00", Replicas: 3}}
		}},
		{"startup with autoscale", "startup", "provisioning", func(c *ClusterSpec) { c.Autoscale = &AutoscaleSpec{Target: 1, Max: 2}; c.Startup = 60 }},
		{"tolerance of 1", "autoscale.tolerance", "< 1", func(c *ClusterSpec) { c.Autoscale = &AutoscaleSpec{Target: 1, Max: 2, Tolerance: ptr(1.0)} }},
		{"unknown metric", "autoscale.metric", "unknown autoscaling metric", func(c *ClusterSpec) {
			c.Autoscale = &AutoscaleSpec{Metric: "latency", Target: 1, Max: 2, DownWindow: &down}
		}},
		{"cpu tier without caching", "kv.cpu", "prefix_caching", func(c *ClusterSpec) { c.KV.CPU = &KVTierSpec{SizeGB: 1, BytesPerToken: 1000} }},
		{"cpu tier without size", "kv.cpu.size_gb", "must be", func(c *ClusterSpec) { c.PrefixCaching = true; c.KV.CPU = &KVTierSpec{BytesPerToken: 1000} }},
		{"cpu tier without bytes", "kv.cpu.bytes_per_token", "gpu and model", func(c *ClusterSpec) { c.PrefixCaching = true; c.KV.CPU = &KVTierSpec{SizeGB: 1} }},
		{"prefill without decode", "decode", "both", func(c *ClusterSpec) { c.Replicas = 0; c.Prefill = &PoolSpec{Replicas: 1} }},
		{"pools and replicas", "replicas", "its pools'", func(c *ClusterSpec) {
			c.Prefill, c.Decode = &PoolSpec{Replicas: 1}, &PoolSpec{Replicas: 1}
			c.Transfer = TransferSpec{BandwidthGBs: 10, BytesPerToken: 1000}
		}},
		{"pool without replicas", "prefill.replicas", "must be", func(c *ClusterSpec) { c.Replicas = 0; c.Prefill, c.Decode = &PoolSpec{}, &PoolSpec{Replicas: 1} }},
		{"transfer without pools", "transfer", "disaggregated", func(c *ClusterSpec) { c.Transfer = TransferSpec{BandwidthGBs: 10} }},
		{"pools without bytes", "transfer.bytes_per_token", "gpu and model", func(c *ClusterSpec) {
			c.Replicas = 0
			c.Prefill, c.Decode = &PoolSpec{Replicas: 1}, &PoolSpec{Replicas: 1}
			c.Transfer = TransferSpec{BandwidthGBs: 10}
		}},
		{"pools with failures", "failure", "not modelled", func(c *ClusterSpec) {
			c.Replicas = 0
			c.Prefill, c.Decode = &PoolSpec{Replicas: 1}, &PoolSpec{Replicas: 1}
			c.Transfer = TransferSpec{BandwidthGBs: 10, BytesPerToken: 1000}
			c.Failures = []FailureSpec{{Duration: 10}}
		}},
		{"pools autoscaled", "autoscale", "autoscaled each on its own", func(c *ClusterSpec) {
			c.Replicas = 0
			c.Prefill, c.Decode = &PoolSpec{Replicas: 1}, &PoolSpec{Replicas: 1}
			c.Transfer = TransferSpec{BandwidthGBs: 10, BytesPerToken: 1000}
			c.Autoscale = &AutoscaleSpec{Target: 1, Max: 2}
		}},
		{"zero bandwidth", "transfer.bandwidth_gbs", "> 0", func(c *ClusterSpec) {
			c.Replicas = 0
			c.Prefill, c.Decode = &PoolSpec{Replicas: 1}, &PoolSpec{Replicas: 1}
			c.Transfer = TransferSpec{BandwidthGBs: -1, BytesPerToken: 1000}
		}},
	}
	for _, tc := range cases {
		c := base()
		tc.edit(&c.Clusters[0])
		_, err := Build(c)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if s := err.Error(); !strings.Contains(s, "cluster[0]."+tc.key) || !strings.Contains(s, tc.msg) {
			t.Errorf("%s: %v; want key cluster[0].%s and %q", tc.name, err, tc.key, tc.msg)
		}
	}
	// And the good ones build: pools on a table with the link given.
	c := base()
	cl := &c.Clusters[0]
	cl.Replicas = 0
	cl.Prefill, cl.Decode = &PoolSpec{Replicas: 1}, &PoolSpec{Replicas: 2, MaxNumSeqs: 8}
	cl.Transfer = TransferSpec{BandwidthGBs: 10, BytesPerToken: 1000}
	if _, err := Build(c); err != nil {
		t.Errorf("pools: %v", err)
	}
	// The bound and the weights under the policies that read them, the
	// weights not given taking their defaults.
	c = base()
	c.Clusters[0].PrefixCaching = true
	c.Clusters[0].Routing = RoutingSpec{Policy: RoutePrefix, LoadBound: 2, Refresh: 1}
	if _, err := Build(c); err != nil {
		t.Errorf("prefix routing with a bound: %v", err)
	}
	c = base()
	c.Clusters[0].Routing = RoutingSpec{Policy: RouteWeighted, Weights: RoutingWeights{Session: ptr(2.0)}}
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		t.Errorf("weighted routing: %v", err)
	}
	if w := c.Clusters[0].Routing.Weights; *w.Queue != 1 || *w.KV != 1 || *w.Prefix != 1 || *w.Session != 2 {
		t.Errorf("weights %v %v %v %v, want the defaults 1, 1, 1 and the session's 2", *w.Queue, *w.KV, *w.Prefix, *w.Session)
	}
}

// A pool's GPU and tensor parallelism are its own, and the link defaults
// to the prefill GPU's interconnect times the smaller TP.
func TestPoolHardware(t *testing.T) {
	c := clusterConfig(1, 100, 10, "iteration", nil, nil, 64, 0)
	cl := &c.Clusters[0]
	cl.Step, cl.KV = StepSpec{}, KVSpec{}
	cl.GPU, cl.Model, cl.Replicas = "H100-SXM", "llama-3.1-70b", 0
	cl.Prefill = &PoolSpec{Replicas: 1, TensorParallel: 4}
	cl.Decode = &PoolSpec{Replicas: 1, TensorParallel: 8, GPU: "H200"}
	r := mustRun(t, c)
	cr := r.Backends[0].Cluster
	p, d := cr.Pools[0], cr.Pools[1]
	if p.GPUs != 4 || d.GPUs != 8 || d.GPU != "H200" || p.GPU != "H100-SXM" || cr.GPUs != 12 || d.KVBlocks <= p.KVBlocks {
		t.Fatalf("pools %+v %+v", p, d)
	}
	if tr := cr.Transfer; tr.BandwidthGBs != 450*4 || tr.BytesPerToken != 327680 {
		t.Errorf("transfer %+v, want 4 × 450 GB/s and Llama-3.1-70B's 320 KiB a token", tr)
	}
}
