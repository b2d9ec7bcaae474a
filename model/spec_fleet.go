package model

import (
	"fmt"

	"github.com/headroom-sim/headroom/workloads"
)

// Routing policies across a cluster's replicas.
const (
	RouteLeastWork  = "least-work"   // the accepting replica with the least outstanding work
	RouteRoundRobin = "round-robin"  // accepting replicas in turn
	RouteRandom     = "random"       // an accepting replica uniformly at random
	RoutePowerOfTwo = "power-of-two" // the less loaded of two drawn at random
	RouteLeastKV    = "least-kv"     // the accepting replica with the smallest share of KV in use
	RoutePrefix     = "prefix"       // the replica holding the request's prefix, within a load bound
	RouteSession    = "session"      // a session's requests to the same replica (rendezvous hashing)
	RouteWeighted   = "weighted"     // the best weighted sum of scorers
)

// RoutingSpec is how a cluster's router picks a replica for each request.
type RoutingSpec struct {
	Policy string `toml:"policy" enum:"least-work|round-robin|random|power-of-two|least-kv|prefix|session|weighted" noun:"routing policy" default:"least-work" doc:"least-work: the replica with the fewest waiting plus running requests; round-robin: replicas in turn; random; power-of-two: the less loaded of two drawn at random; least-kv: the smallest share of KV in use; prefix: the replica holding the request's shared prefix in its cache, unless it is loaded beyond load_bound; session: a session's requests stick to one replica (rendezvous hashing); weighted: the best weighted sum of the scorers in weights"`
	// LoadBound caps prefix-aware routing (consistent hashing with bounded
	// loads): a replica holding the prefix is chosen while it has a free
	// batch slot or its outstanding work, the request added, is within
	// load_bound × the mean.
	LoadBound float64 `toml:"load_bound" range:"[1,1000]" zero:"absent for 1.25" default:"1.25" doc:"prefix only: a replica holding the prefix is chosen while it has a free batch slot (fewer outstanding requests than max_num_seqs), or while its outstanding work, the request added, stays within load_bound times the replicas' mean (rounded up); otherwise the least loaded replica is, and caches the prefix too"`
	// Refresh makes load information stale: the router sees each replica's
	// outstanding work and KV use as of its last refresh.
	Refresh workloads.Duration `toml:"refresh" range:"[0s,1h]" default:"0s: always current" doc:"how often the router's view of each replica's load and KV use is refreshed; between refreshes it routes on the old view (a metrics scrape period); not for round-robin, random and session, which read no load"`
	Weights RoutingWeights     `toml:"weights" doc:"weighted only: the weight of each scorer; every scorer gives each replica a score in [0, 1]"`
}

// RoutingWeights are the weights of the weighted policy's scorers, as in
// llm-d's inference scheduler.
type RoutingWeights struct {
	Queue   *float64 `toml:"queue" range:"[0,1000]" default:"1" doc:"queue scorer: (most outstanding − this replica's) ÷ (most − least) over the accepting replicas, 1 when all are equal"`
	KV      *float64 `toml:"kv" range:"[0,1000]" default:"1" doc:"KV scorer: the share of the replica's KV blocks that are free"`
	Prefix  *float64 `toml:"prefix" range:"[0,1000]" default:"1" doc:"prefix scorer: the share of the request's prompt the replica holds in its prefix cache (the CPU tier counts half)"`
	Session *float64 `toml:"session" range:"[0,1000]" default:"0" doc:"session scorer: 1 for the replica the request's session hashes to, 0 for the others"`
}

// Autoscaling metrics.
const (
	MetricWaiting     = "waiting"      // waiting requests per replica
	MetricKVUse       = "kv_use"       // share of KV blocks in use
	MetricRunning     = "running"      // running sequences per replica
	MetricUtilization = "utilization"  // share of time replicas run iterations
	MetricArrivalRate = "arrival_rate" // requests per second per replica
)

