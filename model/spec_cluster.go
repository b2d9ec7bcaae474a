package model

import (
	"fmt"
	"math"

	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/workloads"
)

// ClusterSpec is a pool of self-hosted GPU replicas running an inference
// engine with continuous batching (vLLM-style). A workload routes to it by
// name, exactly as to a provider.
type ClusterSpec struct {
	Name     string `toml:"name"`
	Replicas int    `toml:"replicas"` // identical replicas behind one router (0: switched off; no traffic may depend on it)
	GPU      string `toml:"gpu"`      // catalogue name (see `headroom catalogue`), for the roofline and KV capacity
	Model    string `toml:"model"`    // catalogue name of the served model
	// TensorParallel is GPUs per replica (default 1); it must divide the
	// model's attention heads, and divide or be a multiple of its KV heads.
	TensorParallel int `toml:"tensor_parallel"`
	// WeightDtype is how the weights are stored: bf16, fp16, fp8 (FP8
	// weights and activations, on FP8 tensor cores where the GPU has them),
	// int8 or int4 (weight-only, computed in 16 bits). Default: the
	// checkpoint's (model_spec.dtype_bytes, or the catalogue's).
	WeightDtype string `toml:"weight_dtype"`
	// KVCacheDtype is the KV cache's element type: bf16, fp16 or fp8
	// (default: the checkpoint's).
	KVCacheDtype string `toml:"kv_cache_dtype"`
	// Scheduler is how a replica admits and evicts: "vllm" (default:
	// chunked prefill, a token budget, admission while free blocks stay
	// above kv.watermark, recompute preemption when a running sequence
	// needs a block, no admission in an iteration that preempted) or
	// "no-evict" (TensorRT-LLM's guaranteed-no-evict: a request is admitted
	// only when the blocks of its prompt plus max_tokens are free beside
	// every running request's, so nothing is ever preempted).
	Scheduler string `toml:"scheduler"`
	// GPUSpec and ModelSpec override catalogue figures.
	GPUSpec   GPUOverride   `toml:"gpu_spec"`
	ModelSpec ModelOverride `toml:"model_spec"`

	Step StepSpec `toml:"step"`

	MaxNumSeqs          int    `toml:"max_num_seqs"`           // sequences in a batch (default 256)
	MaxNumBatchedTokens int    `toml:"max_num_batched_tokens"` // tokens per iteration (default 8192)
	ChunkedPrefill      *bool  `toml:"chunked_prefill"`        // split long prompts across iterations (default true)
	Order               string `toml:"order"`                  // fcfs (default) | priority (interactive before batch)
	MaxWaiting          int    `toml:"max_waiting"`            // waiting requests per replica before 503 (0 = unbounded)

	KV            KVSpec       `toml:"kv"`
	PrefixCaching bool         `toml:"prefix_caching"`
	Price         ClusterPrice `toml:"price"`

	// Schedule changes the replica count and batch size by time of day
	// (repeating daily): seed 002's conservative batch in business hours
	// and aggressive batch at night, or fewer replicas overnight.
	Schedule []ScheduleSpec `toml:"schedule"`
	// Startup is how long a replica added by the schedule takes to
	// accept requests (billed from the moment it is provisioned).
	Startup workloads.Duration `toml:"startup"`
	// Failures take replicas down for a while.
	Failures []FailureSpec `toml:"failure"`
}

// ScheduleSpec applies from a clock time until the next entry, every day.
type ScheduleSpec struct {
	At         string `toml:"at"`           // clock time "HH:MM"
	Replicas   int    `toml:"replicas"`     // 0 keeps the current count
	MaxNumSeqs int    `toml:"max_num_seqs"` // 0 keeps the current value
}

