package model

import "github.com/headroom-sim/headroom/workloads"

// Results is everything one run of one scenario measured. Its JSON form is
// the "results" part of Headroom's versioned output schema (report/RESULTS.md).
type Results struct {
	Scenario    string          `json:"scenario"`
	Variant     string          `json:"variant,omitempty"`
	Seed        uint64          `json:"seed"`
	Replication int             `json:"replication"`
	DurationS   float64         `json:"duration_s"`
	IntervalS   float64         `json:"interval_s"`
	StartClock  workloads.Clock `json:"start_clock"`
	Interrupted bool            `json:"interrupted,omitempty"`
	SimulatedS  float64         `json:"simulated_s,omitempty"` // an interrupted run's simulated time, which every figure is over (omitted when it reached its end)
	Events      uint64          `json:"events"`
	Summary     Summary         `json:"summary"`
	Workloads   []GroupResult   `json:"workloads"`
	Tenants     []GroupResult   `json:"tenants"`
	Priorities  []GroupResult   `json:"priorities"`
	Backends    []BackendResult `json:"backends"`
	Routes      []RouteResult   `json:"routes,omitempty"`
	Gateway     *GatewayResult  `json:"gateway,omitempty"`
	Series      Series          `json:"series"`
	// Traces describe what each trace workload read and issued.
	Traces []TraceResult `json:"traces,omitempty"`
	// Findings are what a planner reads first, as data (findings.go).
	Findings Findings `json:"findings"`
	// Verdict is the findings in words. The model leaves it empty: the
	// report writes it (report.Verdict) when it assembles a document.
	Verdict []string `json:"verdict"`
}

// Summary is one group's totals (the whole run, a workload or a tenant).
type Summary struct {
	Requests   RequestCounts `json:"requests"`
	Attempts   AttemptCounts `json:"attempts"`
	Latency    LatencySet    `json:"latency_s"`
	Throughput Throughput    `json:"throughput"`
	Tokens     TokenCounts   `json:"tokens"`
	Cost       Cost          `json:"cost_usd"`
	Goodput    Goodput       `json:"goodput"`
	// MakespanS is the time of the last completion (seconds since t = 0).
	MakespanS float64 `json:"makespan_s"`
}

// RequestCounts conserve: offered = completed + failed + in_flight_at_end.
type RequestCounts struct {
	Offered       int64            `json:"offered"`
	Completed     int64            `json:"completed"`
	Failed        int64            `json:"failed"`
	InFlightAtEnd int64            `json:"in_flight_at_end"`
	FailedBy      map[string]int64 `json:"failed_by_reason"`
}

// AttemptCounts counts sends to a backend, including retries.
type AttemptCounts struct {
	Total    int64            `json:"total"`
	Retries  int64            `json:"retries"`
	Rejected map[string]int64 `json:"rejected"`
	// RetriesPerRequest is retries / offered.
	RetriesPerRequest float64 `json:"retries_per_request"`
}

// LatencySet holds the latency distributions, in seconds.
type LatencySet struct {
	TTFT        Quantiles `json:"ttft"`
	E2E         Quantiles `json:"e2e"`
	QueueWait   Quantiles `json:"queue_wait"`
	TPOT        Quantiles `json:"tpot"`
	TTFTService Quantiles `json:"ttft_service"`
}

// Quantiles summarise one distribution. Percentiles come from a log-linear
// sketch with 1% relative accuracy (sim.Sketch); mean, max and count are exact.
type Quantiles struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Throughput is measured over the simulated horizon.
type Throughput struct {
	RequestsPerS     float64 `json:"requests_per_s"`
	InputTokensPerS  float64 `json:"input_tokens_per_s"`
	OutputTokensPerS float64 `json:"output_tokens_per_s"`
}

// TokenCounts are billed tokens, by kind: those of every attempt a
// provider or cluster served, which is each completed request and each
// attempt its client abandoned (its timeout) while it was being answered;
// refused, failed and still-queued attempts bill nothing.
type TokenCounts struct {
	Input      int64 `json:"input"`       // all prompt tokens
	Uncached   int64 `json:"uncached"`    // prompt tokens neither read from nor written to cache
	CacheWrite int64 `json:"cache_write"` // prompt tokens written to cache
	CacheRead  int64 `json:"cache_read"`  // prompt tokens read from cache
	Output     int64 `json:"output"`
	// CacheHitRate is cache_read / input.
	CacheHitRate float64 `json:"cache_hit_rate"`
}