// AutoscaleSpec is a reactive autoscaler in the manner of Kubernetes'
// HorizontalPodAutoscaler: every period it averages a metric over the
// period and recommends ceil(total ÷ target) replicas.
type AutoscaleSpec struct {
	Metric string  `toml:"metric" enum:"waiting|kv_use|running|utilization|arrival_rate" noun:"autoscaling metric" default:"waiting" doc:"what is averaged over each period: waiting requests per replica, the share of KV blocks in use, running sequences per replica, the share of time replicas run iterations, or arriving requests per second per replica"`
	Target float64 `toml:"target" range:"(0,1e9]" doc:"the metric's value per replica the autoscaler aims at (required); kv_use and utilization are shares, at most 1"`
	// Min and Max bound the replica count. Min 0 scales to zero: the
	// first request then waits for a cold start.
	Min *int `toml:"min" range:"[0,100000]" default:"1" doc:"fewest replicas; 0 scales to zero when idle, and a request arriving then starts one (a cold start) and waits for it"`
	Max int  `toml:"max" range:"[1,100000]" doc:"most replicas (required)"`
	// Period is how often the metric is evaluated (HPA's sync period).
	Period workloads.Duration `toml:"period" range:"[1s,1h]" default:"15s" doc:"how often the autoscaler evaluates, averaging the metric over the period just ended (Kubernetes' HPA sync period is 15 s)"`
	// Tolerance leaves the count alone while the metric is within this
	// share of the target.
	Tolerance *float64 `toml:"tolerance" range:"[0,1)" default:"0.1" doc:"no change while the metric per replica is within this share of the target (HPA's default 0.1)"`
	// UpWindow and DownWindow are the stabilisation windows: a scale-up
	// acts on the lowest recommendation of the window, a scale-down on
	// the highest.
	UpWindow   workloads.Duration  `toml:"up_window" range:"[0s,1d]" default:"0s" doc:"scale-up stabilisation window: the count rises only to the lowest recommendation made over it, so a rise must be recommended at every evaluation of the window (HPA's default 0 s)"`
	DownWindow *workloads.Duration `toml:"down_window" range:"[0s,1d]" default:"5m" doc:"scale-down stabilisation window: the count falls only to the highest recommendation made over it (HPA's default 300 s)"`
	// Provisioning and ModelLoad pass between a scale-up decision and the
	// new replica serving; both are billed.
	Provisioning workloads.Duration `toml:"provisioning" range:"[0s,1d]" default:"0s" doc:"node acquisition: from a scale-up decision to the machine being up (billed)"`
	ModelLoad    workloads.Duration `toml:"model_load" range:"[0s,1d]" default:"0s" doc:"loading the weights and warming the engine after provisioning, before the replica accepts requests (billed)"`
	Cooldown     workloads.Duration `toml:"cooldown" range:"[0s,1d]" default:"0s" doc:"after a scale action, none other for this long (a cold start from zero excepted)"`
}

// PoolSpec is one pool of a prefill/decode-disaggregated cluster. Unset
// keys take the cluster's values.
type PoolSpec struct {
	Replicas            int     `toml:"replicas" range:"[1,100000]" doc:"replicas in the pool (required)"`
	GPU                 string  `toml:"gpu" default:"the cluster's" doc:"a catalogue GPU for this pool"`
	TensorParallel      int     `toml:"tensor_parallel" unit:"GPUs" range:"[0,64]" default:"0: the cluster's" doc:"GPUs per replica of this pool"`
	MaxNumSeqs          int     `toml:"max_num_seqs" unit:"sequences" range:"[0,100000]" default:"0: the cluster's" doc:"most sequences in a batch on this pool"`
	MaxNumBatchedTokens int     `toml:"max_num_batched_tokens" unit:"tokens" range:"[0,10000000]" default:"0: the cluster's" doc:"tokens per iteration on this pool"`
	PerGPUHour          float64 `toml:"per_gpu_hour" unit:"USD" range:"[0,1e6]" default:"the cluster's price.per_gpu_hour" zero:"the cluster's price" doc:"the price of this pool's GPUs"`
	// Autoscale scales this pool on its own metric; replicas is then its
	// count at the start.
	Autoscale *AutoscaleSpec `toml:"autoscale" default:"none: a fixed count" doc:"a reactive autoscaler for this pool, as [cluster.autoscale] is for a cluster (the decode pool's waiting requests include those waiting for its KV blocks, its arrivals are the prefilled requests handed to it; it keeps one replica at least)"`
}

// TransferSpec is the link that carries a prompt's KV cache from a prefill
// replica to a decode replica.
type TransferSpec struct {
	BandwidthGBs  float64            `toml:"bandwidth_gbs" unit:"GB/s" range:"(0,1e9]" zero:"absent for the GPU's interconnect" default:"the prefill GPU's interconnect_gbs × the smaller tensor_parallel of the two pools" doc:"bandwidth of one transfer, 10⁹ bytes/s"`
	Latency       workloads.Duration `toml:"latency" range:"[0s,10s]" default:"0s" doc:"fixed time added to every transfer (connection set-up, the first byte)"`
	BytesPerToken float64            `toml:"bytes_per_token" unit:"bytes" range:"(0,1e9]" zero:"absent for the model's" default:"the model's KV bytes per token" doc:"KV-cache bytes per prompt token"`
}