// FailureSpec is a period in which one replica is down.
type FailureSpec struct {
	At       string             `toml:"at"`       // clock time of the start (or use after)
	After    workloads.Duration `toml:"after"`    // start as time since t = 0
	Duration workloads.Duration `toml:"duration"` // how long it stays down
	Replica  int                `toml:"replica"`  // which replica (0-based)
	// Requests is what happens to the requests it held: "retry" (default:
	// the client gets a 503 and its retry policy decides) or "lose" (they
	// fail).
	Requests string `toml:"requests"`
}

// GPUOverride replaces catalogue GPU figures; zero keeps the catalogue's.
type GPUOverride struct {
	Name            string  `toml:"name"`             // what results call it (default: the catalogue name, marked as changed)
	TFLOPS          float64 `toml:"tflops"`           // dense BF16 TFLOP/s
	FP8TFLOPS       float64 `toml:"fp8_tflops"`       // dense FP8 TFLOP/s
	BandwidthGBs    float64 `toml:"bandwidth_gbs"`    // memory bandwidth, GB/s
	MemoryGB        float64 `toml:"memory_gb"`        // device memory, GB
	InterconnectGBs float64 `toml:"interconnect_gbs"` // GPU-to-GPU bandwidth, GB/s one way
}

// ModelOverride replaces catalogue model figures; zero keeps the catalogue's.
type ModelOverride struct {
	Name            string  `toml:"name"`          // what results call it (default: the catalogue name, marked as changed)
	Params          float64 `toml:"params"`        // total parameters
	ActiveParams    float64 `toml:"active_params"` // parameters used per token (default: params, or the catalogue's for a mixture of experts)
	Experts         int     `toml:"experts"`       // routed experts per layer (mixture of experts)
	ExpertsPerToken int     `toml:"experts_per_token"`
	Layers          int     `toml:"layers"`
	Hidden          int     `toml:"hidden"`
	Heads           int     `toml:"heads"`
	KVHeads         int     `toml:"kv_heads"`
	HeadDim         int     `toml:"head_dim"`
	KVDim           int     `toml:"kv_dim"` // latent KV elements per layer and token, held whole by every rank
	FFN             int     `toml:"ffn"`
	Vocab           int     `toml:"vocab"`
	DtypeBytes      float64 `toml:"dtype_bytes"` // bytes per weight and KV element of the checkpoint
}

// StepSpec chooses how long one engine iteration takes.
type StepSpec struct {
	// Kind: "table" (measured batch-size curve) or "roofline" (from the
	// GPU and model specs). Default: roofline when gpu and model are set.
	Kind string `toml:"kind"`
	// Per: for a table, whether a time is one decode iteration
	// ("iteration", continuous batching) or a whole request served in a
	// static batch ("request": a batch of B requests finishes together
	// after Times[B]).
	Per     string               `toml:"per"`
	Batches []float64            `toml:"batches"`
	Times   []workloads.Duration `toml:"times"`
	// PrefillPerToken and PerContextToken add prefill and attention cost
	// to a table's iteration time.
	PrefillPerToken workloads.Duration `toml:"prefill_per_token"`
	PerContextToken workloads.Duration `toml:"per_context_token"`
	// Roofline efficiency factors and fixed overhead per iteration.
	ComputeEff   float64            `toml:"compute_efficiency"`
	BandwidthEff float64            `toml:"bandwidth_efficiency"`
	Overhead     workloads.Duration `toml:"overhead"`
	// Roofline costs per layer and per sequence of each iteration, and per
	// step of a ring all-reduce (nil: the fitted defaults).
	OverheadPerLayer  *workloads.Duration `toml:"overhead_per_layer"`
	OverheadPerSeq    *workloads.Duration `toml:"overhead_per_seq"`
	CollectiveLatency *workloads.Duration `toml:"collective_latency"`
	// InterconnectEff is the achieved share of the GPU link in all-reduces.
	InterconnectEff float64 `toml:"interconnect_efficiency"`
	// Knee joins the linear layers' compute and memory times: "smooth"
	// (default, sqrt(C² + M²)) or "max".
	Knee string `toml:"knee"`
}

