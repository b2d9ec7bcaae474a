package model

import (
	"fmt"
	"math"

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
	// TensorParallel is GPUs per replica (default 1).
	TensorParallel int `toml:"tensor_parallel"`
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
	TFLOPS       float64 `toml:"tflops"`        // dense BF16 TFLOP/s
	BandwidthGBs float64 `toml:"bandwidth_gbs"` // memory bandwidth, GB/s
	MemoryGB     float64 `toml:"memory_gb"`
}

// ModelOverride replaces catalogue model figures; zero keeps the catalogue's.
type ModelOverride struct {
	Params     float64 `toml:"params"` // total parameters
	Layers     int     `toml:"layers"`
	Hidden     int     `toml:"hidden"`
	Heads      int     `toml:"heads"`
	KVHeads    int     `toml:"kv_heads"`
	HeadDim    int     `toml:"head_dim"`
	DtypeBytes float64 `toml:"dtype_bytes"`
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
		c.Step.ComputeEff = 0.5
	}
	if c.Step.BandwidthEff == 0 {
		c.Step.BandwidthEff = 0.7
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
					s.Batches[i], errSeconds(float64(s.Times[i])), s.Batches[i-1], errSeconds(float64(s.Times[i-1])))
			}
		}
		if !oneOf(s.Per, "iteration", "request") {
			return fe("step.per", "must be iteration or request, got %q", s.Per)
		}
	case "roofline":
		if c.GPU == "" || c.Model == "" {
			return fe("step.kind", "a roofline needs gpu and model (catalogue names, with gpu_spec/model_spec overrides)")
		}
		if s.ComputeEff <= 0 || s.ComputeEff > 1 || s.BandwidthEff <= 0 || s.BandwidthEff > 1 {
			return fe("step", "compute_efficiency and bandwidth_efficiency must be in (0, 1]")
		}
	default:
		return fe("step.kind", "must be table or roofline, got %q", s.Kind)
	}
	if s.Overhead < 0 || s.PrefillPerToken < 0 || s.PerContextToken < 0 {
		return fe("step", "times must be >= 0")
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
