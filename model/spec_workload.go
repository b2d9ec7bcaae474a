package model

import (
	"errors"
	"fmt"

	"github.com/headroom-sim/headroom/scenarios/schema"
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
	Name     string `toml:"name" default:"required" effect:"a label in results" doc:"the workload's name, unique"`
	Route    string `toml:"route" default:"required" doc:"the provider, cluster or route that serves it"`
	Key      string `toml:"key" default:"the provider's first key, if it has keys" doc:"the provider API key (project, workspace) it uses, a [[provider.key]] name; its limits apply on top of the provider's"`
	Lane     string `toml:"lane" enum:"sync|batch" noun:"lane" default:"sync" doc:"batch sends to the provider's batch API"`
	Priority string `toml:"priority" enum:"interactive|batch" noun:"priority" default:"interactive" doc:"its class in a gateway's fair queue (interactive first, batch shed first) and in a cluster with order = \"priority\"; results are grouped by it (priorities)"`
	Tenant   string `toml:"tenant" default:"default" doc:"its organisation: with a [gateway], one of its tenants; results are grouped by it"`
	// GatewayKey is the tenant's API key it uses at the gateway (optional).
	GatewayKey string `toml:"gateway_key" default:"none" doc:"the tenant's API key it uses at the gateway; the key's limits apply beneath the tenant's"`
	// Repeats says how often requests repeat, for the gateway's response
	// cache.
	Repeats RepeatSpec           `toml:"repeats" default:"every request unique" doc:"how often requests repeat, for the gateway's response cache"`
	Demand  workloads.DemandSpec `toml:"demand" default:"required" doc:"what arrives"`
	Tokens  workloads.TokenSpec  `toml:"tokens" default:"required" doc:"the token profile"`
	Client  ClientSpec           `toml:"client" doc:"the application code that calls the backend: connection pool, retries, pacing, timeout"`
	SLO     SLOSpec              `toml:"slo" doc:"thresholds a completed request must meet to count as goodput"`
}

// RepeatSpec describes repeated requests: each request is one of Distinct
// possible ones, drawn uniformly or, with Zipf > 1, by a Zipf law of that
// exponent (a few popular questions, a long tail).
type RepeatSpec struct {
	Distinct int     `toml:"distinct" range:"[0,100000000]" default:"0: every request is unique" doc:"each request is one of this many possible ones"`
	Zipf     float64 `toml:"zipf" range:"0|(1,100)" msg:"must be 0 (uniform) or an exponent > 1 (and < 100)" default:"0: uniform" doc:"the requests are drawn by a Zipf law of this exponent (a few popular ones, a long tail); 0: equally likely"`
}

// ClientSpec is the application code that calls the backend.
type ClientSpec struct {
	MaxConcurrency int       `toml:"max_concurrency" range:"[0,10000000]" default:"0: unlimited" doc:"the connection pool (a semaphore): a request beyond it waits in the client queue, first come first served; it holds its slot until it ends, through pacing, error round trips, backoff and retries"`
	Retry          RetrySpec `toml:"retry" default:"\"anthropic-python\", whatever the provider (a warning says so): give the preset of the SDK your client uses" doc:"what the client does with a refused attempt: a preset name or a policy table"`
	Pace           PaceSpec  `toml:"pace" default:"off" doc:"a client-side pacing bucket set under the quota"`
	// Timeout abandons an attempt that has not completed this long after
	// it was sent (the SDKs' request timeout; 0 = none). The client
	// disconnects: the gateway releases what it held and a route falls
	// back, but the backend does not know and finishes the work, billed
	// and wasted, unless it was still waiting in a queue.
	Timeout workloads.Duration `toml:"timeout" range:"[0s,366d]" default:"0: none" doc:"the SDK's request timeout: an attempt not answered this long after it was sent (gateway queue, backend queue and service included) is abandoned, counted as a timeout refusal and retried per the policy (below)"`
}

// PaceSpec is a client-side pacing bucket set under the quota: every attempt
// waits for it before it is sent (a reservation, like x/time/rate's
// ReserveN, so waiters are served first come, first served).
type PaceSpec struct {
	RequestsPerMin float64 `toml:"requests_per_min" unit:"requests/min" range:"[0,1e15]" default:"0: off" doc:"request pacing rate"`
	TokensPerMin   float64 `toml:"tokens_per_min" unit:"tokens/min" range:"[0,1e15]" default:"0: off" doc:"token pacing rate, charging input + max_tokens per attempt"`
	Burst          float64 `toml:"burst" unit:"requests" range:"(0,1e15]" default:"1" doc:"request bucket size"`
	TokenBurst     float64 `toml:"token_burst" unit:"tokens" range:"(0,1e15]" zero:"absent for one second of tokens_per_min" default:"one second of tokens_per_min" doc:"token bucket size"`
}

// Enabled reports whether any pacing is configured.
func (p PaceSpec) Enabled() bool { return p.RequestsPerMin > 0 || p.TokensPerMin > 0 }

// SLOSpec gives the thresholds a completed request must meet to count as
// goodput. A zero threshold is not checked.
type SLOSpec struct {
	TTFT workloads.Duration `toml:"ttft" range:"[0s,366d]" default:"0: not checked" doc:"time to first token, from issue"`
	TPOT workloads.Duration `toml:"tpot" range:"[0s,366d]" default:"0: not checked" doc:"time per output token after the first; 0 for one-token answers"`
	E2E  workloads.Duration `toml:"e2e" range:"[0s,366d]" default:"0: not checked" doc:"issue to last token"`
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
	if err := schema.Check(w); err != nil {
		return err
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
	if err := w.Client.Retry.Validate(); err != nil {
		return workloads.Prefix("client.retry", err)
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
	case t.SharedPrefix != 0 || t.Prefixes != 0 || t.PrefixGroup != "":
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
