package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/headroom-sim/headroom/workloads"
)

// Priority classes.
const (
	PriorityInteractive = "interactive"
	PriorityBatch       = "batch"
)

// Lanes of a hosted provider.
const (
	LaneSync  = "sync"
	LaneBatch = "batch"
)

// WorkloadSpec is one task class: what arrives, with which tokens, through
// which client, to which backend.
type WorkloadSpec struct {
	Name     string `toml:"name"`
	Route    string `toml:"route"`    // the provider that serves it
	Key      string `toml:"key"`      // the provider API key it uses (optional)
	Lane     string `toml:"lane"`     // "sync" (default) or "batch" (the provider's batch API)
	Priority string `toml:"priority"` // "interactive" (default) or "batch"
	Tenant   string `toml:"tenant"`   // its tenant at the gateway, and a label in results
	// GatewayKey is the tenant's API key it uses at the gateway (optional).
	GatewayKey string `toml:"gateway_key"`
	// Repeats says how often requests repeat, for the gateway's response
	// cache.
	Repeats RepeatSpec           `toml:"repeats"`
	Demand  workloads.DemandSpec `toml:"demand"`
	Tokens  workloads.TokenSpec  `toml:"tokens"`
	Client  ClientSpec           `toml:"client"`
	SLO     SLOSpec              `toml:"slo"`
}

// RepeatSpec describes repeated requests: each request is one of Distinct
// possible ones, drawn uniformly or, with Zipf > 1, by a Zipf law of that
// exponent (a few popular questions, a long tail).
type RepeatSpec struct {
	Distinct int     `toml:"distinct"` // 0: every request is unique
	Zipf     float64 `toml:"zipf"`     // 0: uniform; else the exponent, > 1
}

// ClientSpec is the application code that calls the backend.
type ClientSpec struct {
	MaxConcurrency int       `toml:"max_concurrency"` // semaphore size; 0 = unlimited
	Retry          RetrySpec `toml:"retry"`           // a preset name or a policy table
	Pace           PaceSpec  `toml:"pace"`            // optional local pacing bucket
	// Timeout abandons an attempt that has not completed this long after
	// it was sent (the SDKs' request timeout; 0 = none). The client
	// disconnects: the gateway releases what it held and a route falls
	// back, but the backend does not know and finishes the work, billed
	// and wasted, unless it was still waiting in a queue.
	Timeout workloads.Duration `toml:"timeout"`
}

// PaceSpec is a client-side pacing bucket set under the quota: every attempt
// waits for it before it is sent (a reservation, like x/time/rate's
// ReserveN, so waiters are served first come, first served).
type PaceSpec struct {
	RequestsPerMin float64 `toml:"requests_per_min"`
	TokensPerMin   float64 `toml:"tokens_per_min"` // charged input + max_tokens per attempt
	Burst          float64 `toml:"burst"`          // bucket size in requests (default 1)
	TokenBurst     float64 `toml:"token_burst"`    // bucket size in tokens (default one second of TokensPerMin)
}

// Enabled reports whether any pacing is configured.
func (p PaceSpec) Enabled() bool { return p.RequestsPerMin > 0 || p.TokensPerMin > 0 }

// SLOSpec gives the thresholds a completed request must meet to count as
// goodput. A zero threshold is not checked.
type SLOSpec struct {
	TTFT workloads.Duration `toml:"ttft"`
	TPOT workloads.Duration `toml:"tpot"`
	E2E  workloads.Duration `toml:"e2e"`
}

func (w *WorkloadSpec) applyDefaults() {
	if w.Lane == "" {
		w.Lane = LaneSync
	}
	if w.Priority == "" {
		w.Priority = PriorityInteractive
	}
	if w.Tenant == "" {
		w.Tenant = "default"
	}
	w.Client.Retry.applyDefaults()
	if w.Client.Pace.Burst == 0 {
		w.Client.Pace.Burst = 1
	}
	if w.Client.Pace.TokenBurst == 0 {
		w.Client.Pace.TokenBurst = w.Client.Pace.TokensPerMin / 60
	}
}