// KVSpec is the KV-cache memory of one replica.
type KVSpec struct {
	Allocation           string  `toml:"allocation"`             // paged (default) | contiguous
	BlockSize            int     `toml:"block_size"`             // tokens per block (default 16)
	GPUMemoryUtilization float64 `toml:"gpu_memory_utilization"` // share of GPU memory for weights + KV (default 0.9)
	// Blocks sets the KV capacity directly (overrides the memory computation).
	Blocks int `toml:"blocks"`
	// MaxModelLen is what contiguous allocation reserves per sequence
	// (default: its prompt plus max_tokens).
	MaxModelLen int `toml:"max_model_len"`
	// Watermark is the share of blocks a new admission must leave free
	// (vLLM's watermark; default 0.01, 0 to 0.5). Running sequences may
	// use them.
	Watermark *float64 `toml:"watermark"`
}

// ClusterPrice is the cost of the GPUs, counted whether busy or idle.
type ClusterPrice struct {
	PerGPUHour float64 `toml:"per_gpu_hour"` // USD
	// Billing is "on-demand" (default: provisioned GPU-hours are billed, so
	// a schedule that scales down saves) or "reserved" (the most replicas
	// the cluster ever has are billed around the clock, as under a
	// commitment).
	Billing string `toml:"billing"`
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
}