// KVTierSpec is a CPU-memory tier for prefix blocks evicted from GPU memory
// (LMCache-style offloading).
type KVTierSpec struct {
	SizeGB        float64 `toml:"size_gb" unit:"GB" range:"(0,1e6]" doc:"CPU memory per replica for evicted prefix blocks (required)"`
	BandwidthGBs  float64 `toml:"bandwidth_gbs" unit:"GB/s" range:"(0,1e4]" zero:"absent for 32 GB/s" default:"32 (PCIe 4.0 x16, one way)" doc:"host-to-GPU bandwidth a hit is read back at"`
	BytesPerToken float64 `toml:"bytes_per_token" unit:"bytes" range:"(0,1e9]" zero:"absent for the model's" default:"the model's KV bytes per token" doc:"KV-cache bytes per token"`
}

// fleetDefaults fills the fleet tables' defaults. Pointed-to tables are
// copied first, so configurations that share them are never written to.
func (c *ClusterSpec) fleetDefaults() {
	r := &c.Routing
	if r.Policy == "" {
		r.Policy = RouteLeastWork
	}
	// The bound and the weights are defaulted only for the policy that
	// reads them, so that validateFleet can refuse them under another.
	if r.LoadBound == 0 && r.Policy == RoutePrefix {
		r.LoadBound = 1.25
	}
	if r.Policy == RouteWeighted {
		w := r.Weights
		def := func(p **float64, v float64) {
			if *p == nil {
				*p = &v
			}
		}
		def(&w.Queue, 1)
		def(&w.KV, 1)
		def(&w.Prefix, 1)
		def(&w.Session, 0)
		r.Weights = w
	}
	c.Autoscale = c.Autoscale.withDefaults()
	for _, p := range []**PoolSpec{&c.Prefill, &c.Decode} {
		if *p != nil && (*p).Autoscale != nil {
			q := **p
			q.Autoscale = q.Autoscale.withDefaults()
			*p = &q
		}
	}
	if c.KV.CPU != nil {
		t := *c.KV.CPU
		if t.BandwidthGBs == 0 {
			t.BandwidthGBs = 32
		}
		c.KV.CPU = &t
	}
}

// validate refuses what the routing policy would ignore: the load bound
// outside prefix routing, the weights outside weighted routing, a refresh
// period under a policy that reads no load.
func (r *RoutingSpec) validate(prefixCaching bool) error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	if r.Policy == RoutePrefix && !prefixCaching {
		return fe("routing.policy", "prefix routing sends a request to the replica holding its prefix in cache; set prefix_caching = true")
	}
	if r.LoadBound != 0 && r.Policy != RoutePrefix {
		return fe("routing.load_bound", "bounds the load of a replica prefix routing prefers; it applies to policy = \"prefix\" only (policy is %q): set the policy or remove load_bound", r.Policy)
	}
	if r.Policy != RouteWeighted {
		w := r.Weights
		for _, k := range []struct {
			key string
			v   *float64
		}{{"queue", w.Queue}, {"kv", w.KV}, {"prefix", w.Prefix}, {"session", w.Session}} {
			if k.v != nil {
				return fe("routing.weights."+k.key, "weighs a scorer of policy = \"weighted\" only (policy is %q): set the policy or remove [routing.weights]", r.Policy)
			}
		}
	}
	switch r.Policy {
	case RouteRoundRobin, RouteRandom, RouteSession:
		if r.Refresh != 0 {
			return fe("routing.refresh", "makes the router's view of replica load stale, and policy = %q reads no load; it applies to least-work, power-of-two, least-kv, prefix and weighted", r.Policy)
		}
	}
	return nil
}

// withDefaults returns a copy of a with its defaults filled (nil for nil).
func (a *AutoscaleSpec) withDefaults() *AutoscaleSpec {
	if a == nil {
		return nil
	}
	b := *a
	if b.Metric == "" {
		b.Metric = MetricWaiting
	}
	if b.Period == 0 {
		b.Period = 15
	}
	if b.Min == nil {
		one := 1
		b.Min = &one
	}
	if b.Tolerance == nil {
		tol := 0.1
		b.Tolerance = &tol
	}
	if b.DownWindow == nil {
		d := workloads.Duration(300)
		b.DownWindow = &d
	}
	return &b
}

