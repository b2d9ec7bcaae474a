package model

import (
	"fmt"

	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// ClusterSpec is a pool of self-hosted GPU replicas running an inference
// engine with continuous batching (vLLM-style). A workload routes to it by
// name, exactly as to a provider.
type ClusterSpec struct {
	Name     string `toml:"name" default:"required" doc:"what workloads route to; unique among providers, clusters and routes"`
	Replicas int    `toml:"replicas" range:"[0,100000]" default:"0" doc:"identical replicas; a request goes to the accepting replica with the least outstanding work. 0 switches the cluster off (no cost): no workload may then route to it directly, and a route needs another target. A schedule entry in effect replaces it"`
	GPU      string `toml:"gpu" doc:"a catalogue GPU (headroom catalogue), for the roofline and the KV capacity"`
	Model    string `toml:"model" doc:"a catalogue model, the one served"`
	// TensorParallel is GPUs per replica (default 1); it must divide the
	// model's attention heads, and divide or be a multiple of its KV heads.
	TensorParallel int `toml:"tensor_parallel" unit:"GPUs" range:"[1,64]" default:"1" doc:"GPUs per replica; must divide the model's attention heads, and divide or be a multiple of its KV heads"`
	// WeightDtype is how the weights are stored: bf16, fp16, fp8 (FP8
	// weights and activations, on FP8 tensor cores where the GPU has them),
	// int8 or int4 (weight-only, computed in 16 bits). Default: the
	// checkpoint's (model_spec.dtype_bytes, or the catalogue's).
	WeightDtype string `toml:"weight_dtype" enum:"bf16|fp16|fp8|int8|int4" noun:"weight dtype" default:"the checkpoint's" doc:"how the weights are stored: fp8 runs on FP8 tensor cores where the GPU has them; int8 and int4 are weight-only, computed in 16 bits"`
	// KVCacheDtype is the KV cache's element type: bf16, fp16 or fp8
	// (default: the checkpoint's).
	KVCacheDtype string `toml:"kv_cache_dtype" enum:"bf16|fp16|fp8" noun:"KV cache dtype" default:"the checkpoint's" doc:"the KV cache's element type"`
	// Scheduler is how a replica admits and evicts: "vllm" (default:
	// chunked prefill, a token budget, admission while free blocks stay
	// above kv.watermark, recompute preemption when a running sequence
	// needs a block, no admission in an iteration that preempted) or
	// "no-evict" (TensorRT-LLM's guaranteed-no-evict: a request is admitted
	// only when the blocks of its prompt plus max_tokens are free beside
	// every running request's, so nothing is ever preempted).
	Scheduler string `toml:"scheduler" enum:"vllm|no-evict" noun:"scheduler" default:"vllm" doc:"vllm: token budget, admission above the free-block watermark, recompute preemption; no-evict (TensorRT-LLM's guaranteed-no-evict): admit only what can finish, never preempt"`
	// GPUSpec and ModelSpec override catalogue figures.
	GPUSpec   GPUOverride   `toml:"gpu_spec" doc:"overrides of the catalogue GPU's figures (0 keeps them)"`
	ModelSpec ModelOverride `toml:"model_spec" doc:"overrides of the catalogue model's figures (0 keeps them)"`

	Step StepSpec `toml:"step" doc:"how long one engine iteration takes: a measured table or a roofline"`

	MaxNumSeqs          int    `toml:"max_num_seqs" unit:"sequences" range:"[1,100000]" default:"256" doc:"most sequences in a batch"`
	MaxNumBatchedTokens int    `toml:"max_num_batched_tokens" unit:"tokens" range:"[1,10000000]" default:"8192" doc:"tokens per iteration: one per decoding sequence plus prefill chunks"`
	ChunkedPrefill      *bool  `toml:"chunked_prefill" default:"true" doc:"split long prompts across iterations; when false a prompt is admitted only if it fits the iteration whole"`
	Order               string `toml:"order" enum:"fcfs|priority" noun:"order" default:"fcfs" doc:"priority admits interactive workloads before priority = \"batch\" ones"`
	MaxWaiting          int    `toml:"max_waiting" unit:"requests" range:"[0,100000000]" default:"0: unbounded" doc:"waiting requests per replica; beyond it, a 503 queue_full"`

	KV            KVSpec       `toml:"kv" doc:"the KV-cache memory of one replica"`
	PrefixCaching bool         `toml:"prefix_caching" doc:"shared prompt prefixes stay resident and later requests skip their prefill"`
	Price         ClusterPrice `toml:"price" default:"none: the GPUs cost nothing (a warning says so)" doc:"the cost of the GPUs, busy or idle"`

	// Schedule changes the replica count and batch size by time of day
	// (repeating daily): a conservative batch in business hours and an
	// aggressive one at night, or fewer replicas overnight.
	Schedule []ScheduleSpec `toml:"schedule" doc:"replica count and batch size by time of day, repeating daily"`
	// Startup is how long a replica added by the schedule takes to
	// accept requests (billed from the moment it is provisioned).
	Startup workloads.Duration `toml:"startup" range:"[0s,1d]" default:"0s" doc:"how long a replica added by the schedule takes to accept requests (billed meanwhile)"`
	// Failures take replicas down for a while.
	Failures []FailureSpec `toml:"failure" doc:"periods in which one replica is down"`

	// The fleet (spec_fleet.go): how requests are spread over replicas,
	// reactive autoscaling, and prefill/decode disaggregation.
	Routing   RoutingSpec    `toml:"routing" doc:"how the router picks a replica for each request"`
	Autoscale *AutoscaleSpec `toml:"autoscale" default:"none: a fixed count, or the schedule" doc:"a reactive autoscaler (Kubernetes HPA-like) between min and max replicas"`
	Prefill   *PoolSpec      `toml:"prefill" default:"none: prefill and decode share replicas" doc:"the prefill pool of a disaggregated cluster"`
	Decode    *PoolSpec      `toml:"decode" default:"none: prefill and decode share replicas" doc:"the decode pool of a disaggregated cluster"`
	Transfer  TransferSpec   `toml:"transfer" doc:"the link carrying each prompt's KV cache from the prefill pool to the decode pool"`
}

// ScheduleSpec applies from a clock time until the next entry, every day.
type ScheduleSpec struct {
	At         workloads.Clock `toml:"at" default:"required" doc:"the clock time this entry applies from, every day"`
	Replicas   int             `toml:"replicas" range:"[0,100000]" default:"0: keep the current count" doc:"replicas from then on"`
	MaxNumSeqs int             `toml:"max_num_seqs" range:"[0,100000]" default:"0: keep the current value" doc:"max_num_seqs from then on"`
}

// FailureSpec is a period in which one replica is down.
type FailureSpec struct {
	At       workloads.Clock    `toml:"at" doc:"start, at the first occurrence of this clock time (or use after)"`
	After    workloads.Duration `toml:"after" range:"[0s,inf)" default:"0s" doc:"start, as time since t = 0"`
	Duration workloads.Duration `toml:"duration" range:"(0s,366d]" default:"required" doc:"how long the replica stays down"`
	Replica  int                `toml:"replica" range:"[0,100000)" default:"0" doc:"which replica, numbered from 0"`
	// Requests is what happens to the requests it held: "retry" (default:
	// the client gets a 503 and its retry policy decides) or "lose" (they
	// fail).
	Requests string `toml:"requests" enum:"retry|lose" noun:"failure mode" default:"retry" doc:"what happens to the requests it held: retry (the client gets a 503 replica_failure and its retry policy decides) or lose (they fail as replica_lost)"`
}

// GPUOverride replaces catalogue GPU figures; zero keeps the catalogue's.
type GPUOverride struct {
	Name         string  `toml:"name" default:"the catalogue name, marked as changed" doc:"what results call the GPU"`
	TFLOPS       float64 `toml:"tflops" unit:"TFLOP/s" range:"[0,1e5]" default:"the catalogue's" doc:"dense BF16 throughput"`
	FP8TFLOPS    float64 `toml:"fp8_tflops" unit:"TFLOP/s" range:"[0,1e5]" default:"the catalogue's" doc:"dense FP8 throughput"`
	BandwidthGBs float64 `toml:"bandwidth_gbs" unit:"GB/s" range:"[0,1e6]" default:"the catalogue's" doc:"memory bandwidth"`
	MemoryGB     float64 `toml:"memory_gb" unit:"GB" range:"[0,1e5]" default:"the catalogue's" doc:"memory per GPU"`
	// InterconnectGBs is GPU-to-GPU bandwidth, one way.
	InterconnectGBs float64 `toml:"interconnect_gbs" unit:"GB/s" range:"[0,1e5]" default:"the catalogue's" doc:"GPU-to-GPU bandwidth, one way, for tensor-parallel all-reduces"`
}

// ModelOverride replaces catalogue model figures; zero keeps the catalogue's.
type ModelOverride struct {
	Name            string  `toml:"name" default:"the catalogue name, marked as changed" doc:"what results call the model"`
	Params          float64 `toml:"params" range:"[0,1e14]" default:"the catalogue's" doc:"total parameters (all experts)"`
	ActiveParams    float64 `toml:"active_params" range:"[0,1e14]" default:"params, or the catalogue's for a mixture of experts" doc:"parameters used per token"`
	Experts         int     `toml:"experts" range:"[0,10000000]" default:"the catalogue's" doc:"routed experts per layer (mixture of experts)"`
	ExpertsPerToken int     `toml:"experts_per_token" range:"[0,10000000]" default:"the catalogue's" doc:"routed experts each token uses (top-k)"`
	Layers          int     `toml:"layers" range:"[0,10000000]" default:"the catalogue's" doc:"transformer layers"`
	Hidden          int     `toml:"hidden" range:"[0,10000000]" default:"the catalogue's" doc:"hidden size"`
	Heads           int     `toml:"heads" range:"[0,10000000]" default:"the catalogue's" doc:"attention heads"`
	KVHeads         int     `toml:"kv_heads" range:"[0,10000000]" default:"the catalogue's" doc:"key-value heads"`
	HeadDim         int     `toml:"head_dim" range:"[0,10000000]" default:"the catalogue's" doc:"dimension of a head"`
	KVDim           int     `toml:"kv_dim" range:"[0,10000000]" default:"the catalogue's" doc:"latent KV elements per layer and token, held whole by every rank (multi-head latent attention)"`
	FFN             int     `toml:"ffn" range:"[0,10000000]" default:"the catalogue's" doc:"feed-forward width (per expert for a mixture of experts)"`
	Vocab           int     `toml:"vocab" range:"[0,10000000]" default:"the catalogue's" doc:"vocabulary size"`
	DtypeBytes      float64 `toml:"dtype_bytes" unit:"bytes" range:"[0,8]" default:"the catalogue's" doc:"bytes per weight and KV element of the checkpoint"`
}

// StepSpec chooses how long one engine iteration takes.
type StepSpec struct {
	// Kind: "table" (measured batch-size curve) or "roofline" (from the
	// GPU and model specs). Default: roofline when gpu and model are set.
	Kind string `toml:"kind" enum:"table|roofline" noun:"step model" default:"table when batches is given, else roofline" doc:"a measured batch-size table, or a roofline from the GPU and model figures"`
	// Per: for a table, whether a time is one decode iteration
	// ("iteration", continuous batching) or a whole request served in a
	// static batch ("request": a batch of B requests finishes together
	// after Times[B]).
	Per     string               `toml:"per" enum:"iteration|request" noun:"table unit" default:"iteration" doc:"table: a time is one engine iteration (continuous batching), or a whole static batch of requests finishing together"`
	Batches []float64            `toml:"batches" range:"[1,1000000]" doc:"table: batch sizes, strictly increasing"`
	Times   []workloads.Duration `toml:"times" range:"(0s,1h]" doc:"table: the time at each batch size, non-decreasing; linear in between, the last slope beyond"`
	// PrefillPerToken and PerContextToken add prefill and attention cost
	// to a table's iteration time.
	PrefillPerToken workloads.Duration `toml:"prefill_per_token" range:"[0s,1s]" default:"0" doc:"table: added per prefill token"`
	PerContextToken workloads.Duration `toml:"per_context_token" range:"[0s,1s]" default:"0" doc:"table: added per KV token read"`
	// Roofline efficiency factors and fixed overhead per iteration.
	ComputeEff   float64            `toml:"compute_efficiency" range:"(0,1]" default:"fitted (headroom catalogue)" doc:"roofline: share of dense throughput the large GEMMs achieve"`
	BandwidthEff float64            `toml:"bandwidth_efficiency" range:"(0,1]" default:"fitted (headroom catalogue)" doc:"roofline: share of memory bandwidth achieved"`
	Overhead     workloads.Duration `toml:"overhead" range:"[0s,1h]" default:"0" doc:"fixed time per iteration"`
	// Roofline costs per layer and per sequence of each iteration, and per
	// step of a ring all-reduce (nil: the fitted defaults).
	OverheadPerLayer  *workloads.Duration `toml:"overhead_per_layer" range:"[0s,100ms]" default:"fitted" doc:"roofline: fixed cost per layer of each iteration (kernel launches)"`
	OverheadPerSeq    *workloads.Duration `toml:"overhead_per_seq" range:"[0s,100ms]" default:"fitted" doc:"roofline: cost per sequence of each iteration (sampling, scheduling)"`
	CollectiveLatency *workloads.Duration `toml:"collective_latency" range:"[0s,10ms]" default:"fitted" doc:"roofline: latency of one step of an all-reduce (one-shot: one step; ring: 2(TP − 1))"`
	// AllReduce is the all-reduce algorithm whose latency steps are paid.
	AllReduce string `toml:"all_reduce" enum:"auto|one-shot|ring" noun:"all-reduce algorithm" default:"auto" doc:"roofline: one-shot pays collective_latency once an all-reduce (vLLM's and TensorRT-LLM's kernels on NVLink), ring 2(TP − 1) times (NCCL over PCIe); auto is ring on a PCIe GPU (or NVLink-bridged pairs beyond TP 2), else one-shot"`
	// InterconnectEff is the achieved share of the GPU link in all-reduces.
	InterconnectEff float64 `toml:"interconnect_efficiency" range:"(0,1]" default:"1" doc:"roofline: share of the GPU link achieved in all-reduces"`
	// ElementwiseEff is the achieved share of memory bandwidth in the
	// element-wise kernels (norms, rotary embedding, activation, residual add).
	ElementwiseEff float64 `toml:"elementwise_efficiency" range:"(0,1]" default:"fitted (headroom catalogue)" doc:"roofline: share of memory bandwidth the element-wise kernels (norms, rotary embedding, activation, residual add) achieve"`
	// Knee joins the linear layers' compute and memory times: "smooth"
	// (default, sqrt(C² + M²)) or "max".
	Knee string `toml:"knee" enum:"smooth|max" noun:"knee" default:"smooth" doc:"how compute and memory time join: smooth is sqrt(C² + M²), max the larger"`
}

// KVSpec is the KV-cache memory of one replica.
type KVSpec struct {
	Allocation           string  `toml:"allocation" enum:"paged|contiguous" noun:"allocation" default:"paged" doc:"paged: blocks are allocated as a sequence's context grows; contiguous: a sequence reserves max_model_len at admission"`
	BlockSize            int     `toml:"block_size" unit:"tokens" range:"[1,4096]" default:"16" doc:"tokens per block"`
	GPUMemoryUtilization float64 `toml:"gpu_memory_utilization" range:"(0,1]" default:"0.9" doc:"share of GPU memory for weights and KV"`
	// Blocks sets the KV capacity directly (overrides the memory computation).
	Blocks int `toml:"blocks" range:"[0,1000000000000]" default:"computed from memory" doc:"the KV capacity in blocks, instead of computing it from memory"`
	// MaxModelLen is what contiguous allocation reserves per sequence
	// (default: its prompt plus max_tokens).
	MaxModelLen int `toml:"max_model_len" unit:"tokens" range:"[0,1073741824]" default:"prompt + max_tokens" doc:"the longest sequence a replica admits; what contiguous allocation reserves"`
	// Watermark is the share of blocks a new admission must leave free
	// (vLLM's watermark; default 0.01, 0 to 0.5). Running sequences may
	// use them.
	Watermark *float64 `toml:"watermark" range:"[0,0.5]" default:"0.01" doc:"share of blocks a new admission must leave free (vLLM's watermark); running sequences may use them"`
	// CPU is a CPU-memory tier for evicted prefix blocks (spec_fleet.go).
	CPU *KVTierSpec `toml:"cpu" default:"none: an evicted prefix is recomputed" doc:"a CPU-memory tier for prefix blocks evicted from GPU memory; a hit there is read back over PCIe instead of recomputed"`
}

// ClusterPrice is the cost of the GPUs, counted whether busy or idle.
type ClusterPrice struct {
	PerGPUHour float64 `toml:"per_gpu_hour" unit:"USD" range:"[0,1e6]" default:"0" doc:"every billed GPU-hour, busy or idle"`
	// Billing is "on-demand" (default: provisioned GPU-hours are billed, so
	// a schedule that scales down saves) or "reserved" (the most replicas
	// the cluster ever has are billed around the clock, as under a
	// commitment).
	Billing string `toml:"billing" enum:"on-demand|reserved" noun:"billing" default:"on-demand" doc:"on-demand bills provisioned GPU-hours (a schedule that scales down saves); reserved bills the most replicas the cluster ever has, around the clock"`
}

func (c *ClusterSpec) applyDefaults() {
	if c.TensorParallel == 0 {
		c.TensorParallel = 1
	}
	if c.MaxNumSeqs == 0 {
		c.MaxNumSeqs = 256
	}
	if c.MaxNumBatchedTokens == 0 {
		c.MaxNumBatchedTokens = 8192
	}
	if c.ChunkedPrefill == nil {
		t := true
		c.ChunkedPrefill = &t
	}
	if c.Order == "" {
		c.Order = "fcfs"
	}
	if c.Step.Kind == "" {
		if len(c.Step.Batches) > 0 {
			c.Step.Kind = "table"
		} else {
			c.Step.Kind = "roofline"
		}
	}
	if c.Step.Per == "" {
		c.Step.Per = "iteration"
	}
	if c.Step.ComputeEff == 0 {
		c.Step.ComputeEff = perf.DefaultComputeEff
	}
	if c.Step.BandwidthEff == 0 {
		c.Step.BandwidthEff = perf.DefaultBandwidthEff
	}
	if c.Step.InterconnectEff == 0 {
		c.Step.InterconnectEff = 1
	}
	if c.Step.ElementwiseEff == 0 {
		c.Step.ElementwiseEff = perf.DefaultElementwiseEff
	}
	dur := func(p **workloads.Duration, v float64) {
		if *p == nil {
			d := workloads.Duration(v)
			*p = &d
		}
	}
	dur(&c.Step.OverheadPerLayer, perf.DefaultOverheadPerLayer)
	dur(&c.Step.OverheadPerSeq, perf.DefaultOverheadPerSeq)
	dur(&c.Step.CollectiveLatency, perf.DefaultCollectiveLatency)
	if c.Step.Knee == "" {
		c.Step.Knee = "smooth"
	}
	if c.Step.AllReduce == "" {
		c.Step.AllReduce = "auto"
	}
	if c.Scheduler == "" {
		c.Scheduler = "vllm"
	}
	if c.KV.Watermark == nil {
		w := 0.01
		c.KV.Watermark = &w
	}
	if c.KV.Allocation == "" {
		c.KV.Allocation = "paged"
	}
	if c.KV.BlockSize == 0 {
		c.KV.BlockSize = 16
	}
	if c.KV.GPUMemoryUtilization == 0 {
		c.KV.GPUMemoryUtilization = 0.9
	}
	c.fleetDefaults()
}

// Validate checks the cluster on its own (the catalogue lookups and the
// memory fit are checked when it is built).
func (c *ClusterSpec) Validate() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	if c.Name == "" {
		return fe("name", "must be set")
	}
	if err := schema.Check(c); err != nil {
		return err
	}
	s := c.Step
	switch s.Kind {
	case "table":
		if len(s.Batches) == 0 || len(s.Batches) != len(s.Times) {
			return fe("step.times", "a table needs batches and times of the same non-zero length, got %d and %d", len(s.Batches), len(s.Times))
		}
		for i := range s.Batches {
			if i > 0 && s.Batches[i] <= s.Batches[i-1] {
				return fe(fmt.Sprintf("step.batches[%d]", i), "batch sizes must be >= 1 and strictly increasing, got %v", s.Batches)
			}
			if i > 0 && s.Times[i] < s.Times[i-1] {
				return fe(fmt.Sprintf("step.times[%d]", i), "not monotone: batch %g takes %s but batch %g takes %s; a larger batch cannot take less time",
					s.Batches[i], errSeconds(float64(s.Times[i])), s.Batches[i-1], errSeconds(float64(s.Times[i-1])))
			}
		}
	case "roofline":
		if c.GPU == "" || c.Model == "" {
			return fe("step.kind", "a roofline needs gpu and model (catalogue names, with gpu_spec/model_spec overrides)")
		}
		// A measured table's keys have no effect on a roofline.
		for _, k := range []struct {
			key string
			set bool
		}{{"times", len(s.Times) > 0}, {"per", s.Per != "" && s.Per != "iteration"}, {"prefill_per_token", s.PrefillPerToken != 0}, {"per_context_token", s.PerContextToken != 0}} {
			if k.set {
				return fe("step."+k.key, "applies to a measured table (give batches, or kind = \"table\"), not to a roofline")
			}
		}
		if c.TensorParallel == 1 && s.InterconnectEff != 1 {
			return fe("step.interconnect_efficiency", "applies to the all-reduces of tensor_parallel > 1; one GPU per replica has none")
		}
		if c.TensorParallel == 1 && s.CollectiveLatency != nil && float64(*s.CollectiveLatency) != perf.DefaultCollectiveLatency {
			return fe("step.collective_latency", "applies to the all-reduces of tensor_parallel > 1; one GPU per replica has none")
		}
		if c.TensorParallel == 1 && s.AllReduce != "" && s.AllReduce != "auto" {
			return fe("step.all_reduce", "applies to the all-reduces of tensor_parallel > 1; one GPU per replica has none")
		}
	default:
		return fe("step.kind", "must be table or roofline, got %q", s.Kind)
	}
	if err := c.crossCheckOverrides(); err != nil {
		return err
	}
	if c.KV.Blocks == 0 && (c.GPU == "" || c.Model == "") {
		return fe("kv.blocks", "set kv.blocks, or gpu and model so the KV capacity can be computed from memory")
	}
	for i, e := range c.Schedule {
		if !e.At.IsSet() {
			return fe(fmt.Sprintf("schedule[%d].at", i), "missing; give the clock time the entry applies from, such as \"08:00\"")
		}
	}
	for i, f := range c.Failures {
		if f.Replica >= c.maxReplicas() {
			return fe(fmt.Sprintf("failure[%d].replica", i), "must be between 0 and %d (replicas are numbered from 0), got %d", c.maxReplicas()-1, f.Replica)
		}
	}
	return c.validateFleet()
}

// maxReplicas is the most replicas the cluster ever has.
func (c *ClusterSpec) maxReplicas() int {
	n := c.Replicas
	for _, e := range c.Schedule {
		n = max(n, e.Replicas)
	}
	if c.Autoscale != nil {
		n = max(n, c.Autoscale.Max)
	}
	if c.Prefill != nil {
		n = max(n, c.Prefill.Replicas) // the decode pool is a cluster of its own
		if c.Prefill.Autoscale != nil {
			n = max(n, c.Prefill.Autoscale.Max)
		}
	}
	return n
}

// crossCheckOverrides checks what the tags cannot: model_spec figures
// against each other.
func (c *ClusterSpec) crossCheckOverrides() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	m := c.ModelSpec
	if m.ActiveParams > 0 && m.Params > 0 && m.ActiveParams > m.Params {
		return fe("model_spec.active_params", "%g exceeds params %g", m.ActiveParams, m.Params)
	}
	if m.Experts > 0 && m.ExpertsPerToken > m.Experts {
		return fe("model_spec.experts_per_token", "%d exceeds experts %d", m.ExpertsPerToken, m.Experts)
	}
	return nil
}