// Validate checks the cluster on its own (the catalogue lookups and the
// memory fit are checked when it is built).
func (c *ClusterSpec) Validate() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	if c.Name == "" {
		return fe("name", "must be set")
	}
	if c.Replicas < 0 || c.Replicas > 100_000 {
		return fe("replicas", "must be between 0 and 100000, got %d", c.Replicas)
	}
	if c.TensorParallel < 1 || c.TensorParallel > 64 {
		return fe("tensor_parallel", "must be between 1 and 64, got %d", c.TensorParallel)
	}
	if c.MaxNumSeqs < 1 || c.MaxNumSeqs > 100_000 {
		return fe("max_num_seqs", "must be between 1 and 100000, got %d", c.MaxNumSeqs)
	}
	if c.MaxNumBatchedTokens < 1 || c.MaxNumBatchedTokens > 10_000_000 {
		return fe("max_num_batched_tokens", "must be between 1 and 10000000, got %d", c.MaxNumBatchedTokens)
	}
	if !oneOf(c.Order, "fcfs", "priority") {
		return fe("order", "must be fcfs or priority, got %q", c.Order)
	}
	if c.MaxWaiting < 0 {
		return fe("max_waiting", "must be >= 0 (0 = unbounded)")
	}
	s := c.Step
	switch s.Kind {
	case "table":
		if len(s.Batches) == 0 || len(s.Batches) != len(s.Times) {
			return fe("step.times", "a table needs batches and times of the same non-zero length, got %d and %d", len(s.Batches), len(s.Times))
		}
		for i := range s.Batches {
			if !(s.Batches[i] >= 1) || i > 0 && s.Batches[i] <= s.Batches[i-1] {
				return fe(fmt.Sprintf("step.batches[%d]", i), "batch sizes must be >= 1 and strictly increasing, got %v", s.Batches)
			}
			if !(s.Times[i] > 0) {
				return fe(fmt.Sprintf("step.times[%d]", i), "must be > 0")
			}
			if i > 0 && s.Times[i] < s.Times[i-1] {
				return fe(fmt.Sprintf("step.times[%d]", i), "not monotone: batch %g takes %s but batch %g takes %s; a larger batch cannot take less time",
					s.Batches[i], fmtDur(float64(s.Times[i])), s.Batches[i-1], fmtDur(float64(s.Times[i-1])))
			}
		}
		if !oneOf(s.Per, "iteration", "request") {
			return fe("step.per", "must be iteration or request, got %q", s.Per)
		}
	case "roofline":
		if c.GPU == "" || c.Model == "" {
			return fe("step.kind", "a roofline needs gpu and model (catalogue names, with gpu_spec/model_spec overrides)")
		}
		for _, e := range []struct {
			key string
			v   float64
		}{{"step.compute_efficiency", s.ComputeEff}, {"step.bandwidth_efficiency", s.BandwidthEff}, {"step.interconnect_efficiency", s.InterconnectEff}} {
			if !(e.v > 0 && e.v <= 1) {
				return fe(e.key, "must be in (0, 1], got %v", e.v)
			}
		}
		for _, e := range []struct {
			key string
			v   *workloads.Duration
			hi  float64
		}{{"step.overhead_per_layer", s.OverheadPerLayer, 0.1}, {"step.overhead_per_seq", s.OverheadPerSeq, 0.1}, {"step.collective_latency", s.CollectiveLatency, 0.01}} {
			if e.v != nil && !(float64(*e.v) >= 0 && float64(*e.v) <= e.hi) {
				return fe(e.key, "must be between 0s and %s, got %s", fmtDur(e.hi), fmtDur(float64(*e.v)))
			}
		}
		if !oneOf(s.Knee, "smooth", "max") {
			return fe("step.knee", "must be smooth or max, got %q", s.Knee)
		}
	default:
		return fe("step.kind", "must be table or roofline, got %q", s.Kind)
	}
	for _, e := range []struct {
		key string
		v   workloads.Duration
	}{{"step.overhead", s.Overhead}, {"step.prefill_per_token", s.PrefillPerToken}, {"step.per_context_token", s.PerContextToken}} {
		if !(e.v >= 0) || math.IsInf(float64(e.v), 0) || e.v > 3600 {
			return fe(e.key, "must be between 0s and 1h, got %s", fmtDur(float64(e.v)))
		}
	}
	if !oneOf(c.Scheduler, "vllm", "no-evict") {
		return fe("scheduler", "must be vllm or no-evict, got %q", c.Scheduler)
	}
	if !oneOf(c.WeightDtype, "", "bf16", "fp16", "fp8", "int8", "int4") {
		return fe("weight_dtype", "must be bf16, fp16, fp8, int8 or int4, got %q", c.WeightDtype)
	}
	if !oneOf(c.KVCacheDtype, "", "bf16", "fp16", "fp8") {
		return fe("kv_cache_dtype", "must be bf16, fp16 or fp8, got %q", c.KVCacheDtype)
	}
	if err := c.validateOverrides(); err != nil {
		return err
	}
	k := c.KV
	if !oneOf(k.Allocation, "paged", "contiguous") {
		return fe("kv.allocation", "must be paged or contiguous, got %q", k.Allocation)
	}
	if k.BlockSize < 1 || k.BlockSize > 4096 {
		return fe("kv.block_size", "must be between 1 and 4096 tokens, got %d", k.BlockSize)
	}
	if !(k.GPUMemoryUtilization > 0 && k.GPUMemoryUtilization <= 1) {
		return fe("kv.gpu_memory_utilization", "must be in (0, 1], got %v", k.GPUMemoryUtilization)
	}
	if k.Watermark != nil && !(*k.Watermark >= 0 && *k.Watermark <= 0.5) {
		return fe("kv.watermark", "must be between 0 and 0.5, got %v", *k.Watermark)
	}
	if k.Blocks < 0 || k.MaxModelLen < 0 {
		return fe("kv", "blocks and max_model_len must be >= 0")
	}
	if k.Blocks == 0 && (c.GPU == "" || c.Model == "") {
		return fe("kv.blocks", "set kv.blocks, or gpu and model so the KV capacity can be computed from memory")
	}
	for i, e := range c.Schedule {
		at := fmt.Sprintf("schedule[%d]", i)
		if _, err := workloads.ParseClock(e.At); err != nil {
			return fe(at+".at", "%v", err)
		}
		if e.Replicas < 0 || e.Replicas > 100_000 || e.MaxNumSeqs < 0 || e.MaxNumSeqs > 100_000 {
			return fe(at, "replicas and max_num_seqs must be between 0 (unchanged) and 100000")
		}
	}
	if c.Startup < 0 {
		return fe("startup", "must be >= 0")
	}
	for i, f := range c.Failures {
		at := fmt.Sprintf("failure[%d]", i)
		if f.At != "" {
			if _, err := workloads.ParseClock(f.At); err != nil {
				return fe(at+".at", "%v", err)
			}
		}
		if f.Duration <= 0 {
			return fe(at+".duration", "must be > 0")
		}
		if f.Replica < 0 || f.Replica >= c.maxReplicas() {
			return fe(at+".replica", "must be between 0 and %d (replicas are numbered from 0), got %d", c.maxReplicas()-1, f.Replica)
		}
		if !oneOf(f.Requests, "", "retry", "lose") {
			return fe(at+".requests", "must be retry or lose, got %q", f.Requests)
		}
	}
	if !oneOf(c.Price.Billing, "", "on-demand", "reserved") {
		return fe("price.billing", "must be on-demand or reserved, got %q", c.Price.Billing)
	}
	if c.Price.PerGPUHour < 0 || math.IsNaN(c.Price.PerGPUHour) {
		return fe("price.per_gpu_hour", "must be >= 0")
	}
	return nil
}

