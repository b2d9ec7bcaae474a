package model

import (
	"fmt"
	"math"
	"strings"

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
	Name        string              `toml:"name"`
	Model       string              `toml:"model"` // free text, shown in reports
	Limits      LimitsSpec          `toml:"limits"`
	Keys        []KeySpec           `toml:"key"`
	Concurrency ConcurrencySpec     `toml:"concurrency"`
	Cache       CacheSpec           `toml:"cache"`
	Latency     LatencySpec         `toml:"latency"`
	Price       PriceSpec           `toml:"price"`
	Batch       BatchSpec           `toml:"batch"`
	Outages     []OutageSpec        `toml:"outage"`
	MaxOutput   int                 `toml:"max_output"`    // max_tokens used when a workload sets none (default 4096)
	ErrorTime   *workloads.Duration `toml:"error_latency"` // time to return an error response (default 10ms, a round trip)
}

// KeySpec is one API key (or project/workspace) with limits of its own under
// the provider's org-level limits.
type KeySpec struct {
	Name   string     `toml:"name"`
	Limits LimitsSpec `toml:"limits"`
}

// LimitsSpec is a set of rate-limit dimensions sharing one window algorithm.
// A zero limit is not enforced.
type LimitsSpec struct {
	RPM  float64 `toml:"rpm"`
	ITPM float64 `toml:"itpm"`
	OTPM float64 `toml:"otpm"`
	TPM  float64 `toml:"tpm"` // input + output (weighted units when weights are set)
	RPD  float64 `toml:"rpd"`
	TPD  float64 `toml:"tpd"`

	Window string             `toml:"window"` // token-bucket (default) | fixed | sliding
	Burst  workloads.Duration `toml:"burst"`  // token bucket size as seconds of refill (default 60s: a full minute)
	// Quantum enforces per-minute limits over shorter windows: a 600 RPM
	// limit with quantum "1s" allows 10 requests per second (Azure RPM,
	// Anthropic "60 RPM as 1 per second"). Fixed and sliding windows only.
	Quantum workloads.Duration `toml:"quantum"`
	// DailyReset is the clock time per-day windows reset at (fixed window).
	DailyReset string `toml:"daily_reset"`

	Reserve         string      `toml:"reserve"`           // max_tokens (default) | none
	CacheReadsCount *bool       `toml:"cache_reads_count"` // cache reads count toward ITPM/TPM (default false)
	CountRejected   bool        `toml:"count_rejected"`    // rejected attempts still consume RPM (OpenAI)
	Weights         WeightsSpec `toml:"weights"`           // weighted units for TPM/TPD
	SpendLimitUSD   float64     `toml:"spend_limit_usd"`   // cumulative spend cap: beyond it, terminal 429
	RetryAfter      string      `toml:"retry_after"`       // header precision: seconds (default, rounded up) | ms | none
}

// WeightsSpec turns tokens into weighted units:
// units = input*w_in + cached_input*w_cached + output*w_out.
type WeightsSpec struct {
	Input       float64 `toml:"input"`
	CachedInput float64 `toml:"cached_input"`
	Output      float64 `toml:"output"`
}

// Set reports whether any weight is given.
func (w WeightsSpec) Set() bool { return w.Input != 0 || w.CachedInput != 0 || w.Output != 0 }

// ConcurrencySpec caps requests in service at the provider.
type ConcurrencySpec struct {
	Max        int    `toml:"max"`         // 0 = unlimited
	WhenFull   string `toml:"when_full"`   // reject (429, default) | queue
	QueueLimit int    `toml:"queue_limit"` // with queue: 0 = unbounded; beyond it, 503
}

// CacheSpec is the provider's prompt cache for shared prefixes.
type CacheSpec struct {
	Enabled   *bool              `toml:"enabled"`    // default true when the workload has a shared prefix
	TTL       workloads.Duration `toml:"ttl"`        // 5m (default, refreshed on every hit) or 1h
	MinTokens int                `toml:"min_tokens"` // shortest cacheable prefix (default 1024)
	Refresh   *bool              `toml:"refresh"`    // a hit refreshes the TTL (default true)
}

// LatencySpec is the service-time model of a hosted endpoint.
type LatencySpec struct {
	TTFT StageSpec `toml:"ttft"`
	TPOT StageSpec `toml:"tpot"`
}