// Validate checks the workload on its own; references to providers are
// checked by Config.Validate.
func (w *WorkloadSpec) Validate() error {
	if w.Name == "" {
		return &workloads.FieldError{Key: "name", Msg: "must be set"}
	}
	if w.Route == "" {
		return &workloads.FieldError{Key: "route", Msg: "must name a provider"}
	}
	switch w.Lane {
	case "", LaneSync, LaneBatch:
	default:
		return &workloads.FieldError{Key: "lane", Msg: fmt.Sprintf("must be %q or %q, got %q", LaneSync, LaneBatch, w.Lane)}
	}
	switch w.Priority {
	case "", PriorityInteractive, PriorityBatch:
	default:
		return &workloads.FieldError{Key: "priority", Msg: fmt.Sprintf("must be %q or %q, got %q", PriorityInteractive, PriorityBatch, w.Priority)}
	}
	if rp := w.Repeats; rp.Distinct < 0 || rp.Distinct > 100_000_000 {
		return &workloads.FieldError{Key: "repeats.distinct", Msg: fmt.Sprintf("must be between 0 (all unique) and 100000000, got %d", rp.Distinct)}
	} else if rp.Zipf != 0 && !(rp.Zipf > 1 && rp.Zipf < 100) {
		return &workloads.FieldError{Key: "repeats.zipf", Msg: fmt.Sprintf("must be 0 (uniform) or an exponent > 1 (and < 100), got %v", rp.Zipf)}
	}
	if err := w.Demand.Validate(); err != nil {
		return workloads.Prefix("demand", err)
	}
	if w.Demand.IsTrace() {
		if err := w.validateTrace(); err != nil {
			return err
		}
	} else if err := w.Tokens.Validate(); err != nil {
		return workloads.Prefix("tokens", err)
	}
	c := w.Client
	if c.MaxConcurrency < 0 || c.MaxConcurrency > 10_000_000 {
		return &workloads.FieldError{Key: "client.max_concurrency", Msg: fmt.Sprintf("must be between 0 (unlimited) and 10000000, got %d", c.MaxConcurrency)}
	}
	if c.Timeout < 0 {
		return &workloads.FieldError{Key: "client.timeout", Msg: "must be a duration >= 0 (0 = no timeout)"}
	}
	if err := c.Retry.Validate(); err != nil {
		return workloads.Prefix("client.retry", err)
	}
	p := c.Pace
	for _, f := range []struct {
		k string
		v float64
	}{{"requests_per_min", p.RequestsPerMin}, {"tokens_per_min", p.TokensPerMin}, {"burst", p.Burst}, {"token_burst", p.TokenBurst}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return &workloads.FieldError{Key: "client.pace." + f.k, Msg: fmt.Sprintf("must be a finite number >= 0, got %v", f.v)}
		}
	}
	return nil
}

// validateTrace checks a trace workload: its tokens come from the trace,
// so of [workload.tokens] only max_tokens (a cap on each record's output)
// applies; and the trace file must open and its first record parse.
func (w *WorkloadSpec) validateTrace() error {
	t := w.Tokens
	switch {
	case !t.Input.IsZero():
		return &workloads.FieldError{Key: "tokens.input", Msg: "does not apply to a trace: each request has its record's prompt tokens"}
	case !t.Output.IsZero():
		return &workloads.FieldError{Key: "tokens.output", Msg: "does not apply to a trace: each request has its record's output tokens (tokens.max_tokens caps them)"}
	case t.SharedPrefix != 0 || t.Prefixes != 0:
		return &workloads.FieldError{Key: "tokens.shared_prefix", Msg: "does not apply to a trace: shared prefixes come from its block hashes, session ids or prefix ids (see demand.trace.columns)"}
	case t.MaxTokens < 0 || t.MaxTokens > 10_000_000:
		return &workloads.FieldError{Key: "tokens.max_tokens", Msg: fmt.Sprintf("must be between 0 (the backend's default) and 10000000, got %d", t.MaxTokens)}
	}
	if err := w.Demand.Trace.Probe(); err != nil {
		var fe *workloads.FieldError
		if errors.As(err, &fe) {
			return workloads.Prefix("demand.trace", err)
		}
		return &workloads.FieldError{Key: "demand.trace.file", Msg: err.Error()}
	}
	return nil
}
