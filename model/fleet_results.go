package model

// RoutingResult says how a cluster's router spread requests over its
// replicas.
type RoutingResult struct {
	Policy   string  `json:"policy"`
	RefreshS float64 `json:"refresh_s"`
	// Routed counts the requests sent to each replica, by replica number.
	Routed []int64 `json:"routed"`
	// MaxOverMean and CV describe the spread of Routed over the replicas
	// that received any: the busiest one's count over the mean (1 is even),
	// and the coefficient of variation.
	MaxOverMean float64 `json:"max_over_mean"`
	CV          float64 `json:"cv"`
}

// PrefixCacheResult is where requests found their shared prefix at their
// first admission: GPU memory, the CPU tier, or nowhere (recomputed).
type PrefixCacheResult struct {
	// HitRate is prompt tokens read from the cache over all prompt tokens
	// of completed requests (the backend's tokens.cache_hit_rate).
	HitRate float64 `json:"hit_rate"`
	// RequestHitRate is the share of requests with a shared prefix that
	// found it in either tier.
	RequestHitRate float64 `json:"request_hit_rate"`
	GPUHits        int64   `json:"gpu_hits"`
	CPUHits        int64   `json:"cpu_hits"`
	Misses         int64   `json:"misses"`
	GPUTokens      int64   `json:"gpu_tokens"`
	CPUTokens      int64   `json:"cpu_tokens"`
	// CPUReadS is the time iterations spent reading CPU-tier hits back.
	CPUReadS float64 `json:"cpu_read_s,omitempty"`
}

// AutoscaleResult is what a cluster's autoscaler did.
type AutoscaleResult struct {
	Metric string  `json:"metric"`
	Target float64 `json:"target"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
	// Evaluations counts the periods evaluated; ScaleUps, ScaleDowns and
	// ColdStarts the actions taken.
	Evaluations int64 `json:"evaluations"`
	ScaleUps    int64 `json:"scale_ups"`
	ScaleDowns  int64 `json:"scale_downs"`
	ColdStarts  int64 `json:"cold_starts"`
	// PeakReplicas is the most replicas provisioned at once.
	PeakReplicas int `json:"peak_replicas"`
	// UnderProvisionedS is the time during which fewer replicas accepted
	// requests than the autoscaler's latest recommendation (before
	// stabilisation, within [min, max]): evaluation lag, stabilisation and
	// start-up together. ReplicaSecondsShort integrates the shortfall.
	UnderProvisionedS   float64 `json:"under_provisioned_s"`
	ReplicaSecondsShort float64 `json:"replica_seconds_short"`
	// Events lists the scale actions in order (the first 1,000;
	// EventsDropped counts the rest).
	Events        []ScaleEvent `json:"events"`
	EventsDropped int64        `json:"events_dropped,omitempty"`
	// Series: per interval, the ready replicas (time-weighted) and the
	// latest recommendation at the interval's end.
	Ready       []float64 `json:"ready"`
	Recommended []float64 `json:"recommended"`
}

// Scale event reasons.
const (
	ScaleMetric   = "metric"     // the metric's recommendation, stabilised
	ScaleSchedule = "schedule"   // a schedule entry raised the floor
	ScaleCold     = "cold_start" // a request arrived with no replica
)

// ScaleEvent is one scale action.
type ScaleEvent struct {
	AtS   float64 `json:"at_s"`
	Clock string  `json:"clock"`
	From  int     `json:"from"`
	To    int     `json:"to"`
	// Reason is "metric", "schedule" or "cold_start".
	Reason string `json:"reason"`
	// Metric is the metric per provisioned replica over the period just
	// evaluated, and Recommended the count it called for (metric events).
	Metric      float64 `json:"metric"`
	Recommended int     `json:"recommended"`
	// ReadyAtS is when replicas added by a scale-up accept requests.
	ReadyAtS float64 `json:"ready_at_s,omitempty"`
}

// PoolResult is one pool of a disaggregated cluster.
type PoolResult struct {
	Role string `json:"role"` // "prefill" or "decode"
	// Replicas is the count at the start, PeakReplicas the most at once
	// (they differ when the pool is autoscaled).
	Replicas       int     `json:"replicas"`
	PeakReplicas   int     `json:"peak_replicas"`
	TensorParallel int     `json:"tensor_parallel"`
	GPUs           int     `json:"gpus"`
	GPU            string  `json:"gpu"`
	KVBlocks       int     `json:"kv_blocks_per_replica"`
	Steps          int64   `json:"steps"`
	Preemptions    int64   `json:"preemptions"`
	MeanBatch      float64 `json:"mean_batch"`
	MeanKVUse      float64 `json:"mean_kv_use"`
	Utilization    float64 `json:"utilization"`
	// MeanWaiting is the time-weighted number of requests waiting in the
	// pool's queues (for decode: in its replicas' queues, and for KV
	// blocks to receive a transfer).
	MeanWaiting float64 `json:"mean_waiting"`
	GPUHours    float64 `json:"gpu_hours"`
	CostUSD     float64 `json:"cost_usd"`
	// Autoscale is what the pool's autoscaler did, when it has one.
	Autoscale *AutoscaleResult `json:"autoscale,omitempty"`
}

// TransferResult is the KV handed from the prefill pool to the decode pool.
type TransferResult struct {
	BandwidthGBs  float64 `json:"bandwidth_gbs"`
	LatencyS      float64 `json:"latency_s"`
	BytesPerToken float64 `json:"bytes_per_token"`
	Transfers     int64   `json:"transfers"`
	Bytes         float64 `json:"bytes"`
	// Time is the transfers' durations (bytes ÷ bandwidth + latency), and
	// KVWait the time a prefilled request waited for the decode pool's KV
	// blocks before its transfer could start.
	Time   Quantiles `json:"time_s"`
	KVWait Quantiles `json:"kv_wait_s"`
}