// StageSpec is base + per-token time, multiplied by a mean-1 random factor.
type StageSpec struct {
	Base          workloads.Duration `toml:"base"`
	PerInputToken workloads.Duration `toml:"per_input_token"` // per uncached input token (TTFT)
	Mean          workloads.Duration `toml:"mean"`            // TPOT mean (alias of base)
	Dist          string             `toml:"dist"`            // fixed (default) | exponential | lognormal
	CV            float64            `toml:"cv"`              // lognormal coefficient of variation
}

// PriceSpec is USD per million tokens.
type PriceSpec struct {
	Input         float64 `toml:"input"`
	Output        float64 `toml:"output"`
	CacheWrite    float64 `toml:"cache_write"`    // 5-minute TTL write
	CacheWrite1h  float64 `toml:"cache_write_1h"` // 1-hour TTL write
	CacheRead     float64 `toml:"cache_read"`
	BatchDiscount float64 `toml:"batch_discount"` // fraction off for the batch lane (0.5 = half price)
}

// BatchSpec is the provider's batch API: jobs finish within a completion
// window at the batch discount, with limits of their own.
type BatchSpec struct {
	Turnaround        workloads.Dist     `toml:"turnaround"`          // time to finish (default lognormal mean 30m cv 1)
	Window            workloads.Duration `toml:"window"`              // completion window (default 24h); later = expired
	MaxEnqueuedTokens float64            `toml:"max_enqueued_tokens"` // input tokens waiting at once; beyond: 429
}

// OutageSpec is a period in which the endpoint fails requests.
type OutageSpec struct {
	At       string             `toml:"at"`       // clock time "HH:MM" of the start (or use after)
	After    workloads.Duration `toml:"after"`    // start as time since t = 0
	Duration workloads.Duration `toml:"duration"` // length
	Status   int                `toml:"status"`   // 529 (default), 503 or 500
	Fraction float64            `toml:"fraction"` // share of attempts failed (default 1)
}

