package model

import (
	"fmt"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Window algorithms.
const (
	WindowTokenBucket = "token-bucket"
	WindowFixed       = "fixed"
	WindowSliding     = "sliding"
)

// Output charging modes at admission.
const (
	// ReserveMaxTokens charges max_tokens at admission and refunds the unused
	// part at completion (Anthropic 2025 OTPM, Azure, Bedrock, OpenAI).
	ReserveMaxTokens = "max_tokens"
	// ReserveNone checks the bucket has room at admission and debits the
	// actual output at completion (check before, deduct after; Envoy AI
	// Gateway and Anthropic's 2026 note). Buckets can then overshoot.
	ReserveNone = "none"
)

// defaultErrorLatency is how long an error response takes (seconds): a
// network round trip. It also keeps a client that retries or re-sends at
// once from looping in zero simulated time.
const defaultErrorLatency = 0.01

// ProviderSpec is one hosted API endpoint for one model (or model class
// sharing a rate-limit pool).
type ProviderSpec struct {
	Name        string              `toml:"name" default:"required" doc:"what workloads route to; unique among providers, clusters and routes"`
	Model       string              `toml:"model" effect:"free text shown in reports; the simulation does not use it" doc:"free text describing the model"`
	Limits      LimitsSpec          `toml:"limits" doc:"the organisation's rate limits"`
	Keys        []KeySpec           `toml:"key" doc:"API keys (projects, workspaces) with limits of their own under the organisation's"`
	Concurrency ConcurrencySpec     `toml:"concurrency" doc:"a cap on requests in service at once"`
	Cache       CacheSpec           `toml:"cache" doc:"the prompt cache for shared prefixes"`
	Latency     LatencySpec         `toml:"latency" default:"none: answers are instantaneous (a warning says so)" doc:"the service-time model"`
	Price       PriceSpec           `toml:"price" default:"none: tokens cost nothing (a warning says so)" doc:"USD per million tokens, and the tier's fixed price"`
	Batch       BatchSpec           `toml:"batch" doc:"the batch API, for workloads with lane = \"batch\""`
	Outages     []OutageSpec        `toml:"outage" doc:"periods in which the endpoint fails requests"`
	MaxOutput   int                 `toml:"max_output" unit:"tokens" range:"[1,1073741824]" default:"4096" doc:"max_tokens for workloads that set none"`
	ErrorTime   *workloads.Duration `toml:"error_latency" range:"[0s,1h]" default:"10ms" doc:"time to return an error response (a network round trip)"`
}

// KeySpec is one API key (or project/workspace) with limits of its own under
// the provider's org-level limits.
type KeySpec struct {
	Name   string     `toml:"name" default:"required" doc:"the key's name, unique within the provider; workloads and route targets (\"provider:key\") name it"`
	Limits LimitsSpec `toml:"limits" doc:"the key's own limits (spend_limit_usd and retry_after are provider-wide)"`
}

// LimitsSpec is a set of rate-limit dimensions sharing one window algorithm.
// A zero limit is not enforced.
type LimitsSpec struct {
	RPM  float64 `toml:"rpm" unit:"requests/min" range:"(0,1e15]" zero:"absent for no limit" default:"no limit" doc:"requests per minute"`
	ITPM float64 `toml:"itpm" unit:"tokens/min" range:"(0,1e15]" zero:"absent for no limit" default:"no limit" doc:"input tokens per minute (cache reads excluded unless cache_reads_count)"`
	OTPM float64 `toml:"otpm" unit:"tokens/min" range:"(0,1e15]" zero:"absent for no limit" default:"no limit" doc:"output tokens per minute (max_tokens is reserved at admission with reserve = \"max_tokens\")"`
	TPM  float64 `toml:"tpm" unit:"tokens/min" range:"(0,1e15]" zero:"absent for no limit" default:"no limit" doc:"input + output tokens per minute (weighted units when weights are set)"`
	RPD  float64 `toml:"rpd" unit:"requests/day" range:"(0,1e15]" zero:"absent for no limit" default:"no limit" doc:"requests per day"`
	TPD  float64 `toml:"tpd" unit:"tokens/day" range:"(0,1e15]" zero:"absent for no limit" default:"no limit" doc:"tokens per day"`

	Window string             `toml:"window" enum:"token-bucket|fixed|sliding" noun:"window" default:"token-bucket" doc:"the window algorithm"`
	Burst  workloads.Duration `toml:"burst" range:"(0s,366d]" default:"60s: a full minute" doc:"token bucket size, as time of refill"`
	// Quantum enforces per-minute limits over shorter windows: a 600 RPM
	// limit with quantum "1s" allows 10 requests per second (Azure RPM,
	// Anthropic "60 RPM as 1 per second"). Fixed and sliding windows only.
	Quantum workloads.Duration `toml:"quantum" range:"[0s,60s]" default:"0: whole minutes" doc:"fixed and sliding windows: enforce per-minute limits over windows this long (Azure RPM in 1s or 10s windows; 60 RPM as 1 per second)"`
	// DailyReset is the clock time per-day windows reset at (fixed window).
	DailyReset workloads.Clock `toml:"daily_reset" default:"00:00" doc:"fixed window: the clock time per-day windows reset at"`

	Reserve         string      `toml:"reserve" enum:"max_tokens|none" noun:"reserve mode" default:"max_tokens" doc:"what admission charges before the answer is known: max_tokens (refunded at completion) or none (check before, deduct after)"`
	CacheReadsCount *bool       `toml:"cache_reads_count" default:"false" doc:"cache reads count toward ITPM and TPM"`
	CountRejected   bool        `toml:"count_rejected" doc:"rejected attempts still consume RPM (OpenAI)"`
	Weights         WeightsSpec `toml:"weights" doc:"weighted units for tpm and tpd: units = input × input weight + cache reads × cached_input weight + output × output weight, input being uncached tokens and cache writes; once one weight is set, the others not set are 0"`
	SpendLimitUSD   float64     `toml:"spend_limit_usd" unit:"USD" range:"(0,1e15]" zero:"absent for no cap" default:"no cap" doc:"cumulative spend on this provider, counted at completion; once reached, every attempt gets a terminal 429 spend_cap (provider-wide, not for a key)"`
	RetryAfter      string      `toml:"retry_after" enum:"seconds|ms|none" noun:"Retry-After precision" default:"seconds (for a key, the provider's)" doc:"the precision of the Retry-After the provider sends: whole seconds rounded up (at least 1), milliseconds rounded up, or no header (provider-wide, not for a key)"`
}

// WeightsSpec turns tokens into weighted units:
// units = input*w_in + cached_input*w_cached + output*w_out.
type WeightsSpec struct {
	Input       float64 `toml:"input" range:"[0,1e6]" doc:"units per uncached input token"`
	CachedInput float64 `toml:"cached_input" range:"[0,1e6]" doc:"units per cached input token"`
	Output      float64 `toml:"output" range:"[0,1e6]" doc:"units per output token"`
}

// Set reports whether any weight is given.
func (w WeightsSpec) Set() bool { return w.Input != 0 || w.CachedInput != 0 || w.Output != 0 }

// ConcurrencySpec caps requests in service at the provider.
type ConcurrencySpec struct {
	Max        int    `toml:"max" range:"[0,10000000]" default:"0: unlimited" doc:"requests in service at once"`
	WhenFull   string `toml:"when_full" enum:"reject|queue" noun:"action" default:"reject" doc:"reject: a 429 with Retry-After 1s; queue: wait in a first-come-first-served backend queue"`
	QueueLimit int    `toml:"queue_limit" range:"[0,100000000]" default:"0: unbounded" doc:"with queue: beyond this many waiting, a 503 queue_full"`
}

// CacheSpec is the provider's prompt cache for shared prefixes.
type CacheSpec struct {
	Enabled   *bool              `toml:"enabled" default:"true" doc:"the prompt cache is on"`
	TTL       workloads.Duration `toml:"ttl" range:"(0s,366d]" default:"5m" doc:"how long a cached prefix lives (typically 5m or 1h)"`
	MinTokens int                `toml:"min_tokens" unit:"tokens" range:"[1,1073741824]" default:"1024" doc:"the shortest cacheable prefix"`
	Refresh   *bool              `toml:"refresh" default:"true" doc:"a hit restarts the TTL"`
}

// LatencySpec is the service-time model of a hosted endpoint.
type LatencySpec struct {
	TTFT TTFTSpec `toml:"ttft" doc:"time to first token: (base + per_input_token × uncached input) × a mean-1 factor"`
	TPOT TPOTSpec `toml:"tpot" doc:"time per output token after the first: mean × a mean-1 factor drawn once per request"`
}

// TTFTSpec is the service time to the first token: base + per-token time,
// multiplied by a mean-1 random factor.
type TTFTSpec struct {
	Base          workloads.Duration `toml:"base" range:"[0s,1h]" default:"0" doc:"fixed part of the time to first token"`
	PerInputToken workloads.Duration `toml:"per_input_token" range:"[0s,1s]" default:"0" doc:"time per input token not read from the cache"`
	Dist          string             `toml:"dist" enum:"fixed|exponential|lognormal" noun:"factor" default:"fixed" doc:"the mean-1 random factor: fixed (1), exponential (Exp(1)) or lognormal"`
	CV            float64            `toml:"cv" range:"(0,100]" zero:"absent for dist fixed or exponential" doc:"lognormal: coefficient of variation of the factor"`
}

// TPOTSpec is the time per output token after the first, multiplied by a
// mean-1 random factor drawn once per request.
type TPOTSpec struct {
	Mean workloads.Duration `toml:"mean" range:"[0s,1m]" default:"0" doc:"mean time per output token after the first"`
	// Base is another name for Mean.
	Base workloads.Duration `toml:"base" range:"[0s,1m]" doc:"another name for mean (give one of them)"`
	Dist string             `toml:"dist" enum:"fixed|exponential|lognormal" noun:"factor" default:"fixed" doc:"the mean-1 random factor"`
	CV   float64            `toml:"cv" range:"(0,100]" zero:"absent for dist fixed or exponential" doc:"lognormal: coefficient of variation of the factor"`
}

// PriceSpec is USD per million tokens, and a tier's fixed price.
type PriceSpec struct {
	Input         float64 `toml:"input" unit:"USD per million tokens" range:"[0,1e6]" default:"0" doc:"uncached input tokens"`
	Output        float64 `toml:"output" unit:"USD per million tokens" range:"[0,1e6]" default:"0" doc:"output tokens"`
	CacheWrite    float64 `toml:"cache_write" unit:"USD per million tokens" range:"[0,1e6]" default:"0" doc:"tokens written to the cache (5-minute TTL)"`
	CacheWrite1h  float64 `toml:"cache_write_1h" unit:"USD per million tokens" range:"[0,1e6]" default:"cache_write" doc:"tokens written when the cache ttl is longer than 5m"`
	CacheRead     float64 `toml:"cache_read" unit:"USD per million tokens" range:"[0,1e6]" default:"0" doc:"tokens read from the cache"`
	BatchDiscount float64 `toml:"batch_discount" range:"[0,1]" default:"0" doc:"the fraction taken off every token price on the batch lane (0.5 = half price)"`
	// Commitment is the tier's fixed price, per CommitmentPer, charged
	// whatever the traffic and prorated to the horizon.
	Commitment    float64 `toml:"commitment" unit:"USD per commitment_per" range:"[0,1e15]" default:"0" doc:"the tier's fixed price, paid whatever the traffic (a monthly plan, reserved or provisioned throughput): prorated to the horizon and added to every cost figure, so a higher tier costs more; shared among the workloads by their tokens there, and not counted toward spend_limit_usd"`
	CommitmentPer string  `toml:"commitment_per" enum:"hour|day|month|year|horizon" noun:"period" default:"month" doc:"what commitment is quoted per: a month is 730 hours, as cloud price lists count it; horizon, the simulated horizon itself"`
}

// BatchSpec is the provider's batch API: jobs finish within a completion
// window at the batch discount, with limits of their own.
type BatchSpec struct {
	Turnaround        workloads.Dist     `toml:"turnaround" unit:"seconds" range:"[0s,366d]" default:"lognormal, mean 30m, cv 1" doc:"time from submission to the result"`
	Window            workloads.Duration `toml:"window" range:"(0s,366d]" default:"24h" doc:"completion window; a job whose turnaround exceeds it fails as batch_expired"`
	MaxEnqueuedTokens float64            `toml:"max_enqueued_tokens" unit:"tokens" range:"[0,1e15]" default:"0: unlimited" doc:"input tokens waiting in the batch queue at once; beyond this, a 429 batch_queue"`
	PromptCache       bool               `toml:"prompt_cache" default:"false" doc:"batch requests read and write the provider's prompt cache (Anthropic's Message Batches do, best effort), at submission; off, their prompts are billed as uncached input"`
}

// OutageSpec is a period in which the endpoint fails requests.
type OutageSpec struct {
	At       workloads.Clock    `toml:"at" doc:"start, at the first occurrence of this clock time from start (once, not daily); wins over after"`
	After    workloads.Duration `toml:"after" range:"[0s,inf)" default:"0s" doc:"start, as time since t = 0"`
	Duration workloads.Duration `toml:"duration" range:"(0s,366d]" default:"required" doc:"how long it lasts"`
	Status   int                `toml:"status" range:"500|503|529" default:"529" doc:"the error returned: server_error_500, unavailable_503 or overloaded_529"`
	Fraction float64            `toml:"fraction" range:"(0,1]" default:"1" doc:"share of attempts failed during the outage"`
}

func (p *ProviderSpec) applyDefaults() {
	p.Limits.applyDefaults()
	for i := range p.Keys {
		if p.Keys[i].Limits.RetryAfter == "" {
			p.Keys[i].Limits.RetryAfter = p.Limits.RetryAfter // provider-wide
		}
		p.Keys[i].Limits.applyDefaults()
	}
	if p.Concurrency.WhenFull == "" {
		p.Concurrency.WhenFull = "reject"
	}
	if p.Cache.TTL == 0 {
		p.Cache.TTL = 300
	}
	if p.Cache.MinTokens == 0 {
		p.Cache.MinTokens = 1024
	}
	if p.MaxOutput == 0 {
		p.MaxOutput = 4096
	}
	if p.ErrorTime == nil {
		d := workloads.Duration(defaultErrorLatency)
		p.ErrorTime = &d
	}
	if p.Batch.Window == 0 {
		p.Batch.Window = 86400
	}
	if p.Batch.Turnaround.IsZero() {
		p.Batch.Turnaround = workloads.Dist{Kind: "lognormal", Mean: 1800, CV: 1}
	}
	for i := range p.Outages {
		if p.Outages[i].Status == 0 {
			p.Outages[i].Status = 529
		}
		if p.Outages[i].Fraction == 0 {
			p.Outages[i].Fraction = 1
		}
	}
	if p.Latency.TPOT.Mean == 0 {
		p.Latency.TPOT.Mean = p.Latency.TPOT.Base
	}
}

func (l *LimitsSpec) applyDefaults() {
	if l.Window == "" {
		l.Window = WindowTokenBucket
	}
	if l.Burst == 0 {
		l.Burst = defaultBurst
	}
	if l.Reserve == "" {
		l.Reserve = ReserveMaxTokens
	}
	if l.RetryAfter == "" {
		l.RetryAfter = "seconds"
	}
}

// Validate checks the provider on its own.
func (p *ProviderSpec) Validate() error {
	if p.Name == "" {
		return &workloads.FieldError{Key: "name", Msg: "must be set"}
	}
	if err := schema.Check(p); err != nil {
		return err
	}
	if err := p.Limits.Validate(); err != nil {
		return workloads.Prefix("limits", err)
	}
	seen := map[string]bool{}
	for i, k := range p.Keys {
		at := fmt.Sprintf("key[%d]", i)
		if k.Limits.SpendLimitUSD != 0 || k.Limits.RetryAfter != "" && k.Limits.RetryAfter != p.Limits.RetryAfter {
			return &workloads.FieldError{Key: at + ".limits", Msg: "spend_limit_usd and retry_after are provider-wide: set them under the provider's limits"}
		}
		if k.Name == "" {
			return &workloads.FieldError{Key: at + ".name", Msg: "must be set"}
		}
		if seen[k.Name] {
			return &workloads.FieldError{Key: at + ".name", Msg: fmt.Sprintf("duplicate key name %q", k.Name)}
		}
		seen[k.Name] = true
		if err := k.Limits.Validate(); err != nil {
			return workloads.Prefix(at+".limits", err)
		}
	}
	if c := p.Concurrency; c.QueueLimit != 0 && c.WhenFull != "queue" {
		return &workloads.FieldError{Key: "concurrency.queue_limit", Msg: "bounds the queue of when_full = \"queue\"; with reject there is none"}
	} else if c.WhenFull == "queue" && c.Max == 0 {
		return &workloads.FieldError{Key: "concurrency.when_full", Msg: "says what happens beyond concurrency.max; set max"}
	}
	if err := p.Latency.TTFT.validate(); err != nil {
		return workloads.Prefix("latency.ttft", err)
	}
	if err := p.Latency.TPOT.validate(); err != nil {
		return workloads.Prefix("latency.tpot", err)
	}
	if p.Price.CommitmentPer != "" && p.Price.Commitment == 0 {
		return &workloads.FieldError{Key: "price.commitment_per", Msg: "says what commitment is quoted per, and the provider has no commitment; give price.commitment (USD) or leave commitment_per out"}
	}
	if !p.Batch.Turnaround.IsZero() {
		if err := p.Batch.Turnaround.Validate(); err != nil {
			return workloads.Prefix("batch.turnaround", err)
		}
	}
	return nil
}

// Validate checks a limit set.
func (l *LimitsSpec) Validate() error {
	if err := schema.Check(l); err != nil {
		return err
	}
	if l.Quantum != 0 && (l.Window == "" || l.Window == WindowTokenBucket) {
		return &workloads.FieldError{Key: "quantum", Msg: "applies to fixed and sliding windows; a token bucket's burst sets its size (use burst)"}
	}
	// Keys whose effect needs other keys (a value equal to the default
	// changes nothing and passes).
	perMinute := l.RPM > 0 || l.ITPM > 0 || l.OTPM > 0 || l.TPM > 0
	fe := func(k, msg string) error { return &workloads.FieldError{Key: k, Msg: msg} }
	switch {
	case l.Burst != defaultBurst && l.Window != "" && l.Window != WindowTokenBucket:
		return fe("burst", "sizes a token bucket; a fixed or sliding window holds one window of the limit (quantum sets its length)")
	case l.Burst != defaultBurst && !perMinute:
		return fe("burst", "sizes the per-minute token buckets (rpm, itpm, otpm, tpm); a per-day limit's bucket holds a day")
	case l.DailyReset.IsSet() && (l.Window != WindowFixed || l.RPD == 0 && l.TPD == 0):
		return fe("daily_reset", "applies to per-day limits (rpd, tpd) in a fixed window (window = \"fixed\")")
	case l.Weights.Set() && l.TPM == 0 && l.TPD == 0:
		return fe("weights", "weigh the tokens of tpm and tpd; set one of them")
	case l.CacheReadsCount != nil && *l.CacheReadsCount && l.ITPM == 0 && l.TPM == 0 && l.TPD == 0:
		return fe("cache_reads_count", "counts cache reads toward itpm, tpm and tpd; set one of them")
	}
	return nil
}

// defaultBurst is a token bucket's size as time of refill: a full minute.
const defaultBurst = 60

// validate checks what no range says: a cv only with a lognormal factor.
func (s TTFTSpec) validate() error { return checkFactor(s.Dist, s.CV) }

// validate checks what no range says: one of mean and base, a cv only with
// a lognormal factor.
func (s TPOTSpec) validate() error {
	if s.Mean != 0 && s.Base != 0 && s.Mean != s.Base {
		return &workloads.FieldError{Key: "base", Msg: "is another name for mean; give one of them"}
	}
	return checkFactor(s.Dist, s.CV)
}

// checkFactor checks a latency factor's dist and cv.
func checkFactor(dist string, cv float64) error {
	if dist == "lognormal" && cv == 0 {
		return &workloads.FieldError{Key: "cv", Msg: "must be > 0 for a lognormal"}
	}
	if dist != "lognormal" && cv != 0 {
		return &workloads.FieldError{Key: "cv", Msg: "applies to dist = \"lognormal\" only (a fixed factor is 1, an exponential one has cv 1)"}
	}
	return nil
}

// listNames joins names for error messages.
func listNames(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