// maxReplicas is the most replicas the cluster ever has.
func (c *ClusterSpec) maxReplicas() int {
	n := c.Replicas
	for _, e := range c.Schedule {
		n = max(n, e.Replicas)
	}
	return n
}

// validateOverrides checks every gpu_spec and model_spec figure: finite,
// non-negative (0 keeps the catalogue's) and within a sane range.
func (c *ClusterSpec) validateOverrides() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	g := c.GPUSpec
	for _, e := range []struct {
		key string
		v   float64
		hi  float64
	}{{"gpu_spec.tflops", g.TFLOPS, 1e5}, {"gpu_spec.fp8_tflops", g.FP8TFLOPS, 1e5}, {"gpu_spec.bandwidth_gbs", g.BandwidthGBs, 1e6},
		{"gpu_spec.memory_gb", g.MemoryGB, 1e5}, {"gpu_spec.interconnect_gbs", g.InterconnectGBs, 1e5},
		{"model_spec.params", c.ModelSpec.Params, 1e14}, {"model_spec.active_params", c.ModelSpec.ActiveParams, 1e14},
		{"model_spec.dtype_bytes", c.ModelSpec.DtypeBytes, 8}} {
		if !(e.v >= 0 && e.v <= e.hi) {
			return fe(e.key, "must be between 0 (keep the catalogue's) and %g, got %v", e.hi, e.v)
		}
	}
	m := c.ModelSpec
	for _, e := range []struct {
		key string
		v   int
	}{{"model_spec.layers", m.Layers}, {"model_spec.hidden", m.Hidden}, {"model_spec.heads", m.Heads}, {"model_spec.kv_heads", m.KVHeads},
		{"model_spec.head_dim", m.HeadDim}, {"model_spec.kv_dim", m.KVDim}, {"model_spec.ffn", m.FFN}, {"model_spec.vocab", m.Vocab},
		{"model_spec.experts", m.Experts}, {"model_spec.experts_per_token", m.ExpertsPerToken}} {
		if e.v < 0 || e.v > 10_000_000 {
			return fe(e.key, "must be between 0 (keep the catalogue's) and 10000000, got %d", e.v)
		}
	}
	if m.ActiveParams > 0 && m.Params > 0 && m.ActiveParams > m.Params {
		return fe("model_spec.active_params", "%g exceeds params %g", m.ActiveParams, m.Params)
	}
	if m.Experts > 0 && m.ExpertsPerToken > m.Experts {
		return fe("model_spec.experts_per_token", "%d exceeds experts %d", m.ExpertsPerToken, m.Experts)
	}
	return nil
}