func (p *ProviderSpec) applyDefaults() {
	p.Limits.applyDefaults()
	for i := range p.Keys {
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
	if p.Latency.TPOT.Base == 0 {
		p.Latency.TPOT.Base = p.Latency.TPOT.Mean
	}
}

func (l *LimitsSpec) applyDefaults() {
	if l.Window == "" {
		l.Window = WindowTokenBucket
	}
	if l.Burst == 0 {
		l.Burst = 60
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
	c := p.Concurrency
	if c.Max < 0 || c.Max > 10_000_000 {
		return &workloads.FieldError{Key: "concurrency.max", Msg: fmt.Sprintf("must be between 0 (unlimited) and 10000000, got %d", c.Max)}
	}
	if !oneOf(c.WhenFull, "", "reject", "queue") {
		return &workloads.FieldError{Key: "concurrency.when_full", Msg: fmt.Sprintf("must be reject or queue, got %q", c.WhenFull)}
	}
	if c.QueueLimit < 0 {
		return &workloads.FieldError{Key: "concurrency.queue_limit", Msg: "must be >= 0"}
	}
	if p.Cache.TTL < 0 || p.Cache.MinTokens < 0 {
		return &workloads.FieldError{Key: "cache", Msg: "ttl and min_tokens must be >= 0"}
	}
	if err := p.Latency.TTFT.validate(); err != nil {
		return workloads.Prefix("latency.ttft", err)
	}
	if err := p.Latency.TPOT.validate(); err != nil {
		return workloads.Prefix("latency.tpot", err)
	}
	pr := p.Price
	for _, f := range []struct {
		k string
		v float64
	}{{"input", pr.Input}, {"output", pr.Output}, {"cache_write", pr.CacheWrite}, {"cache_write_1h", pr.CacheWrite1h}, {"cache_read", pr.CacheRead}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return &workloads.FieldError{Key: "price." + f.k, Msg: fmt.Sprintf("must be a finite number >= 0 (USD per million tokens), got %v", f.v)}
		}
	}
	if pr.BatchDiscount < 0 || pr.BatchDiscount > 1 {
		return &workloads.FieldError{Key: "price.batch_discount", Msg: fmt.Sprintf("must be a fraction between 0 and 1, got %v", pr.BatchDiscount)}
	}
	if !p.Batch.Turnaround.IsZero() {
		if err := p.Batch.Turnaround.Validate(); err != nil {
			return workloads.Prefix("batch.turnaround", err)
		}
	}
	if p.Batch.MaxEnqueuedTokens < 0 {
		return &workloads.FieldError{Key: "batch.max_enqueued_tokens", Msg: "must be >= 0"}
	}
	if p.MaxOutput < 0 {
		return &workloads.FieldError{Key: "max_output", Msg: "must be > 0"}
	}
	for i, o := range p.Outages {
		at := fmt.Sprintf("outage[%d]", i)
		if o.At != "" {
			if _, err := workloads.ParseClock(o.At); err != nil {
				return &workloads.FieldError{Key: at + ".at", Msg: err.Error()}
			}
		}
		if o.Duration <= 0 {
			return &workloads.FieldError{Key: at + ".duration", Msg: "must be > 0"}
		}
		if !(o.Status == 0 || o.Status == 500 || o.Status == 503 || o.Status == 529) {
			return &workloads.FieldError{Key: at + ".status", Msg: fmt.Sprintf("must be 500, 503 or 529, got %d", o.Status)}
		}
		if o.Fraction < 0 || o.Fraction > 1 {
			return &workloads.FieldError{Key: at + ".fraction", Msg: "must be between 0 and 1"}
		}
	}
	return nil
}

// Validate checks a limit set.
func (l *LimitsSpec) Validate() error {
	for _, f := range []struct {
		k string
		v float64
	}{{"rpm", l.RPM}, {"itpm", l.ITPM}, {"otpm", l.OTPM}, {"tpm", l.TPM}, {"rpd", l.RPD}, {"tpd", l.TPD}, {"spend_limit_usd", l.SpendLimitUSD}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v > 1e15 {
			return &workloads.FieldError{Key: f.k, Msg: fmt.Sprintf("must be > 0 (or absent for no limit), got %v", f.v)}
		}
	}
	if !oneOf(l.Window, "", WindowTokenBucket, WindowFixed, WindowSliding) {
		return &workloads.FieldError{Key: "window", Msg: fmt.Sprintf("must be %s, %s or %s, got %q", WindowTokenBucket, WindowFixed, WindowSliding, l.Window)}
	}
	if l.Burst < 0 {
		return &workloads.FieldError{Key: "burst", Msg: "must be > 0"}
	}
	if l.Quantum != 0 && (l.Window == "" || l.Window == WindowTokenBucket) {
		return &workloads.FieldError{Key: "quantum", Msg: "applies to fixed and sliding windows; a token bucket's burst sets its size (use burst)"}
	}
	if l.Quantum < 0 || l.Quantum > 60 {
		return &workloads.FieldError{Key: "quantum", Msg: fmt.Sprintf("must be between 0 and 60s, got %v", l.Quantum)}
	}
	if l.DailyReset != "" {
		if _, err := workloads.ParseClock(l.DailyReset); err != nil {
			return &workloads.FieldError{Key: "daily_reset", Msg: err.Error()}
		}
	}
	if !oneOf(l.Reserve, "", ReserveMaxTokens, ReserveNone) {
		return &workloads.FieldError{Key: "reserve", Msg: fmt.Sprintf("must be %q or %q, got %q", ReserveMaxTokens, ReserveNone, l.Reserve)}
	}
	if !oneOf(l.RetryAfter, "", "seconds", "ms", "none") {
		return &workloads.FieldError{Key: "retry_after", Msg: fmt.Sprintf("must be seconds, ms or none, got %q", l.RetryAfter)}
	}
	w := l.Weights
	if w.Input < 0 || w.CachedInput < 0 || w.Output < 0 {
		return &workloads.FieldError{Key: "weights", Msg: "weights must be >= 0"}
	}
	return nil
}

func (s StageSpec) validate() error {
	if s.Base < 0 || s.PerInputToken < 0 || s.Mean < 0 {
		return &workloads.FieldError{Msg: "times must be >= 0"}
	}
	if !oneOf(s.Dist, "", "fixed", "exponential", "lognormal") {
		return &workloads.FieldError{Key: "dist", Msg: fmt.Sprintf("must be fixed, exponential or lognormal, got %q", s.Dist)}
	}
	if s.Dist == "lognormal" && s.CV <= 0 {
		return &workloads.FieldError{Key: "cv", Msg: "must be > 0 for a lognormal"}
	}
	if s.CV < 0 {
		return &workloads.FieldError{Key: "cv", Msg: "must be >= 0"}
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