// validate checks an autoscaler against the count it starts from.
func (a *AutoscaleSpec) validate(replicas int) error {
	fe := func(k, f string, x ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, x...)} }
	if (a.Metric == MetricKVUse || a.Metric == MetricUtilization) && a.Target > 1 {
		return fe("autoscale.target", "%s is a share of each replica, at most 1, got %g", a.Metric, a.Target)
	}
	if *a.Min > a.Max {
		return fe("autoscale.min", "%d exceeds max %d", *a.Min, a.Max)
	}
	if replicas > a.Max {
		return fe("replicas", "%d exceeds autoscale.max %d (replicas is the count at the start)", replicas, a.Max)
	}
	return nil
}

// validateFleet checks the fleet tables against each other and the rest
// of the cluster (ranges and enums, required numbers among them, are
// checked by the tags first).
func (c *ClusterSpec) validateFleet() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	if err := c.Routing.validate(c.PrefixCaching); err != nil {
		return err
	}
	if a := c.Autoscale; a != nil {
		if err := a.validate(c.Replicas); err != nil {
			return err
		}
		for i, e := range c.Schedule {
			if e.Replicas > a.Max {
				return fe(fmt.Sprintf("schedule[%d].replicas", i), "%d exceeds autoscale.max %d (with an autoscaler a schedule sets the floor)", e.Replicas, a.Max)
			}
		}
		if c.Startup > 0 {
			return fe("startup", "with [cluster.autoscale] a new replica takes autoscale.provisioning + autoscale.model_load; remove startup")
		}
		if c.Step.Per == "request" {
			return fe("autoscale", "static batches (step.per = \"request\") are not autoscaled; use step.per = \"iteration\"")
		}
	}
	if t := c.KV.CPU; t != nil {
		if !c.PrefixCaching {
			return fe("kv.cpu", "the CPU tier holds evicted prefix-cache blocks; set prefix_caching = true")
		}
		if t.BytesPerToken == 0 && (c.GPU == "" || c.Model == "") {
			return fe("kv.cpu.bytes_per_token", "missing; without gpu and model the KV bytes per token must be given")
		}
	}
	if (c.Prefill == nil) != (c.Decode == nil) {
		if c.Prefill == nil {
			return fe("prefill", "missing; a disaggregated cluster needs both [cluster.prefill] and [cluster.decode]")
		}
		return fe("decode", "missing; a disaggregated cluster needs both [cluster.prefill] and [cluster.decode]")
	}
	if c.Prefill == nil {
		if c.Transfer != (TransferSpec{}) {
			return fe("transfer", "the KV transfer applies to a disaggregated cluster only; add [cluster.prefill] and [cluster.decode], or remove it")
		}
		return nil
	}
	for _, p := range []struct {
		key  string
		pool *PoolSpec
	}{{"prefill", c.Prefill}, {"decode", c.Decode}} {
		if p.pool.GPU != "" && c.Step.Kind == "table" {
			return fe(p.key+".gpu", "a measured step table does not change with the GPU; a pool's gpu needs the roofline")
		}
		if a := p.pool.Autoscale; a != nil {
			if err := a.validate(p.pool.Replicas); err != nil {
				return workloads.Prefix(p.key, err)
			}
			if p.key == "decode" && *a.Min < 1 {
				return fe("decode.autoscale.min", "the decode pool keeps one replica at least: a prefilled request needs one to hand its KV to; set min = 1 or more")
			}
		}
	}
	switch {
	case c.Replicas != 0:
		return fe("replicas", "a disaggregated cluster's replicas are its pools': remove replicas and set prefill.replicas and decode.replicas")
	case c.Autoscale != nil:
		return fe("autoscale", "a disaggregated cluster's pools are autoscaled each on its own: move [cluster.autoscale] to [cluster.prefill.autoscale] or [cluster.decode.autoscale]")
	case len(c.Schedule) > 0:
		return fe("schedule", "disaggregated pools do not follow a schedule yet; give each pool a fixed replica count")
	case len(c.Failures) > 0:
		return fe("failure", "replica failures are not modelled for disaggregated pools yet")
	case c.Step.Per == "request":
		return fe("step.per", "static batches cannot be disaggregated; use step.per = \"iteration\"")
	case c.KV.Allocation == "contiguous":
		return fe("kv.allocation", "disaggregated pools hand a prompt's KV blocks over; use allocation = \"paged\"")
	case c.Transfer.BytesPerToken == 0 && (c.GPU == "" || c.Model == ""):
		return fe("transfer.bytes_per_token", "missing; without gpu and model the KV bytes per token must be given")
	case c.Transfer.BandwidthGBs == 0 && c.GPU == "" && c.Prefill.GPU == "":
		return fe("transfer.bandwidth_gbs", "missing; without a catalogue GPU the link's bandwidth must be given")
	}
	return nil
}