// Cost in USD.
type Cost struct {
	Total      float64 `json:"total"`
	Input      float64 `json:"input"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
	Output     float64 `json:"output"`
	// GPU is self-hosted GPU time (idle hours included), shared among
	// the workloads a cluster served by their tokens.
	GPU float64 `json:"gpu"`
	// Commitment is hosted tiers' fixed prices ([provider.price]
	// commitment) prorated to the horizon, shared among the workloads a
	// provider served by their tokens.
	Commitment float64 `json:"commitment"`
	// PerMillionTokens is total / (input+output) * 1e6.
	PerMillionTokens float64 `json:"per_million_tokens"`
}

// Goodput counts completed requests meeting every SLO of their workload.
type Goodput struct {
	Good         int64   `json:"good"`
	RequestsPerS float64 `json:"requests_per_s"`
	// SLOAttainment is good / (completed + failed).
	SLOAttainment float64 `json:"slo_attainment"`
	// NoSLO says no workload of the group sets an SLO: every completed
	// request counts as good, and reports show no goodput ("—").
	NoSLO bool `json:"no_slo,omitempty"`
}

// GroupResult is a workload's or tenant's summary.
type GroupResult struct {
	Name    string  `json:"name"`
	Summary Summary `json:"summary"`
	// Curves are the workload's latency distributions at fixed shares
	// (workloads only; omitted for tenants and priorities).
	Curves *LatencyCurves `json:"curves,omitempty"`
	// Windows are the workload's figures window by window, when the
	// configuration asks for them (Config.Window); absent otherwise.
	Windows []WindowResult `json:"windows,omitempty"`
}

// BackendResult is what one backend saw.
type BackendResult struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Attempts int64  `json:"attempts"`
	Admitted int64  `json:"admitted"`
	// Abandoned counts attempts whose client timed out; the backend
	// finished those it had started (billed, wasted) and dropped those
	// still queued.
	Abandoned int64            `json:"abandoned,omitempty"`
	Rejected  map[string]int64 `json:"rejected"`
	Tokens    TokenCounts      `json:"tokens"`
	Cost      Cost             `json:"cost_usd"`
	Limits    []LimitResult    `json:"limits"`
	// Cluster is set for self-hosted GPU clusters.
	Cluster *ClusterResult `json:"cluster,omitempty"`
}

// ClusterResult is what a self-hosted GPU cluster did.
type ClusterResult struct {
	// Replicas is the replica count as written; TensorParallel the GPUs of
	// each; GPUs = Replicas × TensorParallel. PeakReplicas and PeakGPUs are
	// the most the cluster ever has (a schedule may add replicas).
	Replicas       int `json:"replicas"`
	TensorParallel int `json:"tensor_parallel"`
	GPUs           int `json:"gpus"`
	PeakReplicas   int `json:"peak_replicas"`
	PeakGPUs       int `json:"peak_gpus"`
	// GPU and Model name the hardware: catalogue names, the names given in
	// gpu_spec/model_spec, or a catalogue name marked as modified.
	GPU   string `json:"gpu"`
	Model string `json:"model"`
	// WeightDtype and KVCacheDtype are as written ("" for the checkpoint's);
	// Scheduler is vllm or no-evict.
	WeightDtype  string `json:"weight_dtype,omitempty"`
	KVCacheDtype string `json:"kv_cache_dtype,omitempty"`
	Scheduler    string `json:"scheduler"`
	// ITL is the inter-token latency as vLLM's benchmark reports it: the
	// gaps between consecutive tokens of a request, pooled over requests,
	// computed from each iteration's time weighted by the sequences that
	// decode in it (count, the exact mean, p50, p90, p95, p99 and max).
	// Empty for static batches.
	ITL           Quantiles `json:"itl"`
	StepModel     string    `json:"step_model"`
	KVBlocks      int       `json:"kv_blocks_per_replica"`
	KVBlockTokens int       `json:"kv_block_tokens"`
	MaxNumSeqs    int       `json:"max_num_seqs"`
	Steps         int64     `json:"steps"`
	Preemptions   int64     `json:"preemptions"`
	// MeanBatch is the time-weighted mean of running sequences per replica;
	// PeakBatch the largest interval maximum of the whole cluster's running
	// sequences, per replica.
	MeanBatch float64 `json:"mean_batch"`
	PeakBatch float64 `json:"peak_batch"`
	// MeanKVUse is the time-weighted share of KV blocks in use.
	MeanKVUse float64 `json:"mean_kv_use"`
	// Utilization is the share of replica-time spent running iterations.
	Utilization float64 `json:"utilization"`
	// GPUHours are billed GPU-hours (provisioned replicas × TensorParallel
	// over time), idle included.
	GPUHours                 float64       `json:"gpu_hours"`
	OutputTokensPerGPUSecond float64       `json:"output_tokens_per_gpu_s"`
	CostPerMillionTokens     float64       `json:"cost_per_million_tokens"`
	Series                   ClusterSeries `json:"series"`
	// The fleet (fleet_results.go): how requests were spread over the
	// replicas, the prefix cache by tier, the autoscaler, and for a
	// disaggregated cluster its pools and KV transfers.
	Routing     *RoutingResult     `json:"routing,omitempty"`
	PrefixCache *PrefixCacheResult `json:"prefix_cache,omitempty"`
	Autoscale   *AutoscaleResult   `json:"autoscale,omitempty"`
	Pools       []PoolResult       `json:"pools,omitempty"`
	Transfer    *TransferResult    `json:"transfer,omitempty"`
}

// ClusterSeries is a cluster's per-interval engine series.
type ClusterSeries struct {
	// Batch is the time-weighted mean of running sequences per replica;
	// BatchMax the most running at once in the whole cluster.
	Batch    []float64 `json:"batch"`
	BatchMax []float64 `json:"batch_max"`
	// KVUse is the share of KV blocks in use (time-weighted).
	KVUse []float64 `json:"kv_use"`
	// Waiting counts requests waiting in the whole cluster (time-weighted).
	Waiting     []float64 `json:"waiting"`
	Preemptions []int64   `json:"preemptions"`
	// Utilization is the share of replicas running an iteration.
	Utilization []float64 `json:"utilization"`
	// CostUSD is the GPU cost of the interval.
	CostUSD []float64 `json:"cost_usd"`
	// Replicas is the time-weighted number of provisioned replicas.
	Replicas []float64 `json:"replicas"`
	// OutputTokensPerGPUSecond is output tokens completed in the interval
	// per billed GPU-second.
	OutputTokensPerGPUSecond []float64 `json:"output_tokens_per_gpu_s"`
	// CostPerHour is the interval's GPU cost as a rate, USD per hour.
	CostPerHour []float64 `json:"cost_per_hour"`
	// PerReplica holds each replica's own series (clusters of at most 32
	// replicas).
	PerReplica []ReplicaSeries `json:"per_replica,omitempty"`
}

// ReplicaSeries is one replica's per-interval series.
type ReplicaSeries struct {
	Replica int       `json:"replica"`
	Batch   []float64 `json:"batch"`   // time-weighted running sequences
	KVUse   []float64 `json:"kv_use"`  // time-weighted share of its KV blocks in use
	Waiting []float64 `json:"waiting"` // time-weighted waiting requests
}

// LimitResult is one rate-limit dimension of one scope.
type LimitResult struct {
	Scope     string  `json:"scope"` // "org" or "key:<name>"
	Dimension string  `json:"dimension"`
	Limit     float64 `json:"limit"` // per minute (rpm, itpm, otpm, tpm) or per day (rpd, tpd)
	Window    string  `json:"window"`
	Rejected  int64   `json:"rejected"`
	// FirstRejectS is when it first refused an attempt (-1 if never).
	FirstRejectS float64 `json:"first_reject_s"`
	// PeakRejectIntervalS starts the interval with the most refusals.
	PeakRejectIntervalS float64 `json:"peak_reject_interval_s"`
	// PeakUse is the largest share of the limit admitted in one interval,
	// scaled to the limit's period (1.0 = exactly at the limit).
	PeakUse float64 `json:"peak_use"`
	// Binding is true when this dimension refused the most attempts.
	Binding bool `json:"binding"`
	// PeakDemand is the largest share of the limit the traffic offered in
	// one interval, whether admitted or not (demand.go): 3.6 means the
	// requests that arrived in that interval asked for 3.6 times what the
	// limit allows. PeakDemandIntervalS starts that interval (0 for a
	// per-day limit, whose demand is over the whole run).
	PeakDemand          float64 `json:"peak_demand"`
	PeakDemandIntervalS float64 `json:"peak_demand_interval_s"`
}

// Series is the per-interval time series. Every array has one value per
// interval; interval i covers [i*interval_s, (i+1)*interval_s).
type Series struct {
	IntervalS float64   `json:"interval_s"`
	StartS    []float64 `json:"start_s"`
	Clock     []string  `json:"clock"`
	// Offered counts requests that arrived in the interval.
	Offered []int64 `json:"offered"`
	// Completed and Failed count requests that ended in the interval.
	Completed []int64 `json:"completed"`
	Failed    []int64 `json:"failed"`
	// Rejected counts refused attempts by reason.
	Rejected map[string][]int64 `json:"rejected"`
	Retries  []int64            `json:"retries"`
	// InFlight and QueueLength are time-weighted means over the interval;
	// InFlight counts requests issued and not yet ended (queued, backing off
	// or in service); QueueLength counts those waiting for a client slot,
	// the pacer, a retry backoff or a backend queue.
	InFlight    []float64 `json:"in_flight"`
	QueueLength []float64 `json:"queue_length"`
	// TTFTP95 and QueueWaitP95 describe requests that arrived in the
	// interval (0 when none completed).
	TTFTP95      []float64 `json:"ttft_p95_s"`
	TTFTP50      []float64 `json:"ttft_p50_s"`
	QueueWaitP95 []float64 `json:"queue_wait_p95_s"`
	InputTokens  []int64   `json:"input_tokens"`
	OutputTokens []int64   `json:"output_tokens"`
	CostUSD      []float64 `json:"cost_usd"`
}

// RouteResult says where a route sent attempts and why.
type RouteResult struct {
	Name     string        `json:"name"`
	Strategy string        `json:"strategy"`
	Targets  []RouteTarget `json:"targets"`
	// Overflows counts attempts sent past the first target because the
	// targets before were full (overflow).
	Overflows int64 `json:"overflows"`
	// Fallbacks counts refused attempts moved on to the next target.
	Fallbacks int64 `json:"fallbacks"`
	// CooldownSkips counts targets passed over while cooling down after a
	// refusal.
	CooldownSkips int64 `json:"cooldown_skips"`
	// ScaleUpSpill counts attempts sent past an autoscaled cluster while it
	// was short of replicas (starting some, or recommending more than
	// accept requests); ScaleUpSpillCompleted of them completed elsewhere,
	// costing ScaleUpSpillCostUSD.
	ScaleUpSpill          int64   `json:"scale_up_spill,omitempty"`
	ScaleUpSpillCompleted int64   `json:"scale_up_spill_completed,omitempty"`
	ScaleUpSpillCostUSD   float64 `json:"scale_up_spill_cost_usd,omitempty"`
	// ScaleUpSpillSeries counts the spilled attempts per interval, by the
	// time they were sent, and ScaleUpSpillCostSeries their cost by the
	// time they completed (both absent without spill).
	ScaleUpSpillSeries     []int64   `json:"scale_up_spill_series,omitempty"`
	ScaleUpSpillCostSeries []float64 `json:"scale_up_spill_cost_series,omitempty"`
}

// RouteTarget is one target of a route.
type RouteTarget struct {
	Name    string `json:"name"`
	Sent    int64  `json:"sent"`    // attempts sent to it
	Refused int64  `json:"refused"` // of which refused
}
